/**
 * The reference driver's lifecycle against the embedded cluster: public phases (get(), list()
 * and watch()) and the CR's bootstrap annotations through create, stop, start and delete; the
 * Agent Sandbox patch shapes of both API versions; create rollback when a companion step fails.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { activateTimes } from '../../faults/proxy/test-kit.ts';
import { observedPhase } from '../gateway/phase.ts';
import { ANNOTATION } from './names.ts';
import { HOLD, MAIN, NAMESPACE, driverError, expect, leftovers, phaseReader, sampleWhile, sandboxes, setFinalizer, stopOrderViolations, test } from './test-kit.ts';

test.describe('lifecycle phases', () => {
  test('public phases and bootstrap annotations follow create, stop, start and delete', async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster);

    // The driver's own watch stream, established before anything happens.
    const streamed: string[] = [];
    void d.driver.watchSandboxes((e) => streamed.push(e.type === 'sandbox' ? observedPhase(e.sandbox) : 'deleted'), lab.signal());
    await expect.poll(() => spy.requests.some((r) => r.verb === 'watch' && r.resource === 'sandboxes.agents.x-k8s.io')).toBe(true);

    let id: string | undefined;
    const read = phaseReader(d, () => id);

    const creating = d.create({ name: 'demo', command: MAIN });
    expect(await sampleWhile(creating, read)).toContain('Provisioning');
    const created = await creating;
    id = created.id;
    expect(created.phase).toBe('Ready');
    expect((await d.get(id)).phase).toBe('Ready');
    const names = created.objects;
    const cr = () => cluster.api.get(sandboxes(cluster, NAMESPACE), names.sandbox);
    expect(cr().metadata.annotations?.[ANNOTATION.readiness]).toBe('ready');
    const firstGeneration = names.generation!;
    expect(names.secrets).toHaveLength(2);

    const stopping = d.stop(id);
    expect(await sampleWhile(stopping, read)).toContain('Stopping');
    const stopped = await stopping;
    expect(stopped.phase).toBe('Stopped');
    expect((await d.get(id)).phase).toBe('Stopped');
    expect(cr().metadata.annotations?.[ANNOTATION.readiness]).toBe('unavailable');
    expect(cr().metadata.annotations?.[ANNOTATION.generation]).toBeUndefined();
    expect(stopOrderViolations(timeline, names)).toEqual([]);

    const starting = d.start(id);
    expect(await sampleWhile(starting, read)).toContain('Starting');
    const started = await starting;
    expect(started.phase).toBe('Ready');
    expect((await d.get(id)).phase).toBe('Ready');
    expect(started.objects.generation).not.toBe(firstGeneration);
    expect(started.objects.supervisorPod).toBe(names.supervisorPod);
    expect(cr().metadata.annotations?.[ANNOTATION.readiness]).toBe('ready');

    // A finalizer holds the deleted Sandbox so that Deleting is observable.
    setFinalizer(cluster, sandboxes(cluster, NAMESPACE), names.sandbox, HOLD, true);
    const deleting = d.delete(id);
    await expect.poll(async () => (await d.get(id!)).deleting).toBe(true);
    expect((await d.get(id)).phase).toBe('Deleting');
    setFinalizer(cluster, sandboxes(cluster, NAMESPACE), names.sandbox, HOLD, false);
    expect(await deleting).toBe(true);
    expect((await driverError(d.get(id))).code).toBe('NOT_FOUND');
    expect(await d.delete(id)).toBe(false);

    expect(timeline.bootstrapPhases(names.sandbox)).toEqual([
      'create:preparing',
      'create:released',
      '-:cleared',
      'stop:releasing',
      'stop:suspending',
      '-:cleared',
      'restart:preparing',
      'restart:released',
      '-:cleared',
      // Deleting a Ready sandbox stops it in order first (OpenShell#3421 on the delete path).
      'stop:releasing',
      'stop:suspending',
      '-:cleared',
    ]);
    await expect.poll(() => streamed[streamed.length - 1]).toBe('deleted');
    const phases = streamed.filter((p, i) => i === 0 || streamed[i - 1] !== p);
    // The driver reports no phase: these are the observed ones (a stop in flight shows Bootstrapping, hence Provisioning).
    expect(phases).toEqual(['Provisioning', 'Ready', 'Provisioning', 'Stopped', 'Provisioning', 'Ready', 'Provisioning', 'Stopped', 'Deleting', 'deleted']);
  });

  test('stopping a stopped sandbox is a no-op that keeps it Stopped; starting a running one is refused', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster);
    const { id } = await d.create({ name: 'demo', command: MAIN });
    const refused = await driverError(d.start(id));
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).toBe('cannot rotate a running workload Pod; stop the sandbox first');
    expect((await d.stop(id)).phase).toBe('Stopped');
    const again = await d.stop(id);
    expect(again.phase).toBe('Stopped');
    expect(again.conditions.filter((c) => c.type === 'CleanupFailed')).toEqual([]);
    expect((await d.start(id)).phase).toBe('Ready');
  });
});

test.describe('Agent Sandbox API versions', () => {
  for (const [release, apiVersion, suspended, running] of [
    ['v0.5.0', 'v1beta1', { operatingMode: 'Suspended' }, { operatingMode: 'Running' }],
    ['v0.4.6', 'v1alpha1', { replicas: 0 }, { replicas: 1 }],
  ] as const) {
    test(`${release} (${apiVersion}): running ${JSON.stringify(running)}, suspended ${JSON.stringify(suspended)}`, async ({ lab }) => {
      const cluster = await lab.cluster({ agentSandbox: release });
      const spy = lab.spy(cluster);
      const timeline = lab.timeline(cluster);
      const d = lab.driver(cluster);

      const created = await d.create({ name: 'demo', command: MAIN });
      const cr = created.objects.sandbox;
      // Born suspended, released by the running patch.
      const born = timeline.first('Sandbox', cr, (_o, e) => e.type === 'ADDED')!;
      expect(born.object.apiVersion).toBe(`agents.x-k8s.io/${apiVersion}`);
      expect(born.object.spec).toMatchObject(suspended);
      const specPatches = () => spy.driverPatches('sandboxes', cr).filter((p) => p.body.spec !== undefined);
      expect(specPatches().map((p) => [p.version, p.patchType, p.body.spec])).toEqual([[apiVersion, 'merge', running]]);

      await d.stop(created.id);
      expect(specPatches().map((p) => p.body.spec)).toEqual([running, suspended]);
      const suspension = specPatches()[1];
      expect(suspension.body.metadata.annotations[ANNOTATION.phase]).toBe('suspending');
      // Every patch the driver sends carries the resourceVersion it read (optimistic concurrency).
      for (const patch of spy.driverPatches('sandboxes', cr)) expect(patch.body.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(stopOrderViolations(timeline, created.objects)).toEqual([]);

      await d.start(created.id);
      const restart = specPatches()[2];
      expect(restart.body.spec).toMatchObject(running);
      expect(Object.keys(restart.body.spec).sort()).toEqual([...Object.keys(running), 'podTemplate'].sort());
      expect(restart.body.metadata.annotations[ANNOTATION.operation]).toBe('restart');
      expect((await d.get(created.id)).phase).toBe('Ready');
      expect(await d.delete(created.id)).toBe(true);
    });
  }
});

test.describe('create rollback', () => {
  for (const [step, fault] of [
    ['the boundary Service', { verb: 'create', resource: 'services' }],
    ['the supervisor Pod', { verb: 'create', resource: 'pods' }],
    ['a generation Secret', { verb: 'create', resource: 'secrets' }],
  ] as const) {
    test(`a failure creating ${step} deletes the Sandbox, returns the error and leaves nothing behind`, async ({ lab }) => {
      const cluster = await lab.cluster();
      const timeline = lab.timeline(cluster);
      const proxy = await lab.proxy(cluster);
      const d = lab.driver(cluster, {}, undefined, proxy);
      // etcd's timeout, as kube-apiserver relays it (a 500 with no Retry-After: not retried).
      const injected = activateTimes(proxy, { kind: 'error', match: fault, status: 500 }, 1);

      const error = await driverError(d.create({ name: 'demo', command: MAIN }));
      expect(injected.applied).toBe(1);
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toContain('etcdserver: request timed out');
      // The CR existed and was deleted by the rollback, before create returned.
      expect(timeline.first('Sandbox', 'default--demo', (_o, e) => e.type === 'ADDED')).toBeDefined();
      expect(timeline.deleted('Sandbox', 'default--demo')).toBeDefined();
      expect(await d.list()).toEqual([]);
      // Its companions go by garbage collection, and stay gone: the embedded controller reads a
      // lagging cache (realism, up to 300 ms), so just after the Sandbox went it can create the
      // old Sandbox's Pod once more, which garbage collection then removes again. A retry that
      // met that Pod would fail on its owner (not this Sandbox), as it should.
      const nothing = { pods: [], services: [], secrets: [], persistentvolumeclaims: [], sandboxes: [] };
      await expect
        .poll(async () => {
          const now = leftovers(cluster, NAMESPACE);
          await sleep(1000);
          return [now, leftovers(cluster, NAMESPACE)];
        }, { timeout: 20_000 })
        .toEqual([nothing, nothing]);

      // Nothing blocks a second attempt under the same name.
      const retried = await d.create({ name: 'demo', command: MAIN });
      expect(retried.phase).toBe('Ready');
      expect(await d.delete(retried.id)).toBe(true);
    });
  }
});
