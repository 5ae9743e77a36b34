/**
 * The pieces of realism on their own: controller-runtime's retry policy, the work queue's
 * guarantees, seeded draws, option checks, and the informer cache's lag and order.
 */
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { InformerCache } from './informer-cache.ts';
import { DEFAULT_CACHE_LAG_MS, Draws, describeRealism, resolveRealism } from './realism.ts';
import { ControllerRateLimiter, WorkQueue } from './work-queue.ts';

test('rate limiter: per key 5 ms doubling to a 1000 s cap, forgotten on success; one 10 qps bucket with burst 100 over all keys', () => {
  let now = 0;
  const limiter = new ControllerRateLimiter(undefined, () => now);
  expect([1, 2, 3, 4].map(() => limiter.when('a'))).toEqual([5, 10, 20, 40]);
  expect(limiter.numRequeues('a')).toBe(4);
  limiter.forget('a');
  expect(limiter.when('a')).toBe(5);
  for (let i = 0; i < 30; i++) limiter.when('b');
  expect(limiter.when('b')).toBe(1_000_000);
  // 36 tokens used so far; the bucket allows 100 at once, then one per 100 ms.
  const delays = Array.from({ length: 66 }, (_, i) => limiter.when(`k${i}`));
  expect(delays.slice(0, 64).every((d) => d === 5)).toBe(true);
  expect(delays.slice(64)).toEqual([100, 200]);
  now += 1000;
  expect(limiter.when('fresh')).toBe(5);
});

test('work queue: a key is queued once, never handed out twice at once, and queued again if added while processed', () => {
  let ready = 0;
  const queue = new WorkQueue(new ControllerRateLimiter(), () => ready++);
  queue.add('a');
  queue.add('a');
  queue.add('b');
  expect(queue.get()).toBe('a');
  queue.add('a');
  expect(queue.get()).toBe('b');
  expect(queue.get()).toBeUndefined();
  queue.done('a');
  expect(queue.get()).toBe('a');
  queue.done('a');
  queue.done('b');
  expect(queue.idle()).toBe(true);
  expect(ready).toBeGreaterThan(0);
  queue.shutdown();
});

test('work queue: a delayed add keeps the earliest due time', async () => {
  const queue = new WorkQueue(new ControllerRateLimiter(), () => undefined);
  queue.addAfter('a', 10_000);
  queue.addAfter('a', 20);
  expect(queue.waitingCount()).toBe(1);
  await expect.poll(() => queue.get()).toBe('a');
  queue.shutdown();
});

test('draws: the same seed and name give the same values, whatever else was drawn', () => {
  const a = new Draws(7);
  const b = new Draws(7);
  b.next('other', [0, 100]);
  expect(a.fixed('pods/default/x', DEFAULT_CACHE_LAG_MS)).toBe(b.fixed('pods/default/x', DEFAULT_CACHE_LAG_MS));
  expect([a.next('k', [2, 40]), a.next('k', [2, 40])]).toEqual([b.next('k', [2, 40]), b.next('k', [2, 40])]);
  expect(new Draws(8).fixed('pods/default/x', [0, 1_000_000])).not.toBe(a.fixed('pods/default/x', [0, 1_000_000]));
});

test('options: defaults, off means no lag, bad values are refused saying what is wrong', () => {
  const on = resolveRealism({ seed: 3 });
  expect(on).toMatchObject({ enabled: true, seed: 3, cacheLagMs: [20, 300], reconcileLatencyMs: [2, 40] });
  expect(describeRealism(on)).toBe('realism on, seed 3 (cache lag 20-300 ms, reconcile latency 2-40 ms)');
  expect(resolveRealism({ enabled: false, cacheLagMs: [5, 9] })).toMatchObject({ cacheLagMs: [0, 0], reconcileLatencyMs: [0, 0] });
  expect(Number.isInteger(resolveRealism().seed)).toBe(true);
  expect(() => resolveRealism({ cacheLagMs: [50, 10] })).toThrow('realism cacheLagMs must be two whole milliseconds, 0 <= min <= max; got [50, 10]');
  expect(() => resolveRealism({ seed: -1 })).toThrow('realism seed must be a non-negative whole number; got -1');
  expect(() => resolveRealism({ workers: 0 })).toThrow('realism workers must be a whole number >= 1; got 0');
});

test('informer cache: an event shows only after its lag, and never before an earlier one', async () => {
  const cluster = await EmbeddedCluster.start();
  try {
    const seen: string[] = [];
    const cache = new InformerCache(cluster.store, new Draws(1), [60, 120], (e: StoreEvent) => seen.push(`${e.type} ${e.object.metadata.name}`));
    const pods = cluster.api.target('v1', 'pods', 'default');
    const spec = { containers: [{ name: 'c', image: 'busybox' }] };
    cluster.api.create(pods, { metadata: { name: 'first' }, spec });
    cluster.api.create(pods, { metadata: { name: 'second' }, spec });
    cluster.api.delete(pods, 'first');
    expect(cache.get('pods', 'default', 'first')).toBeUndefined();
    expect(cache.synced()).toBe(false);
    await expect.poll(() => cache.synced()).toBe(true);
    expect(seen).toEqual(['ADDED first', 'ADDED second', 'DELETED first']);
    expect(cache.get('pods', 'default', 'second')?.metadata.name).toBe('second');
    cache.stop();
  } finally {
    await cluster.stop();
  }
});
