/**
 * Per-sandbox lifecycle gates: create, stop, start, delete and reconciliation of one sandbox
 * never interleave. Reconciliation only tries the gate and skips a sandbox that is busy.
 */
export class LifecycleGates {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly held = new Set<string>();

  /** Runs `work` once the calls before it on `id` ended; `waited` says whether there were any (what it read before may be stale). */
  async run<T>(id: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    const waited = this.tails.has(id);
    const previous = this.tails.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(async () => {
      this.held.add(id);
      try {
        return await work(waited);
      } finally {
        this.held.delete(id);
      }
    });
    this.tails.set(id, next);
    try {
      return await next;
    } finally {
      if (this.tails.get(id) === next) this.tails.delete(id);
    }
  }

  /** Runs `work` only when nobody holds or waits for the gate; returns undefined otherwise. */
  async tryRun<T>(id: string, work: () => Promise<T>): Promise<T | undefined> {
    if (this.tails.has(id) || this.held.has(id)) return undefined;
    return this.run(id, work);
  }
}
