/**
 * The driver's shared watches: many waiting calls in one driver share one watch per collection
 * (resource and namespace), each woken only by the objects it waits for, and nothing a wait
 * subscribed outlives it. Watch requests are counted where the API server receives them.
 */
import { activateTimes } from '../../faults/proxy/test-kit.ts';
import { SharedWatches } from './shared-watches.ts';
import { MAIN, NAMESPACE, expect, pods, test } from './test-kit.ts';

/** The first two tests need no driver: Pods in a namespace every cluster has. */
const PODS = '/api/v1/namespaces/default/pods';

test('waits on many objects of one collection share one watch, each woken by its own objects only', async ({ lab }) => {
  const cluster = await lab.cluster({ agentSandbox: null, node: false });
  const spy = lab.spy(cluster);
  const watches = new SharedWatches(lab.kubeconfig(cluster), { lingerMs: 50 });
  try {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const woken = new Map<string, number>(names.map((n) => [n, 0]));
    const unsubscribe = names.map((name) => watches.subscribe([{ path: PODS, name }], () => woken.set(name, woken.get(name)! + 1)));
    expect(watches.stats()).toEqual({ watches: 1, waitedObjects: names.length });
    await expect.poll(() => spy.requests.filter((r) => r.verb === 'watch').length).toBe(1);

    // Changes to three of them (and to one nobody waits for) wake those three waiters only.
    for (const name of ['b', 'e', 'zzz', 'h']) cluster.api.create(pods(cluster, 'default'), { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await expect.poll(() => names.filter((n) => woken.get(n)! > 0)).toEqual(['b', 'e', 'h']);

    for (const off of unsubscribe) off();
    expect(watches.stats().waitedObjects).toBe(0);
    // Nobody waits any more: the watch closes after its linger.
    await expect.poll(() => watches.stats().watches).toBe(0);
    const watchRequests = spy.requests.filter((r) => r.verb === 'watch');
    expect(watchRequests).toHaveLength(1);
    expect(watchRequests[0]).toMatchObject({ resource: 'pods', namespace: 'default', name: undefined });
  } finally {
    watches.close();
  }
});

test('a watch the server ends is reopened from where it stood and wakes every waiter', async ({ lab }) => {
  const cluster = await lab.cluster({ agentSandbox: null, node: false });
  const spy = lab.spy(cluster);
  const proxy = await lab.proxy(cluster);
  const watches = new SharedWatches(proxy.kubeconfig(0), { lingerMs: 50 });
  try {
    // The first watch stream ends after one event, as a server ending a watch would.
    activateTimes(proxy, { kind: 'watch-close', match: { verb: 'watch', resource: 'pods' }, afterEvents: 1 }, 1);
    let woken = 0;
    const off = watches.subscribe([{ path: PODS, name: 'quiet' }], () => woken++);
    await expect.poll(() => spy.requests.filter((r) => r.verb === 'watch').length).toBe(1);
    cluster.api.create(pods(cluster, 'default'), { metadata: { name: 'other' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    // Not its object, but the watch ended: the waiter reads again, and the watch is back.
    await expect.poll(() => woken).toBe(1);
    await expect.poll(() => spy.requests.filter((r) => r.verb === 'watch').length).toBe(2);
    await expect.poll(() => watches.stats().watches).toBe(1);
    cluster.api.create(pods(cluster, 'default'), { metadata: { name: 'quiet' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await expect.poll(() => woken).toBe(2);
    off();
  } finally {
    watches.close();
  }
});

test('concurrent lifecycles in one driver share one watch per collection, and leave no wait behind', async ({ lab }) => {
  const cluster = await lab.cluster();
  const spy = lab.spy(cluster);
  const d = lab.driver(cluster);
  // The most watches the driver had open at once, sampled while the calls run.
  let mostOpen = 0;
  const sampler = setInterval(() => (mostOpen = Math.max(mostOpen, d.driver.sharedWatchStats().watches)), 10);
  const count = 5;
  try {
    const created = await Promise.all(Array.from({ length: count }, (_, i) => d.create({ name: `many-${i}`, command: MAIN })));
    await Promise.all(created.map((s) => d.stop(s.id)));
    await Promise.all(created.map((s) => d.start(s.id)));
    await Promise.all(created.map((s) => d.delete(s.id)));
  } finally {
    clearInterval(sampler);
  }
  // One namespace: its Pods and its Sandboxes, whatever the number of waits.
  expect(mostOpen).toBeGreaterThan(0);
  expect(mostOpen).toBeLessThanOrEqual(2);
  // A collection nobody waits on closes and reopens on the next wait: at most once per phase of
  // the test for each of the two, plus the gateway's WatchSandboxes — fewer than the calls made.
  const watchRequests = spy.requests.filter((r) => r.verb === 'watch' && r.namespace === NAMESPACE);
  expect(watchRequests.length).toBeLessThanOrEqual(4 * 2 + 1);
  expect(watchRequests.length).toBeLessThan(4 * count);
  // Every wait has let go of its objects: nothing keyed by a deleted sandbox is left.
  expect(d.driver.sharedWatchStats().waitedObjects).toBe(0);
  // Each watch selects the driver's own objects (its managed-by and gateway id labels), not every object of the namespace.
  expect(watchRequests.map((r) => r.labelSelector)).toEqual(watchRequests.map(() => 'openshell.ai/managed-by=openshell,openshell.ai/gateway-id=gw'));
});

test('with a label selector, only the objects carrying its labels wake their waiters', async ({ lab }) => {
  const cluster = await lab.cluster({ agentSandbox: null, node: false });
  const watches = new SharedWatches(lab.kubeconfig(cluster), { lingerMs: 50, labelSelector: 'owner=me' });
  try {
    const woken: string[] = [];
    const offs = ['mine', 'theirs'].map((name) => watches.subscribe([{ path: PODS, name }], () => woken.push(name)));
    await expect.poll(() => watches.stats().watches).toBe(1);
    cluster.api.create(pods(cluster, 'default'), { metadata: { name: 'theirs', labels: { owner: 'you' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    cluster.api.create(pods(cluster, 'default'), { metadata: { name: 'mine', labels: { owner: 'me' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    // "theirs" was created first: had the server sent its event, it would have woken before "mine".
    await expect.poll(() => woken).toEqual(['mine']);
    for (const off of offs) off();
  } finally {
    watches.close();
  }
});
