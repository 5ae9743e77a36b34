import { setTimeout as sleep } from 'node:timers/promises';
import type { SharedWatches, WatchedObject } from './shared-watches.ts';

export type { WatchedObject } from './shared-watches.ts';

/**
 * Shortens the driver's polling waits: the driver's shared watches (shared-watches.ts) wake the
 * poll loop as soon as one of the objects waited for changes. The poll loop keeps OpenShell's
 * intervals as the fallback and stays the judge of completion; a watch that cannot open only
 * costs latency. A change that arrives while the loop is reading (not sleeping) is kept, so the
 * next sleep returns at once instead of missing it.
 */
export class ChangeSignal {
  private wake?: () => void;
  private changed = false;
  private readonly unsubscribe: () => void;

  private constructor(watches: SharedWatches, objects: WatchedObject[]) {
    this.unsubscribe = watches.subscribe(objects, () => this.notify());
  }

  static open(watches: SharedWatches, objects: WatchedObject[]): ChangeSignal {
    return new ChangeSignal(watches, objects);
  }

  /** Waits `ms`, or less when a watched object changed since the last sleep or changes now, or `abort` fires. */
  async sleep(ms: number, abort?: AbortSignal): Promise<void> {
    if (this.changed) {
      this.changed = false;
      return;
    }
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    abort?.addEventListener('abort', onAbort, { once: true });
    if (abort?.aborted) timer.abort();
    await Promise.race([sleep(ms, undefined, { signal: timer.signal }).catch(() => undefined), woken]);
    abort?.removeEventListener('abort', onAbort);
    timer.abort();
    this.wake = undefined;
    this.changed = false;
  }

  close(): void {
    this.unsubscribe();
    this.wake?.();
  }

  private notify(): void {
    if (this.wake) this.wake();
    else this.changed = true;
  }
}
