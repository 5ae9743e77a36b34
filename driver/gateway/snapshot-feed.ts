/**
 * The gateway's view of one driver: the last snapshot of each sandbox, fed by WatchSandboxes
 * (opened on first use and reopened with back-off when it ends) and by every GetSandbox the
 * gateway makes, and a way to wait for the next change.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ComputeDriver, DriverEvent, DriverSandbox } from '../compute-driver.ts';

/** What the gateway last learned about a sandbox, and when (epoch ms). */
export interface Sighting {
  /** Undefined once the driver said it was deleted (or GetSandbox answered NOT_FOUND). */
  sandbox?: DriverSandbox;
  at: number;
  /** Since when the sandbox has shown this same set of conditions (epoch ms). */
  since: number;
  from: 'watch' | 'get';
}

const REOPEN_MAX_MS = 2000;

export class SnapshotFeed {
  private readonly latest = new Map<string, Sighting>();
  private readonly waiters = new Set<() => void>();
  private readonly closing = new AbortController();
  private running?: Promise<void>;
  /** Why the watch last ended, when it did (shown in messages; the wait polls GetSandbox meanwhile). */
  watchProblem?: string;

  constructor(readonly client: ComputeDriver) {}

  /** Opens the watch if it is not open yet. */
  open(): void {
    this.running ??= this.follow();
  }

  sighting(id: string): Sighting | undefined {
    return this.latest.get(id);
  }

  /** Records what a GetSandbox (or a NOT_FOUND) showed. */
  record(id: string, sandbox: DriverSandbox | undefined, from: Sighting['from'] = 'get'): void {
    const now = Date.now();
    const previous = this.latest.get(id);
    const same = previous && fingerprint(previous.sandbox) === fingerprint(sandbox);
    this.latest.set(id, { sandbox, at: now, since: same ? previous.since : now, from });
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves at the next change of any sandbox, after `ms`, or when `signal` aborts. */
  async changed(ms: number, signal: AbortSignal): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.waiters.add(wake);
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([woken, sleep(ms, undefined, { signal: timer.signal }).catch(() => undefined)]);
    } finally {
      this.waiters.delete(wake);
      signal.removeEventListener('abort', onAbort);
      timer.abort();
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.running;
  }

  private take(event: DriverEvent): void {
    if (event.type === 'sandbox') this.record(event.sandbox.id, event.sandbox, 'watch');
    else if (event.type === 'deleted') this.record(event.sandboxId, undefined, 'watch');
  }

  private async follow(): Promise<void> {
    const signal = this.closing.signal;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await this.client.watchSandboxes((event) => this.take(event), signal);
        this.watchProblem = signal.aborted ? undefined : 'the driver ended the watch';
      } catch (error) {
        this.watchProblem = (error as Error).message;
      }
      if (signal.aborted) return;
      await sleep(Math.min(100 * 2 ** Math.min(attempt, 5), REOPEN_MAX_MS), undefined, { signal }).catch(() => undefined);
    }
  }
}

/** What "the same state" means for `since`: deletion and the set of conditions. */
function fingerprint(sandbox: DriverSandbox | undefined): string {
  if (!sandbox) return 'gone';
  return JSON.stringify([sandbox.status?.deleting ?? false, (sandbox.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason])]);
}
