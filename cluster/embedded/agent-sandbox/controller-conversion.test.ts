/**
 * v0.5.x serves the deprecated v1alpha1 through the conversion webhook: `replicas: 0` written
 * there is `operatingMode: Suspended` to the controller (reference §3.1, §3.2). Also the one
 * visible difference between v0.5.0 and v0.5.4 when the Pod is not bound: it goes at once, so
 * both end at Suspended=True, v0.5.4 only once the Pod object is gone.
 */
import { expect } from '@playwright/test';
import { readyTrue, sandboxTest, type Seen } from './test-kit.ts';

const NAME = 'alpha-client';

for (const version of ['v0.5.0', 'v0.5.4'] as const) {
  const test = sandboxTest(version);
  const terminated: Seen =
    version === 'v0.5.4'
      ? { type: 'Suspended', status: 'True', observedGeneration: 2, reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is suspended' }
      : { type: 'Suspended', status: 'True', observedGeneration: 2, reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is not operational.' };
  const readySuspended: Seen = { type: 'Ready', status: 'False', observedGeneration: 2, reason: 'SandboxSuspended', message: 'Sandbox is suspended' };

  test.describe(`Agent Sandbox ${version}`, () => {
    test('suspend and resume through v1alpha1 replicas reach the controller as operatingMode', async ({ world }) => {
      world.createSandbox(NAME, {}, 'v1alpha1');
      const first = await world.livePod(NAME);
      world.run(NAME, { bind: true });
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual(readyTrue(1));

      world.suspend(NAME, 'v1alpha1');
      expect((world.sandbox(NAME, 'v1beta1').spec as { operatingMode: string }).operatingMode).toBe('Suspended');
      await expect.poll(() => !!world.get('pods', NAME)?.metadata.deletionTimestamp).toBe(true);
      world.finalize(NAME);
      const expected = version === 'v0.5.4' ? [terminated, readySuspended] : [readySuspended, terminated];
      await expect.poll(() => world.conditions(NAME)).toEqual(expected);
      // v1alpha1 readers see the conditions too (the webhook copies them).
      expect((world.sandbox(NAME, 'v1alpha1').status as { conditions: unknown[] }).conditions).toHaveLength(2);
      expect((world.sandbox(NAME, 'v1alpha1').spec as { replicas: number }).replicas).toBe(0);

      world.resume(NAME, 'v1alpha1');
      expect((world.sandbox(NAME, 'v1beta1').spec as { operatingMode: string }).operatingMode).toBe('Running');
      await world.livePod(NAME, first.metadata.uid);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual(readyTrue(3));
    });

    test('written through v1alpha1, suspended through v1beta1: a later v1alpha1 write (label, PUT) does not resume it', async ({ world }) => {
      world.createSandbox(NAME, {}, 'v1alpha1');
      await world.livePod(NAME);
      world.suspend(NAME, 'v1beta1');
      await expect.poll(() => world.get('pods', NAME)).toBeUndefined();
      expect((world.sandbox(NAME, 'v1alpha1').spec as { replicas: number }).replicas).toBe(0);
      world.api.patch(world.sandboxes('v1alpha1'), NAME, 'merge', { metadata: { labels: { touched: 'yes' } } });
      world.api.update(world.sandboxes('v1alpha1'), NAME, world.sandbox(NAME, 'v1alpha1'));
      expect((world.sandbox(NAME, 'v1beta1').spec as { operatingMode: string }).operatingMode).toBe('Suspended');
      await world.installation.controller.settled();
      expect(world.get('pods', NAME)).toBeUndefined();
    });

    test('suspending an unbound Pod: it goes at once', async ({ world }) => {
      world.createSandbox(NAME);
      await world.livePod(NAME);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual(readyTrue(1));
      world.suspend(NAME);
      await expect.poll(() => world.get('pods', NAME)).toBeUndefined();
      const expected = version === 'v0.5.4' ? [terminated, readySuspended] : [readySuspended, terminated];
      await expect.poll(() => world.conditions(NAME)).toEqual(expected);
    });
  });
}
