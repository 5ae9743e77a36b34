/**
 * Crash recovery of stop: the CR's durable phase (`releasing`, `suspending`) lets a fresh driver
 * finish a stop that an abandoned one began, through stop() or reconcile(), without ever
 * reversing the order. The crash points are produced in-process by writing exactly what the
 * abandoned driver would have written, step by step, and then stopping there.
 */
import type { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { ANNOTATION } from './names.ts';
import { operatingSpec } from './render.ts';
import {
  HOLD,
  MAIN,
  NAMESPACE,
  expect,
  pods,
  sandboxApiVersion,
  sandboxes,
  setFinalizer,
  stopOrderViolations,
  suspendedSpec,
  terminating,
  test,
  bootstrapping,
} from './test-kit.ts';
import type { SandboxNames } from './test-kit.ts';

type CrashPhase = 'releasing' | 'suspending';

const stopAnnotations = (phase: CrashPhase) => ({
  [ANNOTATION.bootstrapping]: 'true',
  [ANNOTATION.startedAt]: String(Date.now()),
  [ANNOTATION.operation]: 'stop',
  [ANNOTATION.phase]: phase,
  [ANNOTATION.readiness]: 'unavailable',
});

function exists(cluster: EmbeddedCluster, name: string): boolean {
  return cluster.api.list(pods(cluster), { fieldSelector: `metadata.name=${name}` }).items.length > 0;
}

/**
 * Leaves the sandbox as a driver that crashed in `phase` would: the stop-begin patch; for
 * `suspending` also the supervisor deleted (uid precondition) and gone, then the suspension
 * patch. A finalizer holds the terminating workload Pod so that the fresh driver meets it.
 */
async function abandonStopIn(cluster: EmbeddedCluster, phase: CrashPhase, names: SandboxNames): Promise<void> {
  const crs = sandboxes(cluster, NAMESPACE);
  cluster.api.patch(crs, names.sandbox, 'merge', { metadata: { annotations: stopAnnotations('releasing') } });
  if (phase === 'releasing') return;
  const supervisor = cluster.api.get(pods(cluster), names.supervisorPod);
  cluster.api.delete(pods(cluster), names.supervisorPod, { preconditions: { uid: supervisor.metadata.uid }, propagationPolicy: 'Foreground' });
  await expect.poll(() => exists(cluster, names.supervisorPod), { timeout: 15_000 }).toBe(false);
  setFinalizer(cluster, pods(cluster), names.workloadPod, HOLD, true);
  cluster.api.patch(crs, names.sandbox, 'merge', { metadata: { annotations: stopAnnotations('suspending') }, spec: operatingSpec(sandboxApiVersion(cluster)!, true) });
  await expect.poll(() => terminating(cluster.api.get(pods(cluster), names.workloadPod)), { timeout: 15_000 }).toBe(true);
}

test.describe('resuming an abandoned stop', () => {
  for (const phase of ['releasing', 'suspending'] as const) {
    for (const entry of ['stop', 'reconcile'] as const) {
      test(`a fresh driver's ${entry}() finishes a stop abandoned in \`${phase}\`, in order`, async ({ lab }) => {
        const cluster = await lab.cluster();
        const abandoned = lab.driver(cluster);
        const sb = await abandoned.create({ name: 'demo', command: MAIN });
        await abandoned.close();
        const { sandbox, supervisorPod, workloadPod } = sb.objects;
        const timeline = lab.timeline(cluster);
        const spy = lab.spy(cluster);
        await abandonStopIn(cluster, phase, sb.objects);

        const fresh = lab.driver(cluster);
        expect(bootstrapping(await fresh.get(sb.id))).toEqual({ phase: 'Provisioning', Bootstrapping: 'True', Ready: 'False' });
        const joinedAt = cluster.store.currentRevision();
        const finishing = entry === 'stop' ? fresh.stop(sb.id) : fresh.reconcile();
        if (phase === 'suspending') {
          // The resumed stop waits on the workload Pod; only then does the hold go.
          await expect.poll(() => spy.requests.some((r) => r.verb === 'get' && r.resource === 'pods' && r.name === workloadPod)).toBe(true);
          setFinalizer(cluster, pods(cluster), workloadPod, HOLD, false);
        }
        await finishing;
        expect((await fresh.get(sb.id)).phase).toBe('Stopped');
        if (entry === 'reconcile') expect(lab.logs).toContainEqual(`reconciliation: sandbox ${sb.id}: resumed the interrupted stop from phase ${phase}`);

        // Forward only: releasing -> suspending -> cleared, nothing recreated, never running again.
        expect(timeline.bootstrapPhases(sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared']);
        expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
        expect(timeline.of('Pod', supervisorPod).filter((e) => e.type === 'ADDED')).toEqual([]);
        const suspended = timeline.first('Sandbox', sandbox, suspendedSpec)!;
        expect(timeline.of('Sandbox', sandbox).filter((e) => e.rv > suspended.rv && !suspendedSpec(e.object))).toEqual([]);

        // What the fresh driver itself did: `releasing` redoes the supervisor step; `suspending` skips it.
        const supervisorDeletes = spy.deletes.filter((x) => x.resource === 'pods' && x.name === supervisorPod && x.preconditionUid && x.revision >= joinedAt);
        expect(supervisorDeletes.map((x) => x.outcome)).toEqual(phase === 'releasing' ? ['accepted'] : []);
        const ownPatches = spy.driverPatches('sandboxes', sandbox).map((p) => p.body.metadata.annotations[ANNOTATION.phase]);
        expect(ownPatches).toEqual(phase === 'releasing' ? ['suspending', null] : [null]);
        const workloadGone = timeline.deleted('Pod', workloadPod)!;
        const secretDeletes = spy.requests.filter((r) => r.verb === 'delete' && r.resource === 'secrets');
        expect(secretDeletes).toHaveLength(2);
        for (const request of secretDeletes) expect(request.revision).toBeGreaterThanOrEqual(workloadGone.rv);
      });
    }
  }

  test("a fresh driver's start() first finishes a stop abandoned in `suspending`, then starts", async ({ lab }) => {
    const cluster = await lab.cluster();
    const abandoned = lab.driver(cluster);
    const sb = await abandoned.create({ name: 'demo', command: MAIN });
    await abandoned.close();
    const timeline = lab.timeline(cluster);
    await abandonStopIn(cluster, 'suspending', sb.objects);
    setFinalizer(cluster, pods(cluster), sb.objects.workloadPod, HOLD, false);

    const fresh = lab.driver(cluster);
    const started = await fresh.start(sb.id);
    expect(started.phase).toBe('Ready');
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared', 'restart:preparing', 'restart:released', '-:cleared']);
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
  });

  test('reconcile() leaves a Ready and a Stopped sandbox alone', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster);
    const ready = await d.create({ name: 'ready', command: MAIN });
    const stopped = await d.create({ name: 'stopped', command: MAIN });
    await d.stop(stopped.id);
    const spy = lab.spy(cluster);
    await lab.driver(cluster).reconcile();
    expect(spy.requests.filter((r) => r.verb !== 'get' && r.verb !== 'list')).toEqual([]);
    expect((await d.get(ready.id)).phase).toBe('Ready');
    expect((await d.get(stopped.id)).phase).toBe('Stopped');
  });
});
