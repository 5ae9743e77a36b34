/**
 * A `ComputeDriver` that talks to any `openshell.compute.v1.ComputeDriver` over its Unix socket.
 * Errors come back as `DriverError`s with the driver's status code and message; a socket nobody listens on
 * fails promptly with UNAVAILABLE `no compute driver is listening on <path>: <reason>` (calls
 * do not wait for the server to appear).
 */
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  DriverError,
  abortCode,
  type CallOptions,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverEvent,
  type DriverSandbox,
  type GatewayListenerRequirement,
  type SandboxRef,
  type StartSandboxRequest,
} from '../compute-driver.ts';
import { computeDriverService, decodeCapabilities, decodeEvent, decodeListenerRequirement, decodeSandbox, driverCodeOf, encodeSandbox } from './wire.ts';

type Wire = Record<string, any>;

export interface GrpcDriverClientOptions {
  /**
   * Deadline for each unary call, in ms. Default: none, because stop returns only once the
   * driver has finished (grace periods plus API headroom), so the driver's own timeouts rule.
   */
  deadlineMs?: number;
  /** How long a call waits for the connection to a socket that neither accepts nor refuses (default 5000). */
  connectTimeoutMs?: number;
}

type UnaryMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: unknown) => void) => grpc.ClientUnaryCall;
type StreamMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<Wire>;

function refRequest(ref: SandboxRef): Wire {
  return { sandbox_id: ref.sandboxId, ...(ref.name && { name: ref.name }) };
}

export class GrpcDriverClient implements ComputeDriver {
  private readonly client: grpc.Client;
  private readonly deadlineMs?: number;
  private readonly connectTimeoutMs: number;
  private readonly watches = new Set<(error: Error) => void>();
  private closed = false;

  constructor(
    readonly socketPath: string,
    options: GrpcDriverClientOptions = {},
  ) {
    this.deadlineMs = options.deadlineMs;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.client = new (computeDriverService())(`unix://${resolve(socketPath)}`, grpc.credentials.createInsecure(), {
      // Transparent retries would only hide which call failed; the caller decides.
      'grpc.enable_retries': 0,
    });
  }

  async getCapabilities(options?: CallOptions): Promise<DriverCapabilities> {
    return decodeCapabilities(await this.unary('GetCapabilities', {}, options));
  }

  async authenticateSandbox(credential: string, options?: CallOptions): Promise<string> {
    return (await this.unary('AuthenticateSandbox', { credential }, options)).sandbox_id ?? '';
  }

  async getGatewayListenerRequirements(options?: CallOptions): Promise<GatewayListenerRequirement[]> {
    return ((await this.unary('GetGatewayListenerRequirements', {}, options)).requirements ?? []).map(decodeListenerRequirement);
  }

  async validateSandboxCreate(sandbox: DriverSandbox, options?: CallOptions): Promise<void> {
    await this.unary('ValidateSandboxCreate', { sandbox: encodeSandbox(sandbox) }, options);
  }

  async createSandbox(sandbox: DriverSandbox, options?: CallOptions): Promise<void> {
    await this.unary('CreateSandbox', { sandbox: encodeSandbox(sandbox) }, options);
  }

  async getSandbox(ref: SandboxRef, options?: CallOptions): Promise<DriverSandbox> {
    const response = await this.unary('GetSandbox', refRequest(ref), options);
    if (!response.sandbox) throw new DriverError('INTERNAL', 'GetSandbox answered without a sandbox');
    return decodeSandbox(response.sandbox);
  }

  async listSandboxes(options?: CallOptions): Promise<DriverSandbox[]> {
    return ((await this.unary('ListSandboxes', {}, options)).sandboxes ?? []).map(decodeSandbox);
  }

  async stopSandbox(ref: SandboxRef, options?: CallOptions): Promise<void> {
    await this.unary('StopSandbox', refRequest(ref), options);
  }

  async startSandbox(request: StartSandboxRequest, options?: CallOptions): Promise<void> {
    await this.unary('StartSandbox', { ...refRequest(request), launch_authentication: request.launchAuthentication, generation_id: request.generationId }, options);
  }

  async deleteSandbox(ref: SandboxRef, options?: CallOptions): Promise<boolean> {
    return (await this.unary('DeleteSandbox', refRequest(ref), options)).deleted ?? false;
  }

  async ensureWorkspace(workspace: string, options?: CallOptions): Promise<void> {
    await this.unary('EnsureWorkspace', { workspace }, options);
  }

  async deleteWorkspace(workspace: string, options?: CallOptions): Promise<void> {
    await this.unary('DeleteWorkspace', { workspace }, options);
  }

  async watchSandboxes(listener: (event: DriverEvent) => void, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const connected = await this.connect();
    if (signal.aborted) return;
    const method = this.method<StreamMethod>('WatchSandboxes');
    const call = method({}, new grpc.Metadata(), {});
    await new Promise<void>((done, fail) => {
      let settled = false;
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        this.watches.delete(onClose);
        if (error) fail(error);
        else done();
      };
      const onAbort = () => {
        call.cancel();
        finish();
      };
      const onClose = (error: Error) => {
        call.cancel();
        finish(error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.watches.add(onClose);
      call.on('data', (wire: Wire) => {
        if (settled) return;
        try {
          const event = decodeEvent(wire);
          if (event) listener(event);
        } catch (error) {
          // A listener that throws ends the watch with its own error.
          call.cancel();
          finish(error as Error);
        }
      });
      call.on('error', (error: grpc.ServiceError) => finish(signal.aborted ? undefined : this.toDriverError(error, 'WatchSandboxes', connected)));
      call.on('end', () => finish());
    });
  }

  /** Closes the channel; watches still open end with UNAVAILABLE. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const end of [...this.watches]) end(new DriverError('UNAVAILABLE', `the client for ${this.socketPath} was closed`));
    this.client.close();
  }

  private method<T>(name: string): T {
    const method = (this.client as unknown as Record<string, T>)[name];
    return (method as unknown as (...args: unknown[]) => unknown).bind(this.client) as T;
  }

  /**
   * One unary call. The caller's deadline (or the client's `deadlineMs`, whichever is sooner)
   * travels as the gRPC deadline, which the server turns into the driver call's own deadline;
   * aborting the caller's signal cancels the call, and the server cancels the driver's work.
   */
  private async unary(rpc: string, request: object, options: CallOptions = {}): Promise<Wire> {
    const deadlines = [options.deadline, this.deadlineMs === undefined ? undefined : Date.now() + this.deadlineMs].filter((d): d is number => d !== undefined);
    const deadline = deadlines.length ? Math.min(...deadlines) : undefined;
    const { signal } = options;
    if (signal?.aborted) throw callerEnded(rpc, signal, 'before it was sent');
    if (deadline !== undefined && deadline <= Date.now()) throw new DriverError('DEADLINE_EXCEEDED', `${rpc} did not finish: deadline exceeded before it was sent`);
    const connected = await this.connect(deadline);
    const method = this.method<UnaryMethod>(rpc);
    return new Promise<Wire>((done, fail) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const onAbort = () => {
        call.cancel();
        finish(() => fail(callerEnded(rpc, signal!, `while waiting for the compute driver on ${this.socketPath}`)));
      };
      const call = method(request, new grpc.Metadata(), deadline === undefined ? {} : { deadline }, (error, response) =>
        finish(() => (error ? fail(this.toDriverError(error, rpc, connected, deadline)) : done((response ?? {}) as Wire))),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort(); // aborted while connecting
    });
  }

  /**
   * Waits while the channel is idle or connecting, at most `connectTimeoutMs`. Returns whether
   * the channel was connected; a channel in TRANSIENT_FAILURE returns at once so the call fails
   * fast with the connection error (calls do not wait for ready).
   */
  private async connect(callDeadline?: number): Promise<boolean> {
    if (this.closed) throw new DriverError('UNAVAILABLE', `the client for ${this.socketPath} was closed`);
    const channel = this.client.getChannel();
    const deadline = Math.min(Date.now() + this.connectTimeoutMs, callDeadline ?? Infinity);
    let state = channel.getConnectivityState(true);
    while (state === grpc.connectivityState.IDLE || state === grpc.connectivityState.CONNECTING) {
      const from = state;
      const changed = await new Promise<boolean>((done) => channel.watchConnectivityState(from, deadline, (error) => done(!error)));
      if (!changed && callDeadline !== undefined && callDeadline <= Date.now()) throw new DriverError('DEADLINE_EXCEEDED', `the call's deadline passed while connecting to the compute driver on ${this.socketPath}`);
      if (!changed) throw new DriverError('UNAVAILABLE', `no compute driver is listening on ${this.socketPath}: no answer within ${this.connectTimeoutMs} ms`);
      state = channel.getConnectivityState(true);
    }
    if (state === grpc.connectivityState.SHUTDOWN) throw new DriverError('UNAVAILABLE', `the client for ${this.socketPath} was closed`);
    return state === grpc.connectivityState.READY;
  }

  private toDriverError(error: grpc.ServiceError, rpc: string, connected: boolean, deadline?: number): DriverError {
    switch (error.code) {
      case grpc.status.UNAVAILABLE:
        if (!connected) return new DriverError('UNAVAILABLE', `no compute driver is listening on ${this.socketPath}: ${connectionReason(error.details)}`);
        // grpc-js's own words for a connection that broke; anything else is the driver's message.
        if (TRANSPORT_FAILURE.test(error.details)) return new DriverError('UNAVAILABLE', `lost the connection to the compute driver on ${this.socketPath}: ${error.details}`);
        return new DriverError('UNAVAILABLE', error.details);
      case grpc.status.DEADLINE_EXCEEDED:
        if (!/^Deadline exceeded\b/.test(error.details)) return new DriverError('DEADLINE_EXCEEDED', error.details);
        return new DriverError('DEADLINE_EXCEEDED', `${rpc} did not finish: the compute driver on ${this.socketPath} did not answer within the call's deadline${deadline === undefined ? '' : ` (${new Date(deadline).toISOString()})`}`);
    }
    const code = driverCodeOf(error.code);
    if (code) return new DriverError(code, error.details);
    return new DriverError('INTERNAL', `${rpc} failed with ${grpc.status[error.code] ?? error.code}: ${error.details}`);
  }
}

/** How grpc-js itself words a broken or unreachable connection (never a driver's message). */
const TRANSPORT_FAILURE = /^(No connection established|Connection dropped|Received RST_STREAM|read ECONNRESET|Connection closed)/;

/** The error of a call whose caller's signal aborted: DEADLINE_EXCEEDED for a timeout, else CANCELLED. */
function callerEnded(rpc: string, signal: AbortSignal, when: string): DriverError {
  const code = abortCode(signal.reason);
  return new DriverError(code, `${rpc} did not finish: ${code === 'DEADLINE_EXCEEDED' ? 'deadline exceeded' : 'cancelled by the caller'} ${when}`);
}

/** grpc-js reports a failed connect as "No connection established. Last error: …"; keep the cause. */
function connectionReason(details: string): string {
  const errno = /\b(ENOENT|ECONNREFUSED|EACCES|ENOTSOCK|ENOTDIR)\b/.exec(details)?.[1];
  switch (errno) {
    case 'ENOENT':
      return 'the socket file does not exist';
    case 'ECONNREFUSED':
      return 'connection refused (the socket file is stale)';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTSOCK':
      return 'the path is not a socket';
    case 'ENOTDIR':
      return 'a parent of the path is not a directory';
  }
  return details;
}
