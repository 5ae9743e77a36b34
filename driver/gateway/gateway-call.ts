/**
 * One gateway call: its deadline and signal (handed to every RPC it makes), the stage it is in,
 * and the error it ends with when its caller stops waiting — naming the stage and what the
 * driver last showed of the sandbox.
 */
import { DriverError, abortCode, type CallOptions } from '../compute-driver.ts';
import { describeConditions } from './phase.ts';
import type { Sighting } from './snapshot-feed.ts';

/** A call the gateway could not finish: the operation, its stage, the sandbox, and what was last seen of it. */
export class GatewayError extends DriverError {
  constructor(
    code: DriverError['code'],
    message: string,
    readonly operation: string,
    readonly stage: string,
    readonly sandboxId: string | undefined,
    /** How long the call had (ms), for a call its deadline ended. */
    readonly allowedMs: number | undefined,
    /** What the driver last showed of the sandbox, in words. */
    readonly lastSeen: string | undefined,
  ) {
    super(code, message);
    this.name = 'GatewayError';
  }
}

/** `Ready=False (…), Bootstrapping=True, for 4.2 s (watch)`; or that it was deleted, or never seen. */
export function describeSighting(sighting: Sighting | undefined, now = Date.now()): string {
  if (!sighting) return 'the driver has shown nothing of it yet';
  const age = `for ${seconds(now - sighting.since)} s (${sighting.from === 'watch' ? 'WatchSandboxes' : 'GetSandbox'})`;
  if (!sighting.sandbox) return `the driver reported it deleted ${age.replace('for ', '')} ago`;
  return `the driver has shown ${describeConditions(sighting.sandbox)} ${age}`;
}

export class GatewayCall {
  readonly options: CallOptions;
  readonly signal: AbortSignal;
  stage = 'beginning';
  sandboxId?: string;
  private readonly started = Date.now();
  private readonly timeout: AbortController;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly operation: string,
    readonly deadline: number,
    callerSignal: AbortSignal | undefined,
    /** What the driver last showed of the call's sandbox, for the error. */
    private readonly seen: (id: string) => Sighting | undefined,
  ) {
    this.timeout = new AbortController();
    this.timer = setTimeout(() => this.timeout.abort(new DOMException('the call ran out of time', 'TimeoutError')), Math.max(0, deadline - Date.now()));
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.timeout.signal]) : this.timeout.signal;
    this.options = { deadline, signal: this.signal };
  }

  enter(stage: string): void {
    this.stage = stage;
  }

  /** Throws the call's end once its deadline passed or its caller aborted. */
  check(): void {
    if (this.signal.aborted || Date.now() >= this.deadline) throw this.ended();
  }

  /**
   * The error a call ends with: when its deadline or signal ended it (whether the gateway noticed,
   * or the RPC in flight failed with DEADLINE_EXCEEDED / CANCELLED), the gateway's own, naming
   * the stage; any other driver error passes through unchanged.
   */
  failure(error: unknown): Error {
    if (error instanceof GatewayError) return error;
    const ended = this.signal.aborted || Date.now() >= this.deadline;
    if (ended || (error instanceof DriverError && (error.code === 'DEADLINE_EXCEEDED' || error.code === 'CANCELLED'))) {
      const driverSaid = error instanceof DriverError && !ended ? ` (the driver: ${error.message})` : '';
      return this.ended(driverSaid);
    }
    return error as Error;
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private ended(detail = ''): GatewayError {
    const code = this.signal.aborted ? abortCode(this.signal.reason) : 'DEADLINE_EXCEEDED';
    const allowedMs = this.deadline - this.started;
    const what = code === 'DEADLINE_EXCEEDED' ? `did not return within ${seconds(allowedMs)} s` : 'was cancelled by its caller';
    const lastSeen = this.sandboxId ? describeSighting(this.seen(this.sandboxId)) : undefined;
    const subject = this.sandboxId ? ` (sandbox ${this.sandboxId}${lastSeen ? `; ${lastSeen}` : ''})` : '';
    return new GatewayError(code, `${this.operation} ${what}: stopped while ${this.stage}${detail}${subject}`, this.operation, this.stage, this.sandboxId, code === 'DEADLINE_EXCEEDED' ? allowedMs : undefined, lastSeen);
  }
}

/** A budget in seconds as a reader wants it: tenths below 10 s (a 0.5 s budget is not '0 s' or '1 s'), whole seconds above. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
