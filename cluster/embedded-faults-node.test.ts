/**
 * The node fault hooks through the admin endpoint, with the harness's client
 * (cluster/embedded-faults-client.ts) and client-node, as a harness process would use them:
 * a container that ignores SIGTERM is SIGKILLed at the end of its grace period (137), one that
 * takes SIGTERM late exits only once the delay is over or the fault healed. Order, not time: the
 * container's exit is placed by the revision of the status write that reports it.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { addControllerFault, addNodeFault, EmbeddedFaultError, listNodeFaults, type NodeFaultSpec } from './embedded-faults-client.ts';
import { EmbeddedCluster } from './embedded/cluster.ts';
import type { KubeObject } from './embedded/types.ts';

let cluster: EmbeddedCluster;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let namespaces = 0;

test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start({ node: { backoffMs: 100 } });
  kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
});
test.afterAll(async () => {
  await cluster?.stop();
});

type Terminated = { exitCode: number; signal?: number };
type ContainerStatuses = { containerStatuses?: { state: { terminated?: Terminated } }[] };

/** A namespace of its own whose Pods' container exits are recorded with the revision that reported them. */
async function namespace(): Promise<{ ns: string; exits: Map<string, { exitCode: number; revision: number }>; stop: () => void }> {
  const ns = `faults-${++namespaces}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const exits = new Map<string, { exitCode: number; revision: number }>();
  const stop = cluster.api.watch(cluster.api.target('v1', 'pods', ns), { resourceVersion: String(cluster.store.currentRevision()) }, (_type, pod: KubeObject) => {
    const terminated = (pod.status as ContainerStatuses | undefined)?.containerStatuses?.[0]?.state.terminated;
    if (terminated && !exits.has(pod.metadata.name!)) exits.set(pod.metadata.name!, { exitCode: terminated.exitCode, revision: Number(pod.metadata.resourceVersion) });
  });
  return { ns, exits, stop };
}

/** A Pod whose one container exits 0 on SIGTERM; resolves once its trap is set (it says `armed`). */
async function startPod(ns: string, name: string): Promise<void> {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "echo got TERM; exit 0" TERM; echo armed; sleep 1000 & wait'] }] },
    },
  });
  await expect.poll(() => podLog(ns, name), { message: `Pod ${ns}/${name}: its container has set its SIGTERM trap`, timeout: 20_000 }).toContain('armed');
}

async function podLog(ns: string, name: string): Promise<string> {
  try {
    return await core.readNamespacedPodLog({ namespace: ns, name, container: 'main' });
  } catch {
    return ''; // not started yet
  }
}

async function exitOf(exits: Map<string, { exitCode: number; revision: number }>, name: string, stage: string) {
  await expect.poll(() => exits.has(name), { message: `${name}: ${stage}`, timeout: 20_000 }).toBe(true);
  return exits.get(name)!;
}

test('ignoreSigterm, named before the Pod exists: SIGKILLed at the end of its grace period (137), while a Pod without the fault exits 0 on SIGTERM', async () => {
  const { ns, exits, stop } = await namespace();
  try {
    const fault = await addNodeFault(kc, { namespace: ns, pod: 'stubborn', stop: { ignoreSigterm: true } });
    await Promise.all([startPod(ns, 'stubborn'), startPod(ns, 'obliging')]);
    await Promise.all(['stubborn', 'obliging'].map((name) => core.deleteNamespacedPod({ namespace: ns, name, gracePeriodSeconds: 2 })));
    expect((await exitOf(exits, 'stubborn', 'its container is killed at the end of the grace period')).exitCode).toBe(137);
    expect((await exitOf(exits, 'obliging', 'its container exits on SIGTERM')).exitCode).toBe(0);
    expect(await listNodeFaults(kc)).toEqual([{ id: fault.id, namespace: ns, pod: 'stubborn', stop: { ignoreSigterm: true }, applied: 1 }]);
    await fault.heal();
    expect(await listNodeFaults(kc)).toEqual([]);
  } finally {
    stop();
  }
});

test('delayMs: the SIGTERM is held until the fault is healed, then the container exits 0', async () => {
  const { ns, exits, stop } = await namespace();
  try {
    const fault = await addNodeFault(kc, { namespace: ns, pod: 'slow', stop: { delayMs: 600_000 } });
    await startPod(ns, 'slow');
    await core.deleteNamespacedPod({ namespace: ns, name: 'slow', gracePeriodSeconds: 300 });
    await expect.poll(async () => (await listNodeFaults(kc))[0]?.applied, { message: 'the kubelet has sent SIGTERM and the fault holds it', timeout: 20_000 }).toBe(1);
    expect(exits.has('slow')).toBe(false);
    expect(await podLog(ns, 'slow')).not.toContain('got TERM');
    const healedAt = cluster.store.currentRevision();
    await fault.heal();
    const exit = await exitOf(exits, 'slow', 'its container exits once the held SIGTERM arrives');
    expect(exit.exitCode).toBe(0);
    expect(exit.revision).toBeGreaterThan(healedAt);
  } finally {
    stop();
  }
});

test('delayMs shorter than the grace period: the container takes SIGTERM late and exits 0 with the fault still in force', async () => {
  const { ns, exits, stop } = await namespace();
  try {
    const fault = await addNodeFault(kc, { namespace: ns, pod: 'late', stop: { delayMs: 200 } });
    await startPod(ns, 'late');
    await core.deleteNamespacedPod({ namespace: ns, name: 'late', gracePeriodSeconds: 60 });
    expect((await exitOf(exits, 'late', 'its container exits once the delayed SIGTERM arrives')).exitCode).toBe(0);
    expect(await listNodeFaults(kc)).toEqual([{ id: fault.id, namespace: ns, pod: 'late', stop: { delayMs: 200 }, applied: 1 }]);
    await fault.heal();
  } finally {
    stop();
  }
});

test('delayMs longer than the grace period: the SIGKILL at its end is not held back (137)', async () => {
  const { ns, exits, stop } = await namespace();
  try {
    const fault = await addNodeFault(kc, { namespace: ns, pod: 'too-slow', stop: { delayMs: 600_000 } });
    await startPod(ns, 'too-slow');
    await core.deleteNamespacedPod({ namespace: ns, name: 'too-slow', gracePeriodSeconds: 1 });
    expect((await exitOf(exits, 'too-slow', 'its container is killed at the end of the grace period')).exitCode).toBe(137);
    await fault.heal();
  } finally {
    stop();
  }
});

test('bad input is refused with 400 naming the field and what to send; a second fault for one Pod with 409', async () => {
  const refusal = async (spec: unknown) => {
    try {
      await addNodeFault(kc, spec as NodeFaultSpec);
    } catch (error) {
      if (error instanceof EmbeddedFaultError) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error(`expected ${JSON.stringify(spec)} to be refused`);
  };
  const send = 'send {"namespace": "ns", "pod": "name", "stop": {"delayMs": D}}';
  expect(await refusal({ pod: 'p', stop: { delayMs: 1 } })).toEqual({ code: 400, message: expect.stringContaining('node fault: "namespace" is required') });
  expect(await refusal({ namespace: 'n', stop: { delayMs: 1 } })).toEqual({ code: 400, message: expect.stringContaining('node fault: "pod" is required') });
  expect(await refusal({ namespace: 'n', pod: 'p' })).toEqual({ code: 400, message: expect.stringContaining('node fault stop must be a JSON object, got undefined') });
  expect(await refusal({ namespace: 'n', pod: 'p', stop: {} })).toEqual({ code: 400, message: expect.stringContaining('stop: exactly one of "delayMs" or "ignoreSigterm" is needed, got neither') });
  expect(await refusal({ namespace: 'n', pod: 'p', stop: { delayMs: 1, ignoreSigterm: true } })).toEqual({ code: 400, message: expect.stringContaining('got both "delayMs" and "ignoreSigterm"') });
  expect(await refusal({ namespace: 'n', pod: 'p', stop: { delayMs: -5 } })).toEqual({ code: 400, message: expect.stringContaining('"stop.delayMs" must be a whole number from 0 to 3600000, got -5') });
  expect(await refusal({ namespace: 'n', pod: 'p', stop: { ignoreSigterm: false } })).toEqual({ code: 400, message: expect.stringContaining('"stop.ignoreSigterm" can only be true, got false') });
  expect(await refusal({ namespace: 'n', pod: 'p', container: 'main', stop: { delayMs: 1 } })).toEqual({ code: 400, message: expect.stringContaining('unknown field "container"') });
  expect((await refusal({ namespace: 'n', pod: 'p', stop: { delayMs: -5 } })).message).toContain(send);

  const first = await addNodeFault(kc, { namespace: 'n', pod: 'p', stop: { delayMs: 1 } });
  expect(await refusal({ namespace: 'n', pod: 'p', stop: { ignoreSigterm: true } })).toEqual({ code: 409, message: expect.stringContaining(`Pod n/p already has node fault "${first.id}"; heal it first`) });
  await first.heal();
  await first.heal(); // a second heal does nothing
  expect(await listNodeFaults(kc)).toEqual([]);
});

test('controller faults on a cluster without the Agent Sandbox controller: 404 saying how to start one', async () => {
  await expect(addControllerFault(kc, { statusConflicts: 1 })).rejects.toThrow(/404 controller-faults: no Agent Sandbox controller runs in this embedded cluster/);
});
