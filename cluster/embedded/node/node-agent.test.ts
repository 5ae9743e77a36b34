import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import type { KubeObject } from '../types.ts';

/** The node agent, driven through the object API: Pods become processes and back. */

let cluster: EmbeddedCluster;
let namespace = 0;

test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start({ node: { backoffMs: 100, maxBackoffMs: 400 } });
});
test.afterAll(async () => {
  await cluster.stop();
});

function freshNamespace(): string {
  const name = `node-${++namespace}`;
  cluster.api.create(cluster.api.target('v1', 'namespaces'), { metadata: { name } });
  return name;
}

type ContainerStatus = { name: string; ready: boolean; restartCount: number; containerID?: string; state: Record<string, Record<string, unknown>>; lastState: Record<string, Record<string, unknown>> };
type PodStatus = { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };

function pod(ns: string, name: string): KubeObject | undefined {
  return cluster.api.store.get('pods', ns, name);
}

function status(ns: string, name: string): PodStatus {
  return (pod(ns, name)?.status ?? {}) as PodStatus;
}

function createPod(ns: string, name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return cluster.api.create(cluster.api.target('v1', 'pods', ns), { metadata: { name, ...metadata }, spec }).object;
}

function events(ns: string, name: string): string[] {
  return cluster.api.store
    .list('events', ns)
    .filter((e) => (e.involvedObject as { name: string }).name === name)
    .map((e) => `${e.reason}`);
}

test('a Pod runs as a process: Pending -> Running with conditions, pod IP, events', async () => {
  const ns = freshNamespace();
  createPod(ns, 'sleeper', { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '30'] }] });
  await expect.poll(() => status(ns, 'sleeper').phase).toBe('Running');
  const s = status(ns, 'sleeper');
  expect(s.podIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
  expect(s.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(expect.arrayContaining(['PodScheduled=True', 'Initialized=True', 'ContainersReady=True', 'Ready=True']));
  expect(s.containerStatuses?.[0].state.running).toBeDefined();
  await expect.poll(() => events(ns, 'sleeper')).toEqual(expect.arrayContaining(['Scheduled', 'Pulled', 'Created', 'Started']));
});

test('env: values, $(VAR) expansion, fieldRef, secretKeyRef and configMapKeyRef; mounts under POD_ROOT', async () => {
  const ns = freshNamespace();
  cluster.api.create(cluster.api.target('v1', 'secrets', ns), { metadata: { name: 's' }, stringData: { token: 'sekrit' } });
  cluster.api.create(cluster.api.target('v1', 'configmaps', ns), { metadata: { name: 'c' }, data: { mode: 'fast', 'file.txt': 'from-configmap' } });
  createPod(ns, 'env', {
    restartPolicy: 'Never',
    volumes: [{ name: 'cfg', configMap: { name: 'c' } }, { name: 'scratch', emptyDir: {} }],
    containers: [
      {
        name: 'main',
        image: 'busybox',
        command: ['sh', '-c', 'echo "$GREETING $POD_NAME $POD_NS $POD_IP $TOKEN $MODE"; cat "$POD_ROOT/etc/cfg/file.txt"; echo kept > "$POD_ROOT/scratch/x"; cat "$POD_ROOT/scratch/x"'],
        env: [
          { name: 'NAME', value: 'world' },
          { name: 'GREETING', value: 'hello-$(NAME)' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'POD_NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'token' } } },
          { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'c', key: 'mode' } } },
        ],
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }, { name: 'scratch', mountPath: '/scratch' }],
      },
    ],
  });
  await expect.poll(() => status(ns, 'env').phase).toBe('Succeeded');
  const log = await readLog(ns, 'env', 'main');
  expect(log).toMatch(new RegExp(`^hello-world env ${ns} 127\\.\\d+\\.\\d+\\.\\d+ sekrit fast\\nfrom-configmapkept\\n$`));
  const terminated = status(ns, 'env').containerStatuses![0].state.terminated;
  expect(terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
});

test('restartPolicy: Never fails, OnFailure and Always restart with back-off', async () => {
  const ns = freshNamespace();
  createPod(ns, 'never', { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 3'] }] });
  createPod(ns, 'onfailure', { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 1'] }] });
  createPod(ns, 'always', { restartPolicy: 'Always', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 0'] }] });
  await expect.poll(() => status(ns, 'never').phase).toBe('Failed');
  expect(status(ns, 'never').containerStatuses![0].state.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
  await expect.poll(() => status(ns, 'onfailure').containerStatuses?.[0].restartCount ?? 0).toBeGreaterThanOrEqual(2);
  await expect.poll(() => status(ns, 'always').containerStatuses?.[0].restartCount ?? 0).toBeGreaterThanOrEqual(2);
  await expect.poll(() => JSON.stringify(status(ns, 'onfailure').containerStatuses?.[0].state)).toContain('CrashLoopBackOff');
  expect(status(ns, 'onfailure').containerStatuses![0].lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
  expect(events(ns, 'onfailure')).toContain('BackOff');
});

test('graceful deletion: SIGTERM first; a process that ignores it is SIGKILLed at the grace period (137)', async () => {
  const ns = freshNamespace();
  createPod(ns, 'polite', { terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "echo got TERM; exit 0" TERM; while true; do sleep 0.1; done'] }] });
  createPod(ns, 'stubborn', { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "echo ignoring TERM" TERM; while true; do sleep 0.1; done'] }] });
  await expect.poll(() => status(ns, 'polite').phase).toBe('Running');
  await expect.poll(() => status(ns, 'stubborn').phase).toBe('Running');
  const seen: Record<string, unknown>[] = [];
  const stop = cluster.api.watch(cluster.api.target('v1', 'pods', ns), { resourceVersion: String(cluster.store.currentRevision()) }, (type, object) => {
    seen.push({ type, name: object.metadata.name, terminated: ((object.status as PodStatus)?.containerStatuses ?? [])[0]?.state.terminated });
  });
  cluster.api.delete(cluster.api.target('v1', 'pods', ns), 'polite', {});
  cluster.api.delete(cluster.api.target('v1', 'pods', ns), 'stubborn', {});
  expect(pod(ns, 'polite')?.metadata.deletionTimestamp).toBeDefined();
  await expect.poll(() => pod(ns, 'polite')).toBeUndefined();
  await expect.poll(() => pod(ns, 'stubborn')).toBeUndefined();
  stop();
  const last = (name: string) => seen.filter((e) => e.name === name && e.terminated).at(-1)?.terminated as Record<string, unknown>;
  expect(last('polite')).toMatchObject({ exitCode: 0, reason: 'Completed' });
  expect(last('stubborn')).toMatchObject({ exitCode: 137, reason: 'Error' });
  expect(seen.filter((e) => e.type === 'DELETED').map((e) => e.name).sort()).toEqual(['polite', 'stubborn']);
});

test('readiness probes drive Ready: exec, httpGet and tcpSocket', async () => {
  const ns = freshNamespace();
  const server = `require("http").createServer((q,s)=>{s.end(require("fs").existsSync(process.env.POD_ROOT+"/ready")?"ok":"");s.statusCode=200}).listen(8080,process.env.POD_IP)`;
  createPod(ns, 'probed', {
    containers: [
      {
        name: 'main',
        image: 'busybox',
        command: ['sh', '-c', 'sleep 30'],
        readinessProbe: { exec: { command: ['sh', '-c', 'test -f "$POD_ROOT/ready"'] }, periodSeconds: 0.1 },
      },
      {
        name: 'http',
        image: 'node',
        command: ['node', '-e', server],
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        ports: [{ name: 'web', containerPort: 8080 }],
        readinessProbe: { httpGet: { port: 'web', path: '/' }, periodSeconds: 0.1 },
      },
      {
        name: 'tcp',
        image: 'busybox',
        command: ['sh', '-c', 'sleep 30'],
        readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 0.1 },
      },
    ],
  });
  await expect.poll(() => status(ns, 'probed').phase).toBe('Running');
  await expect.poll(() => status(ns, 'probed').containerStatuses?.map((c) => `${c.name}=${c.ready}`)).toEqual(['main=false', 'http=true', 'tcp=true']);
  expect(status(ns, 'probed').conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  const root = await execIn(ns, 'probed', 'main', ['sh', '-c', 'touch "$POD_ROOT/ready"']);
  expect(root.exitCode).toBe(0);
  await expect.poll(() => status(ns, 'probed').conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
});

test('a started container is probed when the kubelet sees it running, not only at its probe ticks', async () => {
  const ns = freshNamespace();
  createPod(ns, 'seen', {
    containers: [{ name: 'main', image: 'busybox', command: ['sleep', '30'], readinessProbe: { exec: { command: ['true'] }, periodSeconds: 600 } }],
  });
  // Probed only at ticks (every 600 s) it would not be Ready before this poll's deadline; the relist that sees it running comes within a second of its start.
  await expect.poll(() => status(ns, 'seen').containerStatuses?.[0]?.ready, { timeout: 10_000 }).toBe(true);
});

test('bad input: unknown image, command not found, missing Secret, missing PVC', async () => {
  const ns = freshNamespace();
  createPod(ns, 'noimage', { containers: [{ name: 'main', image: 'example.com/nothing:1' }] });
  createPod(ns, 'nocommand', { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['definitely-not-a-command-xyz'] }] });
  createPod(ns, 'nosecret', { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '30'], env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'k' } } }] }] });
  createPod(ns, 'nopvc', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'absent' } }], containers: [{ name: 'main', image: 'busybox', command: ['sleep', '30'] }] });
  await expect.poll(() => status(ns, 'noimage').containerStatuses?.[0].state.waiting?.reason).toBe('ImagePullBackOff');
  await expect.poll(() => status(ns, 'nocommand').phase).toBe('Failed');
  expect(status(ns, 'nocommand').containerStatuses![0].state.terminated).toMatchObject({ reason: 'StartError', exitCode: 128 });
  expect(String(status(ns, 'nocommand').containerStatuses![0].state.terminated.message)).toContain('executable file not found in $PATH');
  await expect.poll(() => status(ns, 'nosecret').containerStatuses?.[0].state.waiting?.reason).toBe('CreateContainerConfigError');
  await expect.poll(() => events(ns, 'nopvc')).toContain('FailedScheduling');
  expect(status(ns, 'nopvc').phase).toBe('Pending');
  const message = cluster.api.store.list('events', ns).find((e) => e.reason === 'FailedScheduling')?.message;
  expect(message).toContain('persistentvolumeclaim "absent" not found');
  // Creating the claim lets the Pod schedule.
  cluster.api.create(cluster.api.target('v1', 'persistentvolumeclaims', ns), { metadata: { name: 'absent' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  await expect.poll(() => status(ns, 'nopvc').phase).toBe('Running');
});

test('a PVC keeps its data across Pods until the claim is deleted', async () => {
  const ns = freshNamespace();
  cluster.api.create(cluster.api.target('v1', 'persistentvolumeclaims', ns), { metadata: { name: 'ws' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  const spec = (command: string) => ({ restartPolicy: 'Never', volumes: [{ name: 'ws', persistentVolumeClaim: { claimName: 'ws' } }], containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', command], volumeMounts: [{ name: 'ws', mountPath: '/sandbox' }] }] });
  createPod(ns, 'writer', spec('echo sentinel-42 > "$POD_ROOT/sandbox/data"'));
  await expect.poll(() => status(ns, 'writer').phase).toBe('Succeeded');
  cluster.api.delete(cluster.api.target('v1', 'pods', ns), 'writer', {});
  await expect.poll(() => pod(ns, 'writer')).toBeUndefined();
  createPod(ns, 'reader', spec('cat "$POD_ROOT/sandbox/data"'));
  await expect.poll(() => status(ns, 'reader').phase).toBe('Succeeded');
  expect(await readLog(ns, 'reader', 'main')).toBe('sentinel-42\n');
  expect((cluster.api.store.get('persistentvolumeclaims', ns, 'ws')?.status as { phase?: string }).phase).toBe('Bound');
});

test('SIGKILL at the grace period also reaches a descendant that left the process group', async () => {
  const ns = freshNamespace();
  // The stray runs in a session of its own (as the workload fixture starts its main command) and holds the container's stdout.
  createPod(ns, 'escaper', { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "" TERM; setsid sleep 300 & echo "stray $!"; while true; do sleep 0.1; done'] }] });
  await expect.poll(async () => /stray (\d+)/.exec(status(ns, 'escaper').phase === 'Running' ? await readLog(ns, 'escaper', 'main') : '')?.[1]).toBeTruthy();
  const stray = Number(/stray (\d+)/.exec(await readLog(ns, 'escaper', 'main'))![1]);
  expect(alive(stray)).toBe(true);
  const seen: ContainerStatus['state'][] = [];
  const stop = cluster.api.watch(cluster.api.target('v1', 'pods', ns), { resourceVersion: String(cluster.store.currentRevision()) }, (_type, object) => {
    const state = ((object.status as PodStatus)?.containerStatuses ?? [])[0]?.state;
    if (state) seen.push(state);
  });
  cluster.api.delete(cluster.api.target('v1', 'pods', ns), 'escaper', {});
  await expect.poll(() => pod(ns, 'escaper')).toBeUndefined();
  stop();
  expect(seen.at(-1)?.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
  // Gone, or a zombie its new parent has not reaped yet (the node agent is not its parent).
  await expect.poll(() => alive(stray)).toBe(false);
});

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

test('stopping the node leaves no container process behind', async () => {
  const own = await EmbeddedCluster.start({ node: {} });
  const target = own.api.target('v1', 'pods', 'default');
  for (const name of ['a', 'b']) own.api.create(target, { metadata: { name }, spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "" TERM; sleep 300'] }] } });
  const pids = async () => {
    const ids = ['a', 'b'].map((n) => ((own.api.store.get('pods', 'default', n)?.status as PodStatus)?.containerStatuses?.[0]?.containerID ?? '').replace('embedded://', ''));
    return ids.every(Boolean) ? ids.map(Number) : [];
  };
  await expect.poll(async () => (await pids()).length).toBe(2);
  const running = await pids();
  await own.stop();
  for (const pid of running) expect(() => process.kill(pid, 0)).toThrow();
});

async function readLog(ns: string, name: string, container: string): Promise<string> {
  const { KubeConfig, Log } = await import('@kubernetes/client-node');
  const { Writable } = await import('node:stream');
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  let text = '';
  const sink = new Writable({ write(chunk, _e, cb) { text += chunk.toString(); cb(); } });
  await new Promise<void>((resolve, reject) => {
    new Log(kc).log(ns, name, container, sink, { follow: false }).then((req) => {
      sink.on('finish', () => resolve());
      void req;
    }, reject);
  });
  return text;
}

async function execIn(ns: string, name: string, container: string, command: string[]): Promise<{ exitCode: number; stdout: string }> {
  const { KubeConfig, Exec } = await import('@kubernetes/client-node');
  const { Writable } = await import('node:stream');
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  let stdout = '';
  const out = new Writable({ write(chunk, _e, cb) { stdout += chunk.toString(); cb(); } });
  return new Promise((resolve) => {
    void new Exec(kc).exec(ns, name, container, command, out, null, null, false, (s) => {
      const code = s.status === 'Success' ? 0 : Number(s.details?.causes?.find((c) => c.reason === 'ExitCode')?.message ?? 1);
      resolve({ exitCode: code, stdout });
    });
  });
}
