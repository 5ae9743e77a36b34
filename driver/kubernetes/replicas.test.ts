/**
 * Two replicas of the reference driver on one cluster (issue 9), each reconciling every second,
 * as OpenShell's HA lane runs them: per-process gates, only resourceVersion and UID guards in
 * common. Whichever replica writes a transition, the call that asked for it returns once the
 * Sandbox shows it; every transition is written once and in order. Each call carries a
 * test-level guard, so a hang fails with what the Sandbox showed instead of hanging.
 */
import type { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import type { KubeObject } from '../../cluster/embedded/types.ts';
import { ANNOTATION } from './names.ts';
import {
  MAIN,
  NAMESPACE,
  expect,
  operationOf,
  phaseOf,
  sandboxes,
  stopOrderViolations,
  suspendedSpec,
  terminating,
  test,
  type ApiSpy,
  type Lab,
  type TestDriver,
  type Timeline,
} from './test-kit.ts';

const EACH_SECOND = { reconcileIntervalMs: 1000 };
/** Far beyond what any step takes; only a hang reaches it. */
const HANG_GUARD_MS = 45_000;

function replicas(lab: Lab, cluster: EmbeddedCluster, a: object = {}, b: object = {}): [TestDriver, TestDriver] {
  return [lab.driver(cluster, { ...EACH_SECOND, ...a }, 'A'), lab.driver(cluster, { ...EACH_SECOND, ...b }, 'B')];
}

/** Ready=True observed at the Sandbox's current generation. */
function readyCondition(o: KubeObject): boolean {
  const conditions = ((o.status as { conditions?: { type: string; status: string; observedGeneration?: number }[] } | undefined)?.conditions ?? []);
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True' && (c.observedGeneration === undefined || c.observedGeneration === o.metadata.generation));
}

/** `operation:phase readiness=… suspended=… Ready=…` of a Sandbox, for failure messages and polls. */
function shows(cluster: EmbeddedCluster, crName: string): string {
  const found = cluster.api.list(sandboxes(cluster, NAMESPACE), { fieldSelector: `metadata.name=${crName}` }).items[0];
  if (!found) return 'no Sandbox';
  const state = phaseOf(found) ? `${operationOf(found)}:${phaseOf(found)}` : '-:cleared';
  return `${state} readiness=${found.metadata.annotations?.[ANNOTATION.readiness] ?? '-'} suspended=${suspendedSpec(found)} Ready=${readyCondition(found)}`;
}

/** The call's outcome; fails naming what the Sandbox shows if it has not settled within the guard. */
async function settles<T>(call: Promise<T>, what: string, show: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_resolve, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} did not return within ${HANG_GUARD_MS / 1000}s; the Sandbox shows ${show()}`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([call, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a reconciliation pass of `replica` the moment the Sandbox first commits a state matching `when`. */
function reconcileWhen(timeline: Timeline, crName: string, replica: TestDriver, when: (o: KubeObject) => boolean): void {
  let fired = false;
  timeline.onChange((seen) => {
    if (fired || seen.kind !== 'Sandbox' || seen.name !== crName || seen.type === 'DELETED' || !when(seen.object)) return;
    fired = true;
    void replica.reconcile();
  });
}

const releasedAndReady = (operation: string) => (o: KubeObject) => operationOf(o) === operation && phaseOf(o) === 'released' && readyCondition(o);

/** The annotation phase each accepted driver patch of the Sandbox wrote (null = cleared), from `since` on. */
function phaseWrites(spy: ApiSpy, crName: string, since = 0): (string | null | undefined)[] {
  return spy
    .driverPatches('sandboxes', crName)
    .filter((p) => p.revision >= since)
    .map((p) => p.body.metadata?.annotations?.[ANNOTATION.phase]);
}

/** How many times a Pod named `name` newly began terminating. */
function terminations(timeline: Timeline, name: string): number {
  const events = timeline.of('Pod', name);
  return events.filter((e, i) => terminating(e.object) && !(i > 0 && terminating(events[i - 1].object) && events[i - 1].object.metadata.uid === e.object.metadata.uid)).length;
}

test.describe('two replicas, each reconciling every second', () => {
  test('create on A returns Ready although B may write the completion first', async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);
    // A polls rarely, so B's pass — started the moment the Sandbox turns Ready — usually completes first.
    const [a, b] = replicas(lab, cluster, { pollIntervalMs: 1000 });
    const crName = 'default--demo';
    reconcileWhen(timeline, crName, b, releasedAndReady('create'));

    const created = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, crName));
    expect(created.phase).toBe('Ready');
    expect(created.objects.generation).toBeDefined();
    expect(cluster.api.get(sandboxes(cluster, NAMESPACE), crName).metadata.annotations?.[ANNOTATION.generation]).toBe(created.objects.generation);
    expect(shows(cluster, crName)).toBe('-:cleared readiness=ready suspended=false Ready=true');
    expect(timeline.bootstrapPhases(crName)).toEqual(['create:preparing', 'create:released', '-:cleared']);
    // One write per transition, whoever wrote it: the running patch, the Pod UIDs, released, completed.
    expect(phaseWrites(spy, crName)).toEqual([undefined, undefined, 'released', null]);
    expect(lab.logs.filter((l) => l.includes(created.id))).toEqual([]);
    expect((await b.get(created.id)).phase).toBe('Ready');
  });

  test('start on A returns Ready although B may write the completion first', async ({ lab }) => {
    const cluster = await lab.cluster();
    const [a, b] = replicas(lab, cluster, { pollIntervalMs: 1000 });
    const sb = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, 'default--demo'));
    await settles(a.stop(sb.id), 'stop on A', () => shows(cluster, sb.objects.sandbox));
    await b.reconcile(); // a pass of B that joined the stop ends (and logs) before the baseline
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);
    const logged = lab.logs.length;
    reconcileWhen(timeline, sb.objects.sandbox, b, releasedAndReady('restart'));

    const started = await settles(a.start(sb.id), 'start on A', () => shows(cluster, sb.objects.sandbox));
    expect(started.phase).toBe('Ready');
    expect(started.objects.generation).not.toBe(sb.objects.generation);
    expect(cluster.api.get(sandboxes(cluster, NAMESPACE), sb.objects.sandbox).metadata.annotations?.[ANNOTATION.generation]).toBe(started.objects.generation);
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['restart:preparing', 'restart:released', '-:cleared']);
    // The completion was written once.
    expect(phaseWrites(spy, sb.objects.sandbox).filter((p) => p === null)).toHaveLength(1);
    expect(lab.logs.slice(logged)).toEqual([]);
  });

  test('stop on A while B reconciles: one ordered stop, each transition written once', async ({ lab }) => {
    const cluster = await lab.cluster();
    const [a, b] = replicas(lab, cluster);
    const sb = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, 'default--demo'));
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);
    // B joins the moment the stop is recorded.
    reconcileWhen(timeline, sb.objects.sandbox, b, (o) => phaseOf(o) === 'releasing');

    const stopped = await settles(a.stop(sb.id), 'stop on A', () => shows(cluster, sb.objects.sandbox));
    expect(stopped.phase).toBe('Stopped');
    expect(shows(cluster, sb.objects.sandbox)).toBe('-:cleared readiness=unavailable suspended=true Ready=false');
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared']);
    expect(phaseWrites(spy, sb.objects.sandbox)).toEqual(['releasing', 'suspending', null]);
    expect(terminations(timeline, sb.objects.supervisorPod)).toBe(1);
    expect(lab.logs.filter((l) => l.includes(sb.id) && !l.includes('resumed the interrupted stop'))).toEqual([]);
  });

  test('stop on A and stop on B at once: one ordered stop, each transition written once, both return Stopped', async ({ lab }) => {
    const cluster = await lab.cluster();
    const [a, b] = replicas(lab, cluster);
    const sb = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, 'default--demo'));
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);

    const [fromA, fromB] = await settles(Promise.all([a.stop(sb.id), b.stop(sb.id)]), 'stop on A and B', () => shows(cluster, sb.objects.sandbox));
    expect([fromA.phase, fromB.phase]).toEqual(['Stopped', 'Stopped']);
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared']);
    expect(phaseWrites(spy, sb.objects.sandbox)).toEqual(['releasing', 'suspending', null]);
    expect(terminations(timeline, sb.objects.supervisorPod)).toBe(1);
    for (const secret of sb.objects.secrets) expect(timeline.of('Secret', secret).filter((e) => e.type === 'DELETED'), secret).toHaveLength(1);
  });

  for (const phase of ['releasing', 'suspending'] as const) {
    test(`A crashes at \`${phase}\`: B's reconciliation finishes the stop in order and the supervisor exits 0`, async ({ lab }) => {
      const cluster = await lab.cluster();
      const [a, b] = replicas(lab, cluster);
      const sb = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, 'default--demo'));
      const timeline = lab.timeline(cluster);
      const spy = lab.spy(cluster);
      let crashedAt: number | undefined;
      timeline.onChange((seen) => {
        if (crashedAt === undefined && seen.kind === 'Sandbox' && seen.name === sb.objects.sandbox && phaseOf(seen.object) === phase) {
          crashedAt = seen.rv;
          a.halt(); // as the phase commits: A sends nothing more
        }
      });

      const error = await settles(a.stop(sb.id).then(() => undefined, (e: Error) => e), 'stop on A', () => shows(cluster, sb.objects.sandbox));
      expect(error?.message).toBe('this driver instance was halted (simulated crash)');
      await expect.poll(() => shows(cluster, sb.objects.sandbox), { timeout: HANG_GUARD_MS }).toBe('-:cleared readiness=unavailable suspended=true Ready=false');
      await b.reconcile(); // the pass that finished the stop has ended (and logged)
      expect((await b.get(sb.id)).phase).toBe('Stopped');

      expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
      expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared']);
      expect(phaseWrites(spy, sb.objects.sandbox)).toEqual(['releasing', 'suspending', null]);
      // B wrote what came after the crash.
      expect(phaseWrites(spy, sb.objects.sandbox, crashedAt! + 1)).toEqual(phase === 'releasing' ? ['suspending', null] : [null]);
      // B took the stop up where it found it: at the crash, or (for `suspending`) already while A ran it.
      const resumed = lab.logs.filter((l) => l.startsWith(`B: reconciliation: sandbox ${sb.id}: resumed the interrupted stop from phase `));
      expect(resumed.length).toBeGreaterThan(0);
      if (phase === 'releasing') expect(resumed).toEqual([`B: reconciliation: sandbox ${sb.id}: resumed the interrupted stop from phase releasing`]);
    });
  }

  test('passes over a Ready and a Stopped sandbox write nothing and log nothing', async ({ lab }) => {
    const cluster = await lab.cluster();
    const [a, b] = replicas(lab, cluster);
    const ready = await settles(a.create({ name: 'ready', command: MAIN }), 'create', () => shows(cluster, 'default--ready'));
    const stopped = await settles(a.create({ name: 'stopped', command: MAIN }), 'create', () => shows(cluster, 'default--stopped'));
    await settles(b.stop(stopped.id), 'stop', () => shows(cluster, stopped.objects.sandbox));
    // Let anything the stop set in motion settle before the baseline is taken.
    await Promise.all([a.reconcile(), b.reconcile()]);
    const versions = () =>
      Object.fromEntries(
        (['pods', 'secrets'] as const)
          .flatMap((plural) => cluster.api.list(cluster.api.target('v1', plural, NAMESPACE)).items)
          .concat(cluster.api.list(sandboxes(cluster, NAMESPACE)).items)
          .map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.resourceVersion]),
      );
    const before = versions();
    const logged = lab.logs.length;
    const spy = lab.spy(cluster);

    for (let pass = 0; pass < 3; pass++) await Promise.all([a.reconcile(), b.reconcile()]);
    expect(spy.requests.filter((r) => r.verb === 'list' && r.resource === 'sandboxes.agents.x-k8s.io').length).toBeGreaterThanOrEqual(6);
    expect(spy.requests.filter((r) => !['get', 'list', 'watch'].includes(r.verb))).toEqual([]);
    expect(versions()).toEqual(before);
    expect(lab.logs.slice(logged)).toEqual([]);
    expect((await a.get(ready.id)).phase).toBe('Ready');
    expect((await a.get(stopped.id)).phase).toBe('Stopped');
  });

  test("a pass never reaps another replica's create inside its grace", async ({ lab }) => {
    const cluster = await lab.cluster();
    const proxy = await lab.proxy(cluster);
    const a = lab.driver(cluster, {}, 'A', proxy);
    const b = lab.driver(cluster, {}, 'B'); // the default grace (5 min); passes run by hand below
    const spy = lab.spy(cluster);
    const timeline = lab.timeline(cluster);
    const crName = 'default--demo';
    // A's create dwells in `preparing`: its first Secret create is held at the proxy while B passes over it twice.
    const seenByB: string[] = [];
    let passes: Promise<void> | undefined;
    proxy.observe((request, phase) => {
      if (passes || phase !== 'received' || request.verb !== 'create' || request.resource !== 'secrets') return;
      passes = b.reconcile().then(() => b.reconcile());
      return passes;
    });
    spy.onRequest((request) => {
      if (passes && request.verb === 'list' && request.resource === 'sandboxes.agents.x-k8s.io') seenByB.push(shows(cluster, crName));
    });

    const created = await settles(a.create({ name: 'demo', command: MAIN }), 'create on A', () => shows(cluster, crName));
    await passes;
    expect(seenByB[0]).toMatch(/^create:preparing /);
    expect(created.phase).toBe('Ready');
    expect(timeline.deleted('Sandbox', crName)).toBeUndefined();
    expect(spy.deletes.filter((d) => d.resource === 'sandboxes')).toEqual([]);
    expect(lab.logs).toEqual([]);
  });

  test("reaping is decided from the Sandbox's started-at annotation, not from who saw the create begin", async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const crName = 'default--demo';
    // A crashes as its Sandbox is born: a create nobody will finish.
    const a = lab.driver(cluster, {}, 'A');
    timeline.onChange((seen) => seen.kind === 'Sandbox' && seen.type === 'ADDED' && a.halt());
    await a.create({ name: 'demo', command: MAIN }).catch(() => undefined);
    expect(shows(cluster, crName)).toMatch(/^create:preparing /);

    // B never saw it begin; inside the grace its pass leaves it alone.
    const b = lab.driver(cluster, { bootstrapGraceMs: 60_000 }, 'B');
    await b.reconcile();
    expect(shows(cluster, crName)).toMatch(/^create:preparing /);

    // The same create, recorded as begun before the grace: the next pass reaps it.
    const target = sandboxes(cluster, NAMESPACE);
    const uid = cluster.api.get(target, crName).metadata.uid;
    cluster.api.patch(target, crName, 'merge', { metadata: { annotations: { [ANNOTATION.startedAt]: String(Date.now() - 61_000) } } });
    await b.reconcile();
    const deleted = timeline.deleted('Sandbox', crName);
    expect(deleted?.object.metadata.uid).toBe(uid);
    expect(lab.logs.filter((l) => l.startsWith('B: '))).toEqual([`B: reconciliation: sandbox ${deleted!.object.metadata.labels!['openshell.ai/sandbox-id']}: reaped a create that never completed`]);
  });
});

test("drivers of two gateways on one namespace keep to their own sandboxes: neither lists nor reconciles the other's", async ({ lab }) => {
  const cluster = await lab.cluster();
  // A reconciles only when asked, so every write after its stop returned would be B's.
  const mine = lab.driver(cluster, { reconcileIntervalMs: 0, gatewayId: 'gw-a' }, 'A');
  const theirs = lab.driver(cluster, { ...EACH_SECOND, gatewayId: 'gw-b' }, 'B');
  const sb = await settles(mine.create({ name: 'demo', command: MAIN }), 'create on gateway gw-a', () => shows(cluster, 'default--demo'));
  expect(await theirs.list(), 'gateway gw-b lists none of gw-a').toEqual([]);
  await expect(theirs.get(sb.id), "gw-a's sandbox is not gw-b's to read").rejects.toThrow(sb.id);
  await settles(mine.stop(sb.id), 'stop on gateway gw-a', () => shows(cluster, sb.objects.sandbox));
  const spy = lab.spy(cluster);
  await theirs.reconcile();
  await theirs.reconcile();
  expect(spy.driverPatches('sandboxes', sb.objects.sandbox), 'gw-b wrote nothing to it').toEqual([]);
  expect((await mine.list()).map((s) => s.id)).toEqual([sb.id]);
});
