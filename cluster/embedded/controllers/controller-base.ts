/**
 * A deduplicating work queue with retries: the shape of every in-process controller.
 * Keys are reconciled on a later turn of the event loop, never inside the store's event
 * fan-out, so a controller's own writes reach every watcher in commit order.
 */
export abstract class Controller {
  private readonly queued = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private scheduled = false;
  private stopped = false;

  constructor(protected readonly name: string) {}

  enqueue(key: string, delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.enqueue(key);
      }, delayMs);
      this.timers.add(timer);
      return;
    }
    this.queued.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.queued.clear();
  }

  /** Returns a delay in ms to look at the key again (waiting on something), or nothing when done. */
  protected abstract reconcile(key: string): number | void;

  private drain(): void {
    this.scheduled = false;
    const keys = [...this.queued];
    this.queued.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        const again = this.reconcile(key);
        if (typeof again === 'number') this.enqueue(key, again);
      } catch (error) {
        // A failed reconcile is retried: controllers converge, they do not give up.
        if (process.env.EMBEDDED_DEBUG) console.error(`[${this.name}] ${key}: ${(error as Error).message}`);
        this.enqueue(key, 200);
      }
    }
  }
}
