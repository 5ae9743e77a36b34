import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError, abortCode, type CallOptions } from '../compute-driver.ts';
import type { ChangeSignal } from './change-signal.ts';

/**
 * The bounds of one driver call — the caller's deadline and AbortSignal — and the stage the call
 * is in, so that when the caller stops waiting the error says where the call stood ("create did
 * not finish: deadline exceeded while waiting for the sandbox to become Ready"). Every API request
 * and every wait of the call goes through it: once the call has ended it sends nothing more.
 */
export class CallScope {
  /** Who the call is about, once known: `sandbox <id> (Sandbox <ns>/<name>)`; appended to the end's message. */
  subject?: string;
  private current = 'waiting to begin';
  private end?: DriverError;
  private readonly ended = new AbortController();
  private timer?: NodeJS.Timeout;
  private detach?: () => void;

  constructor(
    /** The caller's name for the call: create, stop, start, delete, get, list, reconciliation. */
    readonly operation: string,
    options: CallOptions = {},
  ) {
    const { deadline, signal } = options;
    if (signal) {
      const onAbort = () => this.finish(abortCode(signal.reason));
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.detach = () => signal.removeEventListener('abort', onAbort);
      }
    }
    if (deadline !== undefined && !this.end) {
      const remaining = deadline - Date.now();
      if (!(remaining > 0)) this.finish('DEADLINE_EXCEEDED');
      else this.timer = setTimeout(() => this.finish('DEADLINE_EXCEEDED'), remaining);
    }
  }

  /** Aborts when the call ends. */
  get signal(): AbortSignal {
    return this.ended.signal;
  }

  get stage(): string {
    return this.current;
  }

  /** Names what the call does from now on, in the words an operator reads after "while". */
  enter(stage: string): void {
    this.current = stage;
  }

  /** Throws the call's end once its deadline passed or its caller aborted. */
  check(): void {
    if (this.end) throw this.end;
  }

  /** Settles as `work` does, or rejects with the call's end as soon as the call ends. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.end) {
      work.catch(() => undefined);
      return Promise.reject(this.end);
    }
    return new Promise<T>((resolve, reject) => {
      const onEnd = () => reject(this.end);
      this.ended.signal.addEventListener('abort', onEnd, { once: true });
      work.then(
        (value) => {
          this.ended.signal.removeEventListener('abort', onEnd);
          resolve(value);
        },
        (error: unknown) => {
          this.ended.signal.removeEventListener('abort', onEnd);
          reject(error);
        },
      );
    });
  }

  /** Waits `ms`, less when `changes` reports a change; throws the call's end if it comes first. */
  async sleep(ms: number, changes?: ChangeSignal): Promise<void> {
    this.check();
    if (changes) await changes.sleep(ms, this.signal);
    else await sleep(ms, undefined, { signal: this.signal }).catch(() => undefined);
    this.check();
  }

  /** Stops the deadline timer and lets go of the caller's signal. An ended call stays ended. */
  close(): void {
    clearTimeout(this.timer);
    this.detach?.();
  }

  private finish(code: 'DEADLINE_EXCEEDED' | 'CANCELLED'): void {
    if (this.end) return;
    const what = code === 'DEADLINE_EXCEEDED' ? 'deadline exceeded' : 'cancelled by the caller';
    this.end = new DriverError(code, `${this.operation} did not finish: ${what} while ${this.current}${this.subject ? ` (${this.subject})` : ''}`);
    clearTimeout(this.timer);
    this.ended.abort(this.end);
  }
}

/** True for the errors that end a call because its caller stopped waiting (no rollback follows those). */
export function isCallEnd(error: unknown): boolean {
  return error instanceof DriverError && (error.code === 'DEADLINE_EXCEEDED' || error.code === 'CANCELLED');
}
