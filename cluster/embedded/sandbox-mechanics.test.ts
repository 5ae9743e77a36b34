/**
 * The stop-ordering defect (NVIDIA/OpenShell#3421) reproduced mechanically, with no driver: a
 * workload Pod serving the boundary behind a ClusterIP Service, and a supervisor Pod that must
 * clean up through that boundary when it is stopped.
 *
 *   - defect: the workload goes first; the supervisor's cleanup finds nothing behind the Service,
 *     retries until the grace period runs out and is SIGKILLed (exit code 137);
 *   - fix: the supervisor goes first while the workload still serves; cleanup is acknowledged
 *     and it exits 0 long before the grace period ends.
 *
 * Order and exit codes come from watched Pod events and container statuses, never from a clock
 * in the test. A Pod's `deletionTimestamp` is the deadline (time of the delete request + grace
 * period, as kube-apiserver sets it); `finishedAt` and `deletionTimestamp` both have second
 * resolution, so comparisons against the deadline allow one second.
 */
import { Writable } from 'node:stream';
import { test, expect } from '@playwright/test';
import { KubeConfig, Log } from '@kubernetes/client-node';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE, SUPERVISOR_PROGRAM, WORKLOAD_PROGRAM } from '../../fixtures/programs/catalogue.ts';
import { EmbeddedCluster } from './cluster.ts';
import type { KubeObject } from './types.ts';

const SUPERVISOR_GRACE_SECONDS = 3;

let cluster: EmbeddedCluster;
let namespaces = 0;

test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start({ node: { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } });
});
test.afterAll(async () => {
  await cluster?.stop();
});

type Terminated = { exitCode: number; reason: string; signal?: number; startedAt?: string; finishedAt: string };
type ContainerStatus = { name: string; state: { terminated?: Terminated; running?: unknown; waiting?: unknown } };
type PodStatus = { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: ContainerStatus[] };

interface Seen {
  type: string;
  name: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  terminated?: Terminated;
}

function pods(ns: string) {
  return cluster.api.target('v1', 'pods', ns);
}

function pod(ns: string, name: string): KubeObject | undefined {
  return cluster.api.store.get('pods', ns, name);
}

function ready(ns: string, name: string): boolean {
  return ((pod(ns, name)?.status as PodStatus | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const podIP = { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };

/** The workload Pod behind the boundary Service and the supervisor Pod that talks through it, both Ready. */
async function boundaryPair(): Promise<{ ns: string; clusterIP: string }> {
  const ns = `mechanics-${++namespaces}`;
  cluster.api.create(cluster.api.target('v1', 'namespaces'), { metadata: { name: ns } });
  cluster.api.create(pods(ns), {
    metadata: { name: 'workload', labels: { role: 'workload' } },
    spec: {
      containers: [
        {
          name: 'workload',
          image: WORKLOAD_PROGRAM.image,
          args: ['sleep', '3600'],
          env: [podIP],
          ports: [{ name: 'boundary', containerPort: 5500 }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'boundary' }, periodSeconds: 1 },
        },
      ],
    },
  });
  const service = cluster.api.create(cluster.api.target('v1', 'services', ns), {
    metadata: { name: 'boundary' },
    spec: { selector: { role: 'workload' }, ports: [{ name: 'boundary', port: 5500, targetPort: 'boundary' }] },
  }).object;
  const clusterIP = (service.spec as { clusterIP: string }).clusterIP;
  expect(clusterIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
  cluster.api.create(pods(ns), {
    metadata: { name: 'supervisor', labels: { role: 'supervisor' } },
    spec: {
      terminationGracePeriodSeconds: SUPERVISOR_GRACE_SECONDS,
      containers: [
        {
          name: 'supervisor',
          image: SUPERVISOR_PROGRAM.image,
          env: [{ name: 'BOUNDARY_ADDRESS', value: `${clusterIP}:5500` }, podIP, { name: 'HEALTH_PORT', value: '8081' }],
          ports: [{ name: 'health', containerPort: 8081 }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 1 },
        },
      ],
    },
  });
  await expect.poll(() => ready(ns, 'workload'), { message: 'workload Ready' }).toBe(true);
  // The supervisor is Ready only once it reached the boundary through the Service.
  await expect.poll(() => ready(ns, 'supervisor'), { message: 'supervisor Ready' }).toBe(true);
  return { ns, clusterIP };
}

/** Records every Pod event of the namespace from now on, in commit order. */
function watchPods(ns: string): { seen: Seen[]; stop: () => void } {
  const seen: Seen[] = [];
  const stop = cluster.api.watch(pods(ns), { resourceVersion: String(cluster.store.currentRevision()) }, (type, object) => {
    const status = (object.status ?? {}) as PodStatus;
    seen.push({
      type,
      name: object.metadata.name!,
      deletionTimestamp: object.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: object.metadata.deletionGracePeriodSeconds,
      terminated: status.containerStatuses?.[0]?.state.terminated,
    });
  });
  return { seen, stop };
}

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  return kc;
}

/** `pods/log?follow=true` through the API server, once it is streaming; `text` resolves with the whole log when the container's run ends. */
async function followLog(ns: string, name: string, container: string): Promise<{ text: Promise<string> }> {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const finished = new Promise<string>((resolve) => sink.on('finish', () => resolve(text)));
  // Resolves once the server answered: from then on every line of the run reaches the sink.
  await new Log(kubeConfig()).log(ns, name, container, sink, { follow: true });
  return { text: finished };
}

async function readLog(ns: string, name: string, container: string): Promise<string> {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const finished = new Promise<void>((resolve) => sink.on('finish', () => resolve()));
  await new Log(kubeConfig()).log(ns, name, container, sink, { follow: false });
  await finished;
  return text;
}

const seconds = (stamp: string) => Date.parse(stamp) / 1000;

/**
 * The watched life of one Pod's deletion: the first event with deletionTimestamp, then the
 * final container status, then DELETED, in that order; returns what the order was read from.
 */
function deletionOrder(seen: Seen[], name: string): { marked: Seen; terminated: Terminated; deleted: Seen } {
  const own = seen.filter((e) => e.name === name);
  const markedAt = own.findIndex((e) => e.deletionTimestamp);
  const terminatedAt = own.findIndex((e) => e.terminated);
  const deletedAt = own.findIndex((e) => e.type === 'DELETED');
  expect(markedAt, `${name}: an event carrying deletionTimestamp`).toBeGreaterThanOrEqual(0);
  expect(terminatedAt, `${name}: the container's terminated state is written after the delete began`).toBeGreaterThan(markedAt);
  expect(deletedAt, `${name}: DELETED only after the terminated state`).toBeGreaterThan(terminatedAt);
  expect(deletedAt, `${name}: DELETED is its last event`).toBe(own.length - 1);
  // The last status the kubelet wrote is the one the DELETED event carries.
  return { marked: own[markedAt], terminated: own[deletedAt].terminated!, deleted: own[deletedAt] };
}

test('defect: workload deleted first, then the supervisor -> its cleanup never lands and it is SIGKILLed at the grace period (137)', async () => {
  const { ns, clusterIP } = await boundaryPair();
  const events = watchPods(ns);
  try {
    const workloadLog = await followLog(ns, 'workload', 'workload');
    cluster.api.delete(pods(ns), 'workload');
    await expect.poll(() => pod(ns, 'workload'), { message: 'workload gone' }).toBeUndefined();
    // With the workload gone the Service has no ready endpoint: the proxy no longer serves its port.
    await expect.poll(() => cluster.api.store.list('endpointslices.discovery.k8s.io', ns).flatMap((s) => (s.endpoints as unknown[] | undefined) ?? []).length).toBe(0);
    const workload = deletionOrder(events.seen, 'workload');
    expect(workload.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    const workloadText = await workloadLog.text;
    expect(workloadText).toContain('workload: SIGTERM received; shutting down');
    expect(workloadText).not.toContain('cleanup received');

    const supervisorLog = await followLog(ns, 'supervisor', 'supervisor');
    const deleted = cluster.api.delete(pods(ns), 'supervisor');
    expect(deleted.removed).toBe(false);
    expect(deleted.object.metadata.deletionGracePeriodSeconds).toBe(SUPERVISOR_GRACE_SECONDS);
    await expect.poll(() => pod(ns, 'supervisor'), { message: 'supervisor gone', timeout: 20_000 }).toBeUndefined();

    const supervisor = deletionOrder(events.seen, 'supervisor');
    expect(supervisor.terminated).toMatchObject({ exitCode: 137, reason: 'Error', signal: 9 });
    expect(supervisor.marked.deletionGracePeriodSeconds).toBe(SUPERVISOR_GRACE_SECONDS);
    // deletionTimestamp = delete request + grace: the container ran until that deadline (it was killed there, not before).
    const deadline = seconds(supervisor.marked.deletionTimestamp!);
    const finished = seconds(supervisor.terminated.finishedAt);
    expect(finished).toBeGreaterThanOrEqual(deadline - 1);

    const text = await supervisorLog.text;
    expect(text).toContain(`supervisor: SIGTERM received; cleaning up through boundary ${clusterIP}:5500`);
    const failures = text.split('\n').filter((line) => /^supervisor: cleanup attempt \d+ failed: /.test(line));
    expect(failures.length, text).toBeGreaterThanOrEqual(2);
    expect(failures[0]).toBe(`supervisor: cleanup attempt 1 failed: connect ECONNREFUSED ${clusterIP}:5500`);
    expect(failures[1]).toMatch(/^supervisor: cleanup attempt 2 failed: /);
    expect(text).not.toContain('cleanup acknowledged');
  } finally {
    events.stop();
  }
});

test('fix: supervisor deleted first while the workload runs -> cleanup acknowledged, exit 0 before the grace deadline', async () => {
  const { ns, clusterIP } = await boundaryPair();
  const events = watchPods(ns);
  try {
    const supervisorLog = await followLog(ns, 'supervisor', 'supervisor');
    cluster.api.delete(pods(ns), 'supervisor');
    await expect.poll(() => pod(ns, 'supervisor'), { message: 'supervisor gone' }).toBeUndefined();

    const supervisor = deletionOrder(events.seen, 'supervisor');
    expect(supervisor.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(supervisor.terminated).not.toHaveProperty('signal');
    // Finished before the deadline; both stamps are truncated to the second, so "before" is strict.
    expect(seconds(supervisor.terminated.finishedAt)).toBeLessThan(seconds(supervisor.marked.deletionTimestamp!));

    const text = await supervisorLog.text;
    expect(text).toContain(`supervisor: SIGTERM received; cleaning up through boundary ${clusterIP}:5500`);
    expect(text).toContain('supervisor: cleanup acknowledged');
    expect(text).not.toMatch(/cleanup attempt \d+ failed/);
    // The workload is still running and recorded who cleaned up.
    expect(ready(ns, 'workload')).toBe(true);
    expect(await readLog(ns, 'workload', 'workload')).toContain('workload: cleanup received from supervisor\n');

    // Then the workload stops cleanly too.
    cluster.api.delete(pods(ns), 'workload');
    await expect.poll(() => pod(ns, 'workload')).toBeUndefined();
    expect(deletionOrder(events.seen, 'workload').terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  } finally {
    events.stop();
  }
});
