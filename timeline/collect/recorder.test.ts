import * as k8s from '@kubernetes/client-node';
import { LABEL, MANAGED_BY, OPENSHELL_ROLES } from '../../driver/kubernetes/names.ts';
import type { ObjectEntry, StepEntry } from '../model.ts';
import { TimelineRecorder } from './recorder.ts';
import { ensureNamespace, expect, test } from './test-kit.ts';

/**
 * The recorder against a real (embedded) API server: what a Pod entry carries for the start
 * and stop rules, and the cluster revision every step mark gets, which places a change after
 * the mark whatever order the watch delivered it in.
 */

test('Pod entries carry scheduling gates, readiness, the termination grace and restart counts; step marks carry the cluster revision', async ({ live }) => {
  const { kubeconfig } = live;
  ensureNamespace(live, 'rec');
  const recorder = new TimelineRecorder(kubeconfig, { namespace: 'rec', roles: OPENSHELL_ROLES, sandboxApiVersion: 'agents.x-k8s.io/v1beta1' });
  await recorder.start();
  const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
  const labels = { [LABEL.managedBy]: MANAGED_BY, [LABEL.sandboxId]: 'abc', [LABEL.boundaryRole]: 'supervisor' };
  await recorder.step('create', 'begin');
  await core.createNamespacedPod({
    namespace: 'rec',
    body: { metadata: { name: 'gated', labels }, spec: { terminationGracePeriodSeconds: 7, schedulingGates: [{ name: 'example.com/hold' }], containers: [{ name: 'main', image: 'busybox', command: ['sleep', '30'] }] } },
  });
  await core.patchNamespacedPod({ namespace: 'rec', name: 'gated', body: [{ op: 'remove', path: '/spec/schedulingGates/0' }] }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
  await expect.poll(() => recorder.snapshot().entries.some((e) => e.kind === 'object' && e.ready === true), { message: 'the Pod seen Ready' }).toBe(true);
  await recorder.step('create', 'end');
  await core.deleteNamespacedPod({ namespace: 'rec', name: 'gated' });
  await expect.poll(() => recorder.snapshot().entries.some((e) => e.kind === 'object' && e.type === 'DELETED'), { message: 'the Pod seen gone' }).toBe(true);
  const timeline = await recorder.finish();

  const pods = timeline.entries.filter((e): e is ObjectEntry => e.kind === 'object' && e.name === 'gated');
  expect(pods[0]).toMatchObject({ role: 'supervisor', sandboxId: 'abc', terminationGracePeriodSeconds: 7, schedulingGates: ['example.com/hold'], ready: false });
  expect(pods.some((e) => e.schedulingGates?.length === 0 && e.ready === false)).toBe(true);
  expect(pods.find((e) => e.ready)?.containers).toEqual([expect.objectContaining({ name: 'main', state: 'running', restartCount: 0 })]);
  expect(pods.find((e) => e.deletionTimestamp)?.deletionGracePeriodSeconds).toBe(7);

  const [begin, end] = timeline.entries.filter((e): e is StepEntry => e.kind === 'step');
  for (const mark of [begin, end]) expect(Number(mark.clusterRevision), `${mark.title} ${mark.status} stamped`).toBeGreaterThan(0);
  // Everything of the Pod up to Ready was committed by the end mark; its deletion after it.
  const ready = pods.find((e) => e.ready)!;
  const deleting = pods.find((e) => e.deletionTimestamp)!;
  expect(Number(ready.resourceVersion)).toBeLessThanOrEqual(Number(end.clusterRevision));
  expect(Number(deleting.resourceVersion)).toBeGreaterThan(Number(end.clusterRevision));
  expect(Number(begin.clusterRevision)).toBeLessThan(Number(pods[0].resourceVersion));
});

test('a catch-up waits until the watches have delivered what the cluster holds of the sandboxes: a change made just before is in the recording after it', async ({ live }) => {
  const { kubeconfig } = live;
  ensureNamespace(live, 'catchup');
  const recorder = new TimelineRecorder(kubeconfig, { namespace: 'catchup', roles: OPENSHELL_ROLES, sandboxApiVersion: 'agents.x-k8s.io/v1beta1' });
  await recorder.start();
  const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
  const secret = (name: string, sandboxId: string) => ({ metadata: { name, labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.sandboxId]: sandboxId, [LABEL.component]: 'sandbox-bootstrap' } }, data: {} });
  const seen = (name: string, type: string) => recorder.snapshot().entries.some((e) => e.kind === 'object' && e.name === name && e.type === type);
  for (let round = 0; round < 5; round++) {
    const name = `s${round}`;
    await core.createNamespacedSecret({ namespace: 'catchup', body: secret(name, 'mine') });
    expect(await recorder.catchUp(['mine']), 'caught up').toBe(true);
    expect(seen(name, 'ADDED'), `${name} created, then a catch-up: its creation is recorded`).toBe(true);
    await core.deleteNamespacedSecret({ namespace: 'catchup', name });
    expect(await recorder.catchUp(['mine'])).toBe(true);
    expect(seen(name, 'DELETED'), `${name} deleted, then a catch-up: its deletion is recorded`).toBe(true);
  }
  const before = recorder.snapshot().entries.length;
  await core.createNamespacedSecret({ namespace: 'catchup', body: secret('theirs', 'another') });
  expect(await recorder.catchUp(['mine']), 'another sandbox\'s changes are not waited for').toBe(true);
  const { caughtUp } = recorder.snapshot();
  expect(caughtUp!.afterSeq).toBeLessThanOrEqual(recorder.snapshot().entries.length);
  expect(caughtUp!.afterSeq).toBeGreaterThanOrEqual(before);
  expect(Number(caughtUp!.revision)).toBeGreaterThan(0);
  recorder.stop();
});
