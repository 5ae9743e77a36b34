/**
 * What happens to the Pod outside the suspend/resume path: deleted by someone else, finished,
 * or a same-named Pod the Sandbox does not control.
 */
import { expect } from '@playwright/test';
import { AGENT_SANDBOX_VERSIONS } from './profiles.ts';
import { dataClaim, readyTrue, sandboxTest, type Seen } from './test-kit.ts';

const NAME = 'my-sandbox';

for (const version of AGENT_SANDBOX_VERSIONS) {
  const test = sandboxTest(version);
  const notSuspended = (generation: number): Seen[] =>
    version === 'v0.5.4' ? [{ type: 'Suspended', status: 'False', observedGeneration: generation, reason: 'NotSuspended', message: 'Sandbox is not suspended' }] : [];

  test.describe(`Agent Sandbox ${version}`, () => {
    test('a Pod deleted externally is recreated with the same name, reusing the PVC', async ({ world }) => {
      world.createSandbox(NAME, { volumeClaimTemplates: [dataClaim] });
      const first = await world.livePod(NAME);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME)).toEqual([...notSuspended(1), readyTrue(1)]);
      const pvcUid = world.get('persistentvolumeclaims', `data-${NAME}`)!.metadata.uid;

      // Unbound: the Pod goes at once.
      world.api.delete(world.target('pods'), NAME);
      const second = await world.livePod(NAME, first.metadata.uid);
      expect(second.spec).toMatchObject({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-${NAME}` } }] });
      expect(world.get('persistentvolumeclaims', `data-${NAME}`)!.metadata.uid).toBe(pvcUid);
      world.run(NAME, { bind: true });
      await expect.poll(() => world.conditions(NAME)).toEqual([...notSuspended(1), readyTrue(1)]);
      await expect.poll(() => world.sandbox(NAME).metadata.annotations?.['agents.x-k8s.io/pod-name']).toBe(NAME);

      // Bound: the Pod terminates gracefully; it is reported as it is and replaced only once gone.
      world.api.delete(world.target('pods'), NAME);
      await expect.poll(() => !!world.get('pods', NAME)?.metadata.deletionTimestamp).toBe(true);
      expect(world.api.list(world.target('pods')).items).toHaveLength(1);
      world.finalize(NAME);
      const third = await world.livePod(NAME, second.metadata.uid);
      expect(third.metadata.uid).not.toBe(first.metadata.uid);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME)).toEqual([...notSuspended(1), readyTrue(1)]);
    });

    test('a terminal Pod is kept, not recreated, and marked Finished; suspend/resume brings a fresh Pod', async ({ world }) => {
      world.createSandbox(NAME);
      const first = await world.livePod(NAME);
      world.run(NAME, { bind: true });
      await expect.poll(() => world.conditions(NAME)).toEqual([...notSuspended(1), readyTrue(1)]);

      world.finish(NAME, 'Failed');
      const failedReady: Seen =
        version === 'v0.5.4'
          ? { type: 'Ready', status: 'False', observedGeneration: 1, reason: 'PodFailed', message: 'Pod failed' }
          : { type: 'Ready', status: 'False', observedGeneration: 1, reason: 'DependenciesNotReady', message: 'Pod exists with phase: Failed' };
      const finished: Seen = { type: 'Finished', status: 'True', observedGeneration: 1, reason: 'PodFailed', message: 'Pod failed' };
      await expect.poll(() => world.conditions(NAME)).toEqual([...notSuspended(1), failedReady, finished]);
      // Another look (any event) leaves the terminal Pod in place.
      const seen = world.installation.controller.reconcileCount;
      world.api.patch(world.sandboxes(), NAME, 'merge', { metadata: { labels: { poke: '1' } } });
      await expect.poll(() => world.installation.controller.reconcileCount).toBeGreaterThan(seen);
      await world.installation.controller.settled();
      const pod = world.get('pods', NAME)!;
      expect([pod.metadata.uid, (pod.status as { phase: string }).phase, pod.metadata.deletionTimestamp]).toEqual([first.metadata.uid, 'Failed', undefined]);

      world.suspend(NAME);
      // A terminal Pod has nothing left to stop: it goes at once even though it is bound.
      await expect.poll(() => world.get('pods', NAME)).toBeUndefined();
      world.resume(NAME);
      await world.livePod(NAME, first.metadata.uid);
      world.run(NAME);
      await expect.poll(() => world.conditions(NAME).filter((c) => c.type !== 'Suspended')).toEqual([readyTrue(3)]);
    });

    test('a same-named Pod controlled by something else is never deleted on suspend', async ({ world }) => {
      // A live owner, so the garbage collector leaves the Pod alone.
      const owner = world.api.create(world.api.target('v1', 'configmaps', 'default'), { metadata: { name: 'other-owner' } }).object;
      world.api.create(world.target('pods'), {
        metadata: {
          name: NAME,
          labels: { 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other-owner', uid: owner.metadata.uid!, controller: true }],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      world.createSandbox(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')?.reason).toBe('ReconcilerError');
      expect(world.conditions(NAME).find((c) => c.type === 'Ready')?.message).toBe(
        `Error seen: pod "my-sandbox" is owned by ConfigMap/other-owner (UID: ${owner.metadata.uid}), not by sandbox "my-sandbox"`,
      );

      world.suspend(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')?.observedGeneration).toBe(2);
      const pod = world.get('pods', NAME)!;
      expect(pod.metadata.deletionTimestamp).toBeUndefined();
      expect(pod.metadata.ownerReferences?.[0].name).toBe('other-owner');
    });
  });
}

for (const version of ['v0.5.0', 'v0.5.4'] as const) {
  const test = sandboxTest(version);
  test.describe(`Agent Sandbox ${version}`, () => {
    test('an unowned same-named Pod without the adoptable or hash label is not adopted and not deleted on suspend', async ({ world }) => {
      world.api.create(world.target('pods'), { metadata: { name: NAME, labels: { app: 'mine' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      world.createSandbox(NAME);
      await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')).toEqual({
        type: 'Ready',
        status: 'False',
        observedGeneration: 1,
        reason: 'ReconcilerError',
        message:
          'Error seen: cannot adopt unowned pod "my-sandbox": missing required pool authorization label ("agents.x-k8s.io/adoptable") or sandbox tracking label ("agents.x-k8s.io/sandbox-name-hash")',
      });
      expect(world.get('pods', NAME)!.metadata.ownerReferences).toBeUndefined();

      world.suspend(NAME);
      const expected: Seen[] =
        version === 'v0.5.4'
          ? [
              { type: 'Suspended', status: 'False', observedGeneration: 2, reason: 'PodNotOwned', message: 'Refused to delete pod because it is not owned by this sandbox' },
              { type: 'Ready', status: 'False', observedGeneration: 2, reason: 'SandboxSuspended', message: 'Sandbox is suspending' },
            ]
          : [
              { type: 'Ready', status: 'False', observedGeneration: 2, reason: 'SandboxSuspended', message: 'Sandbox is suspended' },
              { type: 'Suspended', status: 'True', observedGeneration: 2, reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is not operational.' },
            ];
      await expect.poll(() => world.conditions(NAME)).toEqual(expected);
      expect(world.get('pods', NAME)!.metadata.deletionTimestamp).toBeUndefined();
    });

    test('an unowned Pod labelled adoptable=true is adopted', async ({ world }) => {
      world.api.create(world.target('pods'), {
        metadata: { name: NAME, labels: { 'agents.x-k8s.io/adoptable': 'true' } },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      const sandbox = world.createSandbox(NAME);
      await expect.poll(() => world.get('pods', NAME)!.metadata.ownerReferences?.map((r) => r.uid)).toEqual([sandbox.metadata.uid]);
      expect(world.get('pods', NAME)!.metadata.labels?.['agents.x-k8s.io/sandbox-name-hash']).toBe('374de8f5');
      await expect.poll(() => world.sandbox(NAME).metadata.annotations?.['agents.x-k8s.io/pod-name']).toBe(NAME);
    });
  });
}

sandboxTest('v0.4.6')('Agent Sandbox v0.4.6 adopts any unowned same-named Pod, and then deletes it on suspend', async ({ world }) => {
  world.api.create(world.target('pods'), { metadata: { name: NAME }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  const sandbox = world.createSandbox(NAME);
  await expect.poll(() => world.get('pods', NAME)!.metadata.ownerReferences?.map((r) => r.uid)).toEqual([sandbox.metadata.uid]);
  world.suspend(NAME);
  await expect.poll(() => world.get('pods', NAME)).toBeUndefined();
});

sandboxTest('v0.4.6')('Agent Sandbox v0.4.6 loses the adoption of a Pod whose metadata already matches (written only with a metadata change)', async ({ world }) => {
  world.api.create(world.target('pods'), {
    metadata: { name: NAME, labels: { app: 'agent', 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' }, annotations: { 'agents.x-k8s.io/propagated-labels': 'app' } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });
  world.createSandbox(NAME);
  // The controller tracks the Pod (annotation set) without ever persisting its ownerReference ...
  await expect.poll(() => world.sandbox(NAME).metadata.annotations?.['agents.x-k8s.io/pod-name']).toBe(NAME);
  expect(world.get('pods', NAME)!.metadata.ownerReferences).toBeUndefined();
  // ... so a suspend finds it unowned and leaves it.
  world.suspend(NAME);
  await expect.poll(() => world.conditions(NAME).find((c) => c.type === 'Ready')?.observedGeneration).toBe(2);
  expect(world.get('pods', NAME)!.metadata.deletionTimestamp).toBeUndefined();
});
