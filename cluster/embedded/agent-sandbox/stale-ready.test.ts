/**
 * Why realism is on by default (issue 13): a driver that trusts a stale Ready passes against an
 * instant controller and fails against a real one. Worst at v0.4.6, where Ready is True both
 * before and after a suspend: a driver that patches replicas 0 and then waits for Ready=True
 * without looking at observedGeneration reads the old condition and declares "stopped" while
 * the workload Pod has not even been asked to go. The test driver here is a few lines over
 * @kubernetes/client-node, not a driver of the project; the timeline is the watched events of
 * the Sandbox and its Pod in commit order, the verdict whether the Pod's deletion came before the
 * driver declared the stop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from '../types.ts';
import type { Condition } from './conditions.ts';
import type { RealismOptions } from './realism.ts';
import { SandboxWorld } from './test-kit.ts';

const NAME = 'stale-ready';
const NAMESPACE = 'default';
const POLL_MS = 50;
/** Realism with a cache lag well above the driver's poll interval, so the stale read is certain for any seed. */
const REALISM: RealismOptions = { enabled: true, seed: 20260917, cacheLagMs: [150, 300] };

interface Entry {
  rv: number;
  what: string;
}

interface Run {
  /** What the driver believed when it declared the stop. */
  readyAtDeclaration: { status: string; observedGeneration?: number; generation?: number };
  /** The Pod's state at that moment. */
  podAtDeclaration: 'running' | 'deleting' | 'gone';
  verdict: 'pass' | 'FAIL: declared stopped before the workload Pod was asked to go';
  timeline: string[];
}

type Trust = 'any Ready=True' | 'Ready=True at the current generation';

function ready(cr: KubeObject): Condition | undefined {
  return ((cr.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
}

/** The test driver's stop: suspend, then poll until Ready=True (trusting it as `trust` says). */
async function stop(objects: k8s.KubernetesObjectApi, trust: Trust): Promise<KubeObject> {
  const ref = { apiVersion: 'agents.x-k8s.io/v1alpha1', kind: 'Sandbox', metadata: { name: NAME, namespace: NAMESPACE } };
  await objects.patch({ ...ref, spec: { replicas: 0 } }, undefined, undefined, 'stale-ready-test', undefined, k8s.PatchStrategy.MergePatch);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const cr = (await objects.read(ref)) as KubeObject;
    const condition = ready(cr);
    const current = trust === 'any Ready=True' || condition?.observedGeneration === cr.metadata.generation;
    if (condition?.status === 'True' && current) return cr;
  }
  throw new Error('stop: Ready=True never seen within 10 s');
}

async function play(realism: RealismOptions, trust: Trust): Promise<Run> {
  const world = await SandboxWorld.start('v0.4.6', realism);
  const timeline: Entry[] = [];
  const unwatch: (() => void)[] = [];
  try {
    const from = String(world.cluster.store.currentRevision());
    const record = (kind: string) => (type: string, object: KubeObject) => {
      if (object.metadata.name !== NAME) return;
      const detail =
        kind === 'Pod'
          ? object.metadata.deletionTimestamp ? 'deleting' : ((object.status as { phase?: string } | undefined)?.phase ?? 'Pending')
          : `replicas ${(object.spec as { replicas?: number }).replicas} gen ${object.metadata.generation} Ready ${ready(object)?.status ?? '-'}@${ready(object)?.observedGeneration ?? '-'}`;
      timeline.push({ rv: Number(object.metadata.resourceVersion), what: `${kind} ${type} ${detail}` });
    };
    unwatch.push(world.api.watch(world.sandboxes(), { resourceVersion: from }, record('Sandbox')));
    unwatch.push(world.api.watch(world.target('pods'), { resourceVersion: from }, record('Pod')));

    world.createSandbox(NAME);
    await world.livePod(NAME);
    world.run(NAME, { bind: true });
    await expect.poll(() => ready(world.sandbox(NAME))?.status, { timeout: 10_000 }).toBe('True');

    const kc = new k8s.KubeConfig();
    kc.loadFromString(world.cluster.kubeconfig());
    const declared = await stop(k8s.KubernetesObjectApi.makeApiClient(kc), trust);
    const declaredAt = world.cluster.store.currentRevision();
    timeline.push({ rv: declaredAt + 0.5, what: 'DRIVER declares the Sandbox stopped' });
    const pod = world.get('pods', NAME);
    await world.installation.controller.settled();
    const condition = ready(declared)!;
    const deletion = timeline.find((e) => e.what === 'Pod MODIFIED deleting' || e.what.startsWith('Pod DELETED'));
    return {
      readyAtDeclaration: { status: condition.status, observedGeneration: condition.observedGeneration, generation: declared.metadata.generation },
      podAtDeclaration: !pod ? 'gone' : pod.metadata.deletionTimestamp ? 'deleting' : 'running',
      verdict: deletion && deletion.rv < declaredAt + 0.5 ? 'pass' : 'FAIL: declared stopped before the workload Pod was asked to go',
      timeline: timeline.sort((a, b) => a.rv - b.rv).map((e) => e.what),
    };
  } finally {
    for (const stopWatching of unwatch) stopWatching();
    await world.stop();
  }
}

test('a driver trusting any Ready=True passes on an instant controller and fails under realism, the same way for the same seed', async () => {
  const instant = await play({ enabled: false }, 'any Ready=True');
  expect(instant.verdict, instant.timeline.join('\n')).toBe('pass');
  expect(instant.readyAtDeclaration).toEqual({ status: 'True', observedGeneration: 2, generation: 2 });

  const first = await play(REALISM, 'any Ready=True');
  const again = await play(REALISM, 'any Ready=True');
  for (const run of [first, again]) {
    expect(run.verdict, run.timeline.join('\n')).toBe('FAIL: declared stopped before the workload Pod was asked to go');
    // The Ready it trusted was the one from before the suspend.
    expect(run.readyAtDeclaration).toEqual({ status: 'True', observedGeneration: 1, generation: 2 });
    expect(run.podAtDeclaration).toBe('running');
    // In the timeline the declaration sits before the Pod's deletion.
    expect(run.timeline.indexOf('DRIVER declares the Sandbox stopped')).toBeLessThan(run.timeline.indexOf('Pod MODIFIED deleting'));
  }
  expect(again.readyAtDeclaration).toEqual(first.readyAtDeclaration);
  await test.info().attach('timeline-instant.txt', { body: instant.timeline.join('\n') });
  await test.info().attach(`timeline-realism-seed-${REALISM.seed}.txt`, { body: first.timeline.join('\n') });
});

test('the same driver checking observedGeneration passes under realism', async () => {
  const careful = await play(REALISM, 'Ready=True at the current generation');
  expect(careful.verdict, careful.timeline.join('\n')).toBe('pass');
  expect(careful.readyAtDeclaration).toEqual({ status: 'True', observedGeneration: 2, generation: 2 });
});
