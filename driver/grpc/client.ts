/**
 * A `ComputeDriver` that talks to an external compute driver over its Unix socket. Errors come
 * back as `DriverError`s with the driver's own code and message; a socket nobody listens on
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
  type SandboxSpec,
} from '../compute-driver.ts';
import {
  ComputeDriverService,
  DRIVER_ERROR_TRAILER,
  decodeCapabilities,
  decodeEvent,
  decodeSandbox,
  driverCodeOf,
  encodeSpec,
  isDriverErrorCode,
  type WireCapabilities,
  type WireEvent,
  type WireSandbox,
} from './wire.ts';

export interface GrpcDriverClientOptions {
  /**
   * Deadline for each unary call, in ms. Default: none, because stop and start return only once
   * the driver has finished (grace periods plus API headroom), so the driver's own timeouts rule.
   */
  deadlineMs?: number;
  /** How long a call waits for the connection to a socket that neither accepts nor refuses (default 5000). */
  connectTimeoutMs?: number;
}

type UnaryMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: unknown) => void) => grpc.ClientUnaryCall;
type StreamMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<WireEvent>;

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
    this.client = new ComputeDriverService(`unix://${resolve(socketPath)}`, grpc.credentials.createInsecure(), {
      // Transparent retries would only hide which call failed; the caller decides.
      'grpc.enable_retries': 0,
    });
  }

  async capabilities(options?: CallOptions): Promise<DriverCapabilities> {
    const response = await this.unary<{ capabilities?: WireCapabilities }>('GetCapabilities', {}, options);
    return decodeCapabilities(response.capabilities);
  }

  async validate(spec: SandboxSpec, options?: CallOptions): Promise<void> {
    await this.unary('ValidateSandboxCreate', { spec: encodeSpec(spec) }, options);
  }

  async create(spec: SandboxSpec, options?: CallOptions): Promise<DriverSandbox> {
    return decodeSandbox((await this.unary<{ sandbox?: WireSandbox }>('CreateSandbox', { spec: encodeSpec(spec) }, options)).sandbox);
  }

  async get(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return decodeSandbox((await this.unary<{ sandbox?: WireSandbox }>('GetSandbox', { sandbox_id: id }, options)).sandbox);
  }

  async list(options?: CallOptions): Promise<DriverSandbox[]> {
    return ((await this.unary<{ sandboxes?: WireSandbox[] }>('ListSandboxes', {}, options)).sandboxes ?? []).map(decodeSandbox);
  }

  async stop(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return decodeSandbox((await this.unary<{ sandbox?: WireSandbox }>('StopSandbox', { sandbox_id: id }, options)).sandbox);
  }

  async start(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return decodeSandbox((await this.unary<{ sandbox?: WireSandbox }>('StartSandbox', { sandbox_id: id }, options)).sandbox);
  }

  async delete(id: string, options?: CallOptions): Promise<boolean> {
    return (await this.unary<{ deleted?: boolean }>('DeleteSandbox', { sandbox_id: id }, options)).deleted ?? false;
  }

  async watch(listener: (event: DriverEvent) => void, signal: AbortSignal): Promise<void> {
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
      call.on('data', (wire: WireEvent) => {
        if (settled) return;
        try {
          listener(decodeEvent(wire));
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
  private async unary<T>(rpc: string, request: object, options: CallOptions = {}): Promise<T> {
    const deadlines = [options.deadline, this.deadlineMs === undefined ? undefined : Date.now() + this.deadlineMs].filter((d): d is number => d !== undefined);
    const deadline = deadlines.length ? Math.min(...deadlines) : undefined;
    const { signal } = options;
    if (signal?.aborted) throw callerEnded(rpc, signal, 'before it was sent');
    if (deadline !== undefined && deadline <= Date.now()) throw new DriverError('DEADLINE_EXCEEDED', `${rpc} did not finish: deadline exceeded before it was sent`);
    const connected = await this.connect(deadline);
    const method = this.method<UnaryMethod>(rpc);
    return new Promise<T>((done, fail) => {
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
        finish(() => (error ? fail(this.toDriverError(error, rpc, connected, deadline)) : done(response as T))),
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
    const marked = error.metadata?.get(DRIVER_ERROR_TRAILER)[0];
    if (isDriverErrorCode(marked)) return new DriverError(marked, error.details);
    switch (error.code) {
      case grpc.status.UNAVAILABLE:
        return connected
          ? new DriverError('UNAVAILABLE', `lost the connection to the compute driver on ${this.socketPath}: ${error.details}`)
          : new DriverError('UNAVAILABLE', `no compute driver is listening on ${this.socketPath}: ${connectionReason(error.details)}`);
      case grpc.status.DEADLINE_EXCEEDED:
        return new DriverError('DEADLINE_EXCEEDED', `${rpc} did not finish: the compute driver on ${this.socketPath} did not answer within the call's deadline${deadline === undefined ? '' : ` (${new Date(deadline).toISOString()})`}`);
      case grpc.status.CANCELLED:
        return new DriverError('UNAVAILABLE', `${rpc} was cancelled: ${error.details}`);
    }
    // A server that does not set the trailer (another implementation of the service).
    const code = driverCodeOf(error.code);
    if (code) return new DriverError(code, error.details);
    return new DriverError('INTERNAL', `${rpc} failed with ${grpc.status[error.code] ?? error.code}: ${error.details}`);
  }
}

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
