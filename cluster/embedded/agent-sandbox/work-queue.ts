/**
 * controller-runtime's work queue, as client-go's workqueue implements it: a key is queued once
 * however often it is added (dirty set), is never handed to two workers at once (processing set;
 * an add while it is processed queues it again when it is done), and can be added after a delay
 * or rate-limited. Hand-written: there is no maintained TypeScript port of client-go's workqueue.
 */

/** client-go's DefaultTypedControllerRateLimiter, the one controller-runtime gives every controller. */
export const CONTROLLER_RATE_LIMIT = { baseDelayMs: 5, maxDelayMs: 1_000_000, qps: 10, burst: 100 } as const;

/**
 * The max of a per-key exponential backoff (5 ms doubling per failure, capped at 1000 s, reset by
 * forget) and one token bucket over all keys (10 per second, burst 100), as MaxOf the two does.
 */
export class ControllerRateLimiter {
  private readonly failures = new Map<string, number>();
  private tokens: number;
  private last: number;

  constructor(
    private readonly limits = CONTROLLER_RATE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.burst;
    this.last = now();
  }

  /** The delay before `key` is retried; counts one more failure. */
  when(key: string): number {
    const exponent = this.failures.get(key) ?? 0;
    this.failures.set(key, exponent + 1);
    const backoff = Math.min(this.limits.baseDelayMs * 2 ** exponent, this.limits.maxDelayMs);
    return Math.max(backoff, this.bucketDelay());
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** golang.org/x/time/rate Reserve(): take a token, going into debt; the debt is the wait. */
  private bucketDelay(): number {
    const now = this.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.last) / 1000) * this.limits.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.limits.qps) * 1000;
  }
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Delayed adds: the earliest time each key is due, and its timer. */
  private readonly waiting = new Map<string, { due: number; timer: NodeJS.Timeout }>();
  private shutDown = false;

  constructor(
    readonly limiter: ControllerRateLimiter,
    /** Called whenever a key may have become available. */
    private readonly onReady: () => void,
  ) {}

  add(key: string): void {
    if (this.shutDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.onReady();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shutDown) return;
    if (delayMs <= 0) return this.add(key);
    const due = Date.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { due, timer });
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** The next key to process, now marked as processing; undefined when none is queued. */
  get(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.onReady();
    }
  }

  /** Keys waiting for a delayed add (a retry or a requeue). */
  waitingCount(): number {
    return this.waiting.size;
  }

  /** Nothing queued and nothing processing (delayed adds may still be waiting). */
  idle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  shutdown(): void {
    this.shutDown = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    this.queue.length = 0;
    this.dirty.clear();
  }
}
