import * as k8s from '@kubernetes/client-node';
import { LABEL, MANAGED_BY, OPENSHELL_ROLES } from '../../driver/kubernetes/names.ts';
import { ContainerLogFollower } from './log-follower.ts';
import { TimelineRecorder } from './recorder.ts';
import { ensureNamespace, expect, test } from './test-kit.ts';

/**
 * The log follower against a real (embedded) API server and node agent: what a container says
 * while its Pod terminates is kept after the Pod is gone, and only the test's own sandboxes'
 * Pods are followed.
 */

const labelsOf = (id: string) => ({ [LABEL.managedBy]: MANAGED_BY, [LABEL.sandboxId]: id, [LABEL.boundaryRole]: 'supervisor' });
const talker = (name: string, id: string): k8s.V1Pod => ({
  metadata: { name, labels: labelsOf(id) },
  spec: {
    terminationGracePeriodSeconds: 5,
    containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', `echo ${name} started; trap 'echo ${name} got SIGTERM; sleep 0.3; echo ${name} cleaned up; exit 0' TERM; while true; do sleep 0.1; done`] }],
  },
});

test("a deleted Pod's log, up to its last line, is kept; another sandbox's Pod is not followed", async ({ live }) => {
  const { kubeconfig } = live;
  ensureNamespace(live, 'logs');
  const follower = new ContainerLogFollower(kubeconfig, (id) => id === 'mine');
  const recorder = new TimelineRecorder(kubeconfig, { namespace: 'logs', roles: OPENSHELL_ROLES, sandboxApiVersion: 'agents.x-k8s.io/v1beta1', onObject: (entry) => follower.see(entry) });
  await recorder.start();
  const core = kubeconfig.makeApiClient(k8s.CoreV1Api);
  try {
    await core.createNamespacedPod({ namespace: 'logs', body: talker('ours', 'mine') });
    await core.createNamespacedPod({ namespace: 'logs', body: talker('theirs', 'other') });
    await expect.poll(() => recorder.snapshot().entries.filter((e) => e.kind === 'object' && e.ready === true).length, { message: 'both Pods seen Ready', timeout: 30_000 }).toBe(2);
    for (const name of ['ours', 'theirs']) await core.deleteNamespacedPod({ namespace: 'logs', name });
    await expect
      .poll(() => recorder.snapshot().entries.filter((e) => e.kind === 'object' && e.type === 'DELETED').length, { message: 'both Pods seen deleted', timeout: 30_000 })
      .toBe(2);
  } finally {
    recorder.stop();
  }
  const logs = follower.stop();
  expect(logs.map((l) => `${l.namespace}/${l.pod}/${l.container}`)).toEqual(['logs/ours/main']);
  const lines = logs[0].text.trim().split('\n');
  // timestamps: true, as kubectl logs --timestamps prints them
  expect(lines.every((line) => /^\d{4}-\d\d-\d\dT\S+Z /.test(line)), logs[0].text).toBe(true);
  // (the shell also reports its killed `sleep`: only the program's own lines are compared)
  expect(lines.map((line) => line.replace(/^\S+ /, '')).filter((line) => line.startsWith('ours'))).toEqual(['ours started', 'ours got SIGTERM', 'ours cleaned up']);
});
