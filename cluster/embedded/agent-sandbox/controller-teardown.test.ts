/**
 * The ends of a Sandbox's life: deletion (garbage collection through ownerReferences; the
 * controller adds no finalizer) and shutdownTime expiry with both policies (reference §2.6, §2.7).
 */
import { expect } from '@playwright/test';
import { AGENT_SANDBOX_VERSIONS } from './profiles.ts';
import { dataClaim, sandboxTest } from './test-kit.ts';

const NAME = 'short-lived';
const PAST = '2020-01-01T00:00:00Z';

for (const version of AGENT_SANDBOX_VERSIONS) {
  const test = sandboxTest(version);

  test.describe(`Agent Sandbox ${version}`, () => {
    test('deleting the Sandbox garbage-collects Pod, Service and PVC; no finalizer holds it', async ({ world }) => {
      const sandbox = world.createSandbox(NAME, { service: true, volumeClaimTemplates: [dataClaim] });
      await world.livePod(NAME);
      world.run(NAME);
      await expect.poll(() => !!world.get('services', NAME) && !!world.get('persistentvolumeclaims', `data-${NAME}`)).toBe(true);
      expect(world.sandbox(NAME).metadata.finalizers).toBeUndefined();

      world.deleteSandbox(NAME);
      expect(world.api.store.getByUid(sandbox.metadata.uid!)).toBeUndefined();
      await expect
        .poll(() => [world.get('pods', NAME), world.get('services', NAME), world.get('persistentvolumeclaims', `data-${NAME}`)])
        .toEqual([undefined, undefined, undefined]);
    });

    test('shutdownTime passed, Retain: Pod and Service deleted, PVC kept, status reduced to conditions, no Pod recreated', async ({ world }) => {
      world.createSandbox(NAME, { service: true, volumeClaimTemplates: [dataClaim] });
      await world.livePod(NAME);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')?.status).toBe('True');

      world.patchSpec(NAME, { shutdownTime: PAST });
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual({
        type: 'Ready',
        status: 'False',
        observedGeneration: 2,
        reason: 'SandboxExpired',
        message: 'Sandbox has expired',
      });
      await expect.poll(() => [world.get('pods', NAME), world.get('services', NAME)]).toEqual([undefined, undefined]);
      expect(world.get('persistentvolumeclaims', `data-${NAME}`)).toBeDefined();
      await expect.poll(() => Object.keys(world.status(NAME))).toEqual(['conditions']);
      // Any later event (here a label on the Sandbox) finds it still expired: no Pod comes back.
      const seen = world.installation.controller.reconcileCount;
      world.api.patch(world.sandboxes(), NAME, 'merge', { metadata: { labels: { poke: '1' } } });
      await expect.poll(() => world.installation.controller.reconcileCount).toBeGreaterThan(seen);
      await world.installation.controller.settled();
      expect(world.get('pods', NAME)).toBeUndefined();
    });

    test('shutdownTime passed, Delete: the Sandbox is deleted and its PVC goes with it', async ({ world }) => {
      world.createSandbox(NAME, { volumeClaimTemplates: [dataClaim], shutdownPolicy: 'Delete' });
      await world.livePod(NAME);
      world.patchSpec(NAME, { shutdownTime: PAST });
      await expect
        .poll(() => [world.api.store.get('sandboxes.agents.x-k8s.io', 'default', NAME), world.get('pods', NAME), world.get('persistentvolumeclaims', `data-${NAME}`)])
        .toEqual([undefined, undefined, undefined]);
    });
  });
}
