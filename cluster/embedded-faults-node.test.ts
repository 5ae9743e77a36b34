/**
 * The node fault hooks through the admin endpoint, with the harness's client
 * (cluster/embedded-faults-client.ts) and client-node, as a harness process would use them:
 * a container that ignores SIGTERM is SIGKILLed at the end of its grace period (137), one that
 * takes SIGTERM late exits only once the delay is over or the fault healed. Order, not time: the
 * container's exit is placed by the revision of the status write that reports it.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { addControllerFault, addNodeFault, listNodeFaults, type NodeFaultSpec } from './embedded-faults-client.ts';
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

type Exit = { exitCode: number; revision: number };

/** Each test's own namespace, and its Pods' container exits with the revision of the status write that reported them. */
let ns = '';
let exits = new Map<string, Exit>();
let stopWatch = () => {};

test.beforeEach(async () => {
  ns = `faults-${++namespaces}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const seen = (exits = new Map());
  stopWatch = cluster.api.watch(cluster.api.target('v1', 'pods', ns), { resourceVersion: String(cluster.store.currentRevision()) }, (_type, pod: KubeObject) => {
    const terminated = (pod.status as ContainerStatuses | undefined)?.containerStatuses?.[0]?.state.terminated;
    if (terminated && !seen.has(pod.metadata.name!)) seen.set(pod.metadata.name!, { exitCode: terminated.exitCode, revision: Number(pod.metadata.resourceVersion) });
  });
});
test.afterEach(() => stopWatch());

/** A Pod whose one container exits 0 on SIGTERM; resolves once its trap is set (it says `armed`). */
async function startPod(name: string): Promise<void> {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "echo got TERM; exit 0" TERM; echo armed; sleep 1000 & wait'] }] },
    },
  });
  await expect.poll(() => podLog(name), { message: `Pod ${ns}/${name}: its container has set its SIGTERM trap`, timeout: 20_000 }).toContain('armed');
}

async function podLog(name: string): Promise<string> {
  try {
    return await core.readNamespacedPodLog({ namespace: ns, name, container: 'main' });
  } catch {
    return ''; // not started yet
  }
}

async function exitOf(name: string, stage: string): Promise<Exit> {
  await expect.poll(() => exits.has(name), { message: `${name}: ${stage}`, timeout: 20_000 }).toBe(true);
  return exits.get(name)!;
}

test('ignoreSigterm, named before the Pod exists: SIGKILLed at the end of its grace period (137), while a Pod without the fault exits 0 on SIGTERM', async () => {
  const fault = await addNodeFault(kc, { namespace: ns, pod: 'stubborn', stop: { ignoreSigterm: true } });
  await Promise.all([startPod('stubborn'), startPod('obliging')]);
  await Promise.all(['stubborn', 'obliging'].map((name) => core.deleteNamespacedPod({ namespace: ns, name, gracePeriodSeconds: 2 })));
  expect((await exitOf('stubborn', 'its container is killed at the end of the grace period')).exitCode).toBe(137);
  expect((await exitOf('obliging', 'its container exits on SIGTERM')).exitCode).toBe(0);
  expect(await listNodeFaults(kc)).toEqual([{ id: fault.id, namespace: ns, pod: 'stubborn', stop: { ignoreSigterm: true }, applied: 1 }]);
  await fault.heal();
  expect(await listNodeFaults(kc)).toEqual([]);
});

test('delayMs: the SIGTERM is held until the fault is healed, then the container exits 0', async () => {
  const fault = await addNodeFault(kc, { namespace: ns, pod: 'slow', stop: { delayMs: 600_000 } });
  await startPod('slow');
  await core.deleteNamespacedPod({ namespace: ns, name: 'slow', gracePeriodSeconds: 300 });
  await expect.poll(async () => (await listNodeFaults(kc))[0]?.applied, { message: 'the kubelet has sent SIGTERM and the fault holds it', timeout: 20_000 }).toBe(1);
  expect(exits.has('slow')).toBe(false);
  expect(await podLog('slow')).not.toContain('got TERM');
  const healedAt = cluster.store.currentRevision();
  await fault.heal();
  const exit = await exitOf('slow', 'its container exits once the held SIGTERM arrives');
  expect(exit.exitCode).toBe(0);
  expect(exit.revision).toBeGreaterThan(healedAt);
});

test('delayMs shorter than the grace period: the container takes SIGTERM late and exits 0 with the fault still in force', async () => {
  const fault = await addNodeFault(kc, { namespace: ns, pod: 'late', stop: { delayMs: 200 } });
  await startPod('late');
  await core.deleteNamespacedPod({ namespace: ns, name: 'late', gracePeriodSeconds: 60 });
  expect((await exitOf('late', 'its container exits once the delayed SIGTERM arrives')).exitCode).toBe(0);
  expect(await listNodeFaults(kc)).toEqual([{ id: fault.id, namespace: ns, pod: 'late', stop: { delayMs: 200 }, applied: 1 }]);
  await fault.heal();
});

test('delayMs longer than the grace period: the SIGKILL at its end is not held back (137)', async () => {
  const fault = await addNodeFault(kc, { namespace: ns, pod: 'too-slow', stop: { delayMs: 600_000 } });
  await startPod('too-slow');
  await core.deleteNamespacedPod({ namespace: ns, name: 'too-slow', gracePeriodSeconds: 1 });
  expect((await exitOf('too-slow', 'its container is killed at the end of the grace period')).exitCode).toBe(137);
  await fault.heal();
});

test('bad input is refused with 400 naming the field and what to send; a second fault for one Pod with 409', async () => {
  const refused = (spec: unknown, code: number, message: string) =>
    expect(addNodeFault(kc, spec as NodeFaultSpec)).rejects.toMatchObject({ name: 'EmbeddedFaultError', code, message: expect.stringContaining(message) });
  await refused({ pod: 'p', stop: { delayMs: 1 } }, 400, 'node fault: "namespace" is required');
  await refused({ namespace: 'n', stop: { delayMs: 1 } }, 400, 'node fault: "pod" is required');
  await refused({ namespace: 'n', pod: 'p' }, 400, 'node fault: "stop" is required, a JSON object');
  await refused({ namespace: 'n', pod: 'p', stop: 5 }, 400, 'node fault: "stop" must be a JSON object, got 5');
  await refused({ namespace: 'n', pod: 'p', stop: { delayMs: 1, signal: 'TERM' } }, 400, 'node fault: unknown field "stop.signal"');
  await refused({ namespace: 'n', pod: 'p', stop: {} }, 400, 'stop: exactly one of "delayMs" or "ignoreSigterm" is needed, got neither');
  await refused({ namespace: 'n', pod: 'p', stop: { delayMs: 1, ignoreSigterm: true } }, 400, 'got both "delayMs" and "ignoreSigterm"');
  await refused({ namespace: 'n', pod: 'p', stop: { delayMs: -5 } }, 400, '"stop.delayMs" must be a whole number from 0 to 3600000, got -5; send {"namespace": "ns", "pod": "name", "stop": {"delayMs": D}}');
  await refused({ namespace: 'n', pod: 'p', stop: { ignoreSigterm: false } }, 400, '"stop.ignoreSigterm" can only be true, got false');
  await refused({ namespace: 'n', pod: 'p', container: 'main', stop: { delayMs: 1 } }, 400, 'unknown field "container"');

  const first = await addNodeFault(kc, { namespace: 'n', pod: 'p', stop: { delayMs: 1 } });
  await refused({ namespace: 'n', pod: 'p', stop: { ignoreSigterm: true } }, 409, `Pod n/p already has node fault "${first.id}"; heal it first`);
  await first.heal();
  await first.heal(); // a second heal does nothing
  expect(await listNodeFaults(kc)).toEqual([]);
});

test('controller faults on a cluster without the Agent Sandbox controller: 404 saying how to start one', async () => {
  await expect(addControllerFault(kc, { statusConflicts: 1 })).rejects.toThrow(/404 controller-faults: no Agent Sandbox controller runs in this embedded cluster/);
});
