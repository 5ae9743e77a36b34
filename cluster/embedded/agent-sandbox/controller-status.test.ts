/**
 * Service rules (spec.service true / false / unset), status writes, deletionTimestamp, the
 * cluster domain, and v0.4.6's scale subresource.
 */
import { expect } from '@playwright/test';
import { AgentSandboxController } from './agent-sandbox-controller.ts';
import { AGENT_SANDBOX_PROFILES } from './profiles.ts';
import { readyTrue, sandboxTest } from './test-kit.ts';

const NAME = 'svc-box';

for (const version of ['v0.4.6', 'v0.5.4'] as const) {
  const test = sandboxTest(version);
  const ready = async (world: Parameters<Parameters<typeof test>[2]>[0]['world'], generation: number, message: string) =>
    expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual(readyTrue(generation, message));

  test.describe(`Agent Sandbox ${version}`, () => {
    test('spec.service: unset creates nothing; true creates; unset keeps an owned one (still required); false deletes it', async ({ world }) => {
      world.createSandbox(NAME);
      await world.livePod(NAME);
      world.run(NAME);
      await ready(world, 1, 'Pod is Ready');
      expect(world.get('services', NAME)).toBeUndefined();
      expect(world.status(NAME)).not.toHaveProperty('service');

      world.patchSpec(NAME, { service: true });
      await ready(world, 2, 'Pod is Ready; Service Exists');
      expect(world.status(NAME)).toMatchObject({ service: NAME, serviceFQDN: `${NAME}.default.svc.cluster.local` });

      world.patchSpec(NAME, { service: null });
      await ready(world, 3, 'Pod is Ready; Service Exists');
      expect(world.get('services', NAME)).toBeDefined();

      world.patchSpec(NAME, { service: false });
      await ready(world, 4, 'Pod is Ready');
      expect(world.get('services', NAME)).toBeUndefined();
      expect(world.status(NAME)).not.toHaveProperty('service');
      expect(world.status(NAME)).not.toHaveProperty('serviceFQDN');
    });

    test('drift in an owned Service selector is patched back; an external delete recreates it', async ({ world }) => {
      world.createSandbox(NAME, { service: true });
      await expect.poll(() => !!world.get('services', NAME)).toBe(true);
      world.api.patch(world.target('services'), NAME, 'merge', { spec: { selector: { app: 'elsewhere' } } });
      await expect.poll(() => (world.get('services', NAME)!.spec as { selector: unknown }).selector).toEqual({ 'agents.x-k8s.io/sandbox-name-hash': '0a484ec9' });
      const uid = world.get('services', NAME)!.metadata.uid;
      world.api.delete(world.target('services'), NAME);
      await expect.poll(() => [undefined, uid].includes(world.get('services', NAME)?.metadata.uid)).toBe(false);
    });

    test('status is written only when it changes', async ({ world }) => {
      world.createSandbox(NAME);
      await world.livePod(NAME);
      world.run(NAME);
      await ready(world, 1, 'Pod is Ready');
      // Once the controller's cache has caught up with its own writes (before, a stale read may rewrite the same status).
      await world.installation.controller.settled();
      const { resourceVersion } = world.sandbox(NAME).metadata;
      const seen = world.installation.controller.reconcileCount;
      // An event on the owned Pod triggers a reconcile that finds nothing to change.
      world.api.patch(world.target('pods'), NAME, 'merge', { metadata: { labels: { touched: 'yes' } } });
      await expect.poll(() => world.installation.controller.reconcileCount).toBeGreaterThan(seen);
      expect(world.sandbox(NAME).metadata.resourceVersion).toBe(resourceVersion);
    });

    test('a Sandbox with a deletionTimestamp is left alone', async ({ world }) => {
      world.createSandbox(NAME);
      await world.livePod(NAME);
      // Someone else's finalizer keeps the Sandbox in deletion; the controller must not recreate its Pod.
      world.api.patch(world.sandboxes(), NAME, 'merge', { metadata: { finalizers: ['example.com/hold'] } });
      world.deleteSandbox(NAME);
      expect(world.sandbox(NAME).metadata.deletionTimestamp).toBeDefined();
      // Until its cache shows the deletion the controller may still act on the Sandbox, as a real one would.
      await world.installation.controller.settled();
      const seen = world.installation.controller.reconcileCount;
      world.api.delete(world.target('pods'), NAME);
      await expect.poll(() => world.installation.controller.reconcileCount).toBeGreaterThan(seen);
      await world.installation.controller.settled();
      expect(world.get('pods', NAME)).toBeUndefined();
      world.api.patch(world.sandboxes(), NAME, 'merge', { metadata: { finalizers: null } });
    });

    test('the cluster domain option names the Service FQDN', async ({ world }) => {
      world.installation.stop();
      const controller = new AgentSandboxController(world.api, AGENT_SANDBOX_PROFILES[version], { clusterDomain: 'corp.internal' });
      try {
        world.createSandbox(NAME, { service: true });
        await expect.poll(() => world.status(NAME).serviceFQDN).toBe(`${NAME}.default.svc.corp.internal`);
      } finally {
        controller.stop();
      }
    });
  });
}

for (const version of ['v0.5.0', 'v0.5.4'] as const) {
  sandboxTest(version)(`Agent Sandbox ${version}: a status write refused with 409 is retried (Update up to v0.5.3, merge patch without precondition at v0.5.4)`, async ({ world }) => {
    const conflict = { subresource: 'status', resource: 'sandboxes.agents.x-k8s.io', status: 409, reason: 'Conflict', message: 'the object has been modified' };
    const onUpdate = world.installation.controller.faults.add({ ...conflict, verb: 'update', times: 1 });
    const onPatch = world.installation.controller.faults.add({ ...conflict, verb: 'patch', times: 1 });
    world.createSandbox(NAME);
    await world.livePod(NAME);
    world.run(NAME);
    await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual(readyTrue(1));
    const left = world.installation.controller.faults.list().map((f) => f.id);
    // A used-up fault is removed: the release's own write verb met its 409, the other verb was never used.
    expect([left.includes(onUpdate.id), left.includes(onPatch.id)]).toEqual(version === 'v0.5.0' ? [false, true] : [true, false]);
  });
}

sandboxTest('v0.4.6')('Agent Sandbox v0.4.6: the scale subresource suspends and reports replicas', async ({ world }) => {
  world.createSandbox(NAME);
  await world.livePod(NAME);
  world.run(NAME);
  await expect.poll(() => world.api.getScale(world.sandboxes(), NAME)).toMatchObject({
    spec: { replicas: 1 },
    status: { replicas: 1, selector: 'agents.x-k8s.io/sandbox-name-hash=0a484ec9' },
  });
  world.api.updateScale(world.sandboxes(), NAME, { spec: { replicas: 0 } });
  await expect.poll(() => world.get('pods', NAME)).toBeUndefined();
  await expect.poll(() => world.api.getScale(world.sandboxes(), NAME)).toMatchObject({
    spec: { replicas: 0 },
    status: { replicas: 0, selector: 'agents.x-k8s.io/sandbox-name-hash=0a484ec9' },
  });
  expect(world.status(NAME)).not.toHaveProperty('replicas');
});
