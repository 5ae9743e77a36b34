/**
 * The `openshell.compute.v1.ComputeDriver` RPCs, each mapped onto the `ComputeDriver` method of
 * the same name: requests decoded, responses encoded, a `DriverError` sent as its plain gRPC
 * status with its message (anything else as INTERNAL), the call's deadline and cancellation
 * handed to the driver as `CallOptions`.
 */
import * as grpc from '@grpc/grpc-js';
import { DriverError, type CallOptions, type ComputeDriver, type DriverEvent, type SandboxRef } from '../compute-driver.ts';
import { decodeSandbox, encodeCapabilities, encodeEvent, encodeListenerRequirement, encodeSandbox, statusOf } from './wire.ts';

type Wire = Record<string, any>;

function toStatus(error: unknown): Partial<grpc.StatusObject> {
  const driverError = error instanceof DriverError ? error : new DriverError('INTERNAL', error instanceof Error ? error.message : String(error));
  return { code: statusOf(driverError.code), details: driverError.message };
}

function ref(request: Wire): SandboxRef {
  if (!request.sandbox_id) throw new DriverError('INVALID_ARGUMENT', 'sandbox_id is required');
  return request.name ? { sandboxId: request.sandbox_id, name: request.name } : { sandboxId: request.sandbox_id };
}

/**
 * How much earlier than the gRPC deadline the driver's own deadline falls (at most a quarter of
 * the time left): the driver's DEADLINE_EXCEEDED, naming its stage, then reaches the client
 * before the transport gives up with a bare "Deadline exceeded".
 */
const DEADLINE_MARGIN_MS = 250;

/** The driver call's options: the client's deadline (less the margin) and a signal that aborts when the client cancels. */
function callOptions(call: grpc.ServerUnaryCall<unknown, unknown>): { options: CallOptions; release(): void } {
  const controller = new AbortController();
  const onCancel = () => controller.abort(new DriverError('CANCELLED', 'the client cancelled the call'));
  call.on('cancelled', onCancel);
  const options: CallOptions = { signal: controller.signal };
  const raw = call.getDeadline();
  const deadline = raw instanceof Date ? raw.getTime() : raw;
  if (Number.isFinite(deadline)) options.deadline = deadline - Math.min(DEADLINE_MARGIN_MS, Math.max(0, deadline - Date.now()) / 4);
  return { options, release: () => call.off('cancelled', onCancel) };
}

function unary(run: (request: Wire, options: CallOptions) => Promise<Wire>): grpc.handleUnaryCall<Wire, Wire> {
  return (call, callback) => {
    const { options, release } = callOptions(call);
    // Errors thrown synchronously by run (or by the driver) become statuses as well.
    Promise.resolve()
      .then(() => run(call.request, options))
      .then(
        (response) => callback(null, response),
        (error) => callback(toStatus(error)),
      )
      .finally(release);
  };
}

/** WatchSandboxes: the driver's watch, streamed until the peer goes (cancel or disconnect), the driver fails, or the server closes. */
function watchHandler(driver: ComputeDriver, watches: Set<AbortController>, state: { closing: boolean }): grpc.handleServerStreamingCall<Wire, Wire> {
  return (call) => {
    const controller = new AbortController();
    let failure: unknown;
    const stopWith = (error: unknown) => {
      failure ??= error;
      controller.abort();
    };
    watches.add(controller);
    // A peer that disconnects mid-stream cancels the call too (grpc-js emits 'cancelled' on a closed stream).
    call.on('cancelled', () => controller.abort());
    call.on('close', () => controller.abort());
    if (state.closing) controller.abort();
    const listener = (event: DriverEvent) => {
      if (controller.signal.aborted) return;
      try {
        call.write(encodeEvent(event));
      } catch (error) {
        stopWith(error);
      }
    };
    Promise.resolve()
      .then(() => driver.watchSandboxes(listener, controller.signal))
      .then(
        () => undefined,
        (error) => stopWith(error),
      )
      .then(() => {
        watches.delete(controller);
        if (call.cancelled || call.destroyed) return;
        if (failure !== undefined) call.emit('error', toStatus(failure));
        else if (state.closing) call.emit('error', toStatus(new DriverError('UNAVAILABLE', 'the compute driver is shutting down')));
        else call.end();
      });
  };
}

export function serviceHandlers(driver: ComputeDriver, watches: Set<AbortController>, state: { closing: boolean }): grpc.UntypedServiceImplementation {
  const empty = async () => ({});
  return {
    GetCapabilities: unary(async (_r, o) => encodeCapabilities(await driver.getCapabilities(o))),
    AuthenticateSandbox: unary(async (r, o) => ({ sandbox_id: await driver.authenticateSandbox(r.credential ?? '', o) })),
    GetGatewayListenerRequirements: unary(async (_r, o) => ({ requirements: (await driver.getGatewayListenerRequirements(o)).map(encodeListenerRequirement) })),
    ValidateSandboxCreate: unary(async (r, o) => driver.validateSandboxCreate(decodeSandbox(r.sandbox), o).then(empty)),
    CreateSandbox: unary(async (r, o) => driver.createSandbox(decodeSandbox(r.sandbox), o).then(empty)),
    GetSandbox: unary(async (r, o) => ({ sandbox: encodeSandbox(await driver.getSandbox(ref(r), o)) })),
    ListSandboxes: unary(async (_r, o) => ({ sandboxes: (await driver.listSandboxes(o)).map(encodeSandbox) })),
    StopSandbox: unary(async (r, o) => driver.stopSandbox(ref(r), o).then(empty)),
    StartSandbox: unary(async (r, o) => {
      const request = { ...ref(r), ...(r.launch_authentication?.length && { launchAuthentication: new Uint8Array(r.launch_authentication) }), ...(r.generation_id && { generationId: r.generation_id as string }) };
      return driver.startSandbox(request, o).then(empty);
    }),
    DeleteSandbox: unary(async (r, o) => ({ deleted: await driver.deleteSandbox(ref(r), o) })),
    WatchSandboxes: watchHandler(driver, watches, state),
    EnsureWorkspace: unary(async (r, o) => driver.ensureWorkspace(r.workspace ?? '', o).then(empty)),
    DeleteWorkspace: unary(async (r, o) => driver.deleteWorkspace(r.workspace ?? '', o).then(empty)),
  };
}
