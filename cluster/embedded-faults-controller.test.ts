/**
 * The controller fault hooks through the admin endpoint, with the harness's client
 * (cluster/embedded-faults-client.ts) and client-node, as a harness process would use them.
 * Realism is off, so without a spike every change reaches the controller at once: a change the
 * spike reports held is held by the spike alone, and the order of the controller's reaction
 * against the heal says what the spike did.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { addControllerFault, listControllerFaults, type ControllerFaultSpec } from './embedded-faults-client.ts';
import { EmbeddedCluster } from './embedded/cluster.ts';
import type { Condition } from './embedded/agent-sandbox/conditions.ts';

const NS = 'default';

let cluster: EmbeddedCluster;
let kc: k8s.KubeConfig;
let custom: k8s.CustomObjectsApi;
let core: k8s.CoreV1Api;

test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start({ agentSandbox: 'v0.5.0', agentSandboxRealism: { enabled: false }, node: { backoffMs: 100 } });
  kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
test.afterAll(async () => {
  await cluster?.stop();
});

async function createSandbox(name: string): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: 'agents.x-k8s.io',
    version: 'v1beta1',
    namespace: NS,
    plural: 'sandboxes',
    body: {
      apiVersion: 'agents.x-k8s.io/v1beta1',
      kind: 'Sandbox',
      metadata: { name },
      spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'busybox', command: ['sh', '-c', 'trap "exit 0" TERM; sleep 1000 & wait'] }] } } },
    },
  });
}

async function readyStatus(name: string): Promise<string | undefined> {
  const sandbox = (await custom.getNamespacedCustomObject({ group: 'agents.x-k8s.io', version: 'v1beta1', namespace: NS, plural: 'sandboxes', name })) as { status?: { conditions?: Condition[] } };
  return sandbox.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

async function podExists(name: string): Promise<boolean> {
  try {
    await core.readNamespacedPod({ namespace: NS, name });
    return true;
  } catch (error) {
    if (error instanceof k8s.ApiException && error.code === 404) return false;
    throw error;
  }
}

test('statusConflicts 2: the controller meets both conflicts, is requeued, and still brings the Sandbox to Ready', async () => {
  const fault = await addControllerFault(kc, { statusConflicts: 2 });
  expect(await listControllerFaults(kc)).toEqual([{ id: fault.id, statusConflicts: 2, applied: 0 }]);
  await createSandbox('conflicted');
  await expect.poll(() => readyStatus('conflicted'), { message: 'the Sandbox becomes Ready despite the conflicts', timeout: 20_000 }).toBe('True');
  expect(await listControllerFaults(kc)).toEqual([{ id: fault.id, statusConflicts: 2, applied: 2 }]);
  await fault.heal();
  expect(await listControllerFaults(kc)).toEqual([]);
});

test('cacheLagMs, healed: the controller sees a new Sandbox, and makes its Pod, only after the heal', async () => {
  const spike = await addControllerFault(kc, { cacheLagMs: 600_000 });
  await createSandbox('lagged');
  const held = async () => {
    const fault = (await listControllerFaults(kc)).find((f) => f.id === spike.id);
    return fault && 'heldChanges' in fault ? fault.heldChanges : undefined;
  };
  await expect.poll(held, { message: 'the spike holds the new Sandbox back from the cache', timeout: 10_000 }).toBeGreaterThan(0);
  expect(await podExists('lagged')).toBe(false);
  await spike.heal();
  await expect.poll(() => podExists('lagged'), { message: 'the controller makes the Pod once the spike is healed', timeout: 10_000 }).toBe(true);
});

test('cacheLagMs, not healed: each change still reaches the controller once its lag has elapsed', async () => {
  const spike = await addControllerFault(kc, { cacheLagMs: 300 });
  await createSandbox('late');
  await expect.poll(() => podExists('late'), { message: 'the controller makes the Pod after the lag, the spike still in force', timeout: 10_000 }).toBe(true);
  expect((await listControllerFaults(kc)).map((f) => f.id)).toEqual([spike.id]);
  await spike.heal();
});

test('bad input is refused with 400 naming the field and what to send', async () => {
  const refused = (spec: unknown, message: string) =>
    expect(addControllerFault(kc, spec as ControllerFaultSpec)).rejects.toMatchObject({ name: 'EmbeddedFaultError', code: 400, message: expect.stringContaining(message) });
  await refused({}, 'controller fault: exactly one of "statusConflicts" or "cacheLagMs" is needed, got neither; send {"statusConflicts": N} (the controller\'s next N status writes fail with 409 Conflict) or {"cacheLagMs": M}');
  await refused({ statusConflicts: 1, cacheLagMs: 10 }, 'got both "statusConflicts" and "cacheLagMs"');
  await refused({ statusConflicts: -1 }, '"statusConflicts" must be a whole number from 1 to 10000, got -1');
  await refused({ cacheLagMs: 1.5 }, '"cacheLagMs" must be a whole number from 0 to 3600000, got 1.5');
  await refused({ cacheLag: 10 }, 'controller fault: unknown field "cacheLag"');
  await refused([], 'controller fault must be a JSON object, got []');
  expect(await listControllerFaults(kc)).toEqual([]);
});

test('only a user the admin endpoint is authorized for may add one: a ServiceAccount without RBAC for it gets 403', async () => {
  await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'harness-worker' } } });
  const worker = new k8s.KubeConfig();
  worker.loadFromString(cluster.kubeconfigForServiceAccount(NS, 'harness-worker'));
  await expect(addControllerFault(worker, { statusConflicts: 1 })).rejects.toMatchObject({ code: 403, message: expect.stringContaining('/embedded.admin/v1/controller-faults') });
  expect(await listControllerFaults(kc)).toEqual([]);
});
