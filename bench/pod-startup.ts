/**
 * `npm run bench -- pods`: what the embedded node agent costs per Pod, against spawning the
 * very same program directly with child_process, in the same run on the same machine. It is a
 * measurement, not a test: missed targets are printed as MISSED and the exit code stays 0.
 *
 * For each kind of Pod, N Pods one after the other (each left running):
 *   direct   spawn the program as the node would (detached, stdout/stderr piped) and wait until
 *            it has started: the `spawn` event for `sleep`; for the workload fixture, its
 *            "boundary listening" line and one 200 from GET /healthz (what its probe checks)
 *   pod      create the Pod through the object API and wait until a watched event shows its
 *            Ready condition True (scheduling, kubelet status writes, probes included); for a
 *            probed Pod also how long of that it waited for the node's relist to see its
 *            container running (0-1 s after the start, as on a kubelet: readiness-probe.ts)
 * The two alternate per Pod (direct i, then pod i), so a slow moment of a shared machine hits
 * both alike. Once N of each run, memory is read: the RSS of every container's process tree,
 * and the RSS growth of this process (the API server, controllers and node agent) per Pod.
 *
 * Kinds: `sleep 3600` (busybox-style, no probe) and the workload fixture with its httpGet
 * readiness probe at periodSeconds 1 (the Kubernetes minimum) and 0.1 s (accepted by the
 * embedded node only). A probed Pod is first probed when the relist sees it running, so its
 * Ready waits for that relist as a kubelet's does; the target compares the rest, the node's own
 * overhead, with the direct start. Pods created one after the other, each once the last is
 * Ready (on a relist tick), start in step with the relist and wait nearly a second for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { WORKLOAD_PROGRAM } from '../fixtures/programs/catalogue.ts';
import { parentPid } from '../fixtures/reporters/process-tree-cpu.ts';
import type { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { seenRunningAt } from '../cluster/embedded/node/readiness-probe.ts';
import type { KubeObject } from '../cluster/embedded/types.ts';
import { summarize, type Summary } from './http-load.ts';
import { busyWarning, exposeGc, fmt, progressLog, reportBenchmark, settledMemory, startBenchCluster, type BenchOptions, type Row } from './common.ts';

const TARGETS = {
  /** Pod create -> Ready p50, less the wait for the node's relist, as a multiple of direct spawn -> started p50. */
  readyRatio: 3,
};

interface Sizes {
  /** Pods of each kind (and as many direct processes). */
  pods: number;
}

const FULL: Sizes = { pods: 100 };
const QUICK: Sizes = { pods: 10 };

const NAMESPACE = 'bench';

const NOTE = `Direct = spawn -> started (sleep: spawn event; workload: its "listening" line + one GET /healthz = 200).
Pod = create -> a watched event with Ready=True. A probed Pod is first probed when the node's relist
(every second, as a kubelet's) sees its container running: "relist wait" is that part of create -> Ready,
and "node" the rest (scheduling, spawn, status writes, the probe), which the target compares with direct.
The program's own start falls inside the relist wait, so a probed kind's node / direct may read below 1.`;
const WORKLOAD_ENTRYPOINT = WORKLOAD_PROGRAM.entrypoint;

interface Kind {
  key: string;
  label: string;
  /** The container of the Pod. */
  container: Record<string, unknown>;
  /** The same program, spawned directly; resolves once it has started. */
  direct: () => Promise<ChildProcess>;
}

const podIPEnv = { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } };

function workloadKind(periodSeconds: number, key: string, label: string): Kind {
  return {
    key,
    label,
    container: {
      name: 'main',
      image: WORKLOAD_PROGRAM.image,
      args: ['sleep', '3600'],
      env: [podIPEnv],
      ports: [{ name: 'boundary', containerPort: 5500 }],
      readinessProbe: { httpGet: { path: '/healthz', port: 'boundary' }, periodSeconds },
    },
    direct: () => startWorkloadDirectly(),
  };
}

const KINDS: Kind[] = [
  {
    key: 'sleep',
    label: 'sleep (no probe)',
    container: { name: 'main', image: 'busybox', command: ['sleep', '3600'] },
    direct: () => startDirectly(['sleep', '3600']),
  },
  workloadKind(1, 'workload', 'workload, readiness probe 1 s'),
  workloadKind(0.1, 'workload-fast', 'workload, readiness probe 0.1 s'),
];

interface KindResult {
  key: string;
  label: string;
  pods: number;
  directMs: Summary;
  podMs: Summary;
  /** Per Pod: from its container's start (its first watched status showing it running) to the relist that saw it; 0 without a probe. */
  relistWaitMs: Summary;
  /** Per Pod: create -> Ready less its relist wait. */
  nodeMs: Summary;
  ratioP50: number;
  ratioP99: number;
  /** Sum of the RSS of the direct processes' trees / N. */
  directRssPerProcess: number;
  /** Sum of the RSS of the containers' process trees / N. */
  containerRssPerPod: number;
  /** Growth of this process's RSS (after GC) across the N Pods / N: API objects, watch history, node agent state (may read negative: GC noise). */
  agentRssPerPod: number;
}

export async function runPodsBenchmark(options: BenchOptions): Promise<void> {
  const sizes = options.quick ? QUICK : FULL;
  const progress = progressLog('pods');
  const gc = exposeGc();
  const busy = busyWarning();
  if (busy) progress(busy);
  progress(`${options.quick ? 'QUICK run (small sizes, not comparable with the targets); ' : ''}${sizes.pods} pods per kind: ${KINDS.map((k) => k.key).join(', ')}`);

  const results: KindResult[] = [];
  const cluster = await startBenchCluster();
  try {
    cluster.api.create(cluster.api.target('v1', 'namespaces'), { metadata: { name: NAMESPACE } });
    for (const kind of KINDS) results.push(await measureKind(cluster, kind, sizes.pods, gc, progress));
  } finally {
    progress('stopping the cluster');
    await cluster.stop();
  }

  const rows: Row[] = [];
  for (const r of results) {
    rows.push(
      { measure: `${r.label}: direct spawn -> started p50 / p99`, value: `${fmt.ms(r.directMs.p50)} / ${fmt.ms(r.directMs.p99)}` },
      { measure: `${r.label}: Pod create -> Ready p50 / p99`, value: `${fmt.ms(r.podMs.p50)} / ${fmt.ms(r.podMs.p99)}` },
      { measure: `${r.label}:   relist wait / node p50`, value: `${fmt.ms(r.relistWaitMs.p50)} / ${fmt.ms(r.nodeMs.p50)}` },
      { measure: `${r.label}: node / direct, p50`, value: `${r.ratioP50.toFixed(2)}x`, target: `<= ${TARGETS.readyRatio}x`, pass: r.ratioP50 <= TARGETS.readyRatio },
      { measure: `${r.label}: node / direct, p99`, value: `${r.ratioP99.toFixed(2)}x` },
      { measure: `${r.label}: RSS per running Pod (container + node)`, value: fmt.mib(r.containerRssPerPod + r.agentRssPerPod) },
      { measure: `${r.label}:   container processes / node-side growth`, value: `${fmt.mib(r.containerRssPerPod)} / ${fmt.mib(r.agentRssPerPod)}` },
      { measure: `${r.label}: RSS per direct process`, value: fmt.mib(r.directRssPerProcess) },
    );
  }
  await reportBenchmark({
    name: 'pods',
    options,
    quickNote: 'sizes too small to compare with the targets',
    subtitle: `${sizes.pods} pods per kind`,
    busyAtStart: busy,
    rows,
    note: NOTE,
    figures: { sizes, gcBeforeMemory: !!gc, targets: TARGETS, results },
  });
}

async function measureKind(cluster: EmbeddedCluster, kind: Kind, count: number, gc: (() => void) | undefined, progress: (line: string) => void): Promise<KindResult> {
  const pods = cluster.api.target('v1', 'pods', NAMESPACE);
  const readyAt = new Map<string, (time: number) => void>();
  /** Per Pod name: when a watched status first showed its container running (epoch ms, the relist's clock). */
  const runningAt = new Map<string, number>();
  const stopWatch = cluster.api.watch(pods, { resourceVersion: String(cluster.store.currentRevision()) }, (_type, object) => {
    const name = object.metadata.name!;
    if (!runningAt.has(name) && (object.status as PodStatus | undefined)?.containerStatuses?.[0]?.state?.running) runningAt.set(name, Date.now());
    const resolve = readyAt.get(name);
    if (resolve && isReady(object)) {
      readyAt.delete(name);
      resolve(performance.now());
    }
  });
  const relistStart = cluster.nodeRelistStart!;
  const probed = 'readinessProbe' in kind.container;
  const directMs: number[] = [];
  const podMs: number[] = [];
  const relistWaitMs: number[] = [];
  const children: ChildProcess[] = [];
  const before = settledMemory(gc).rss;
  try {
    for (let i = 0; i < count; i++) {
      const spawned = performance.now();
      children.push(await kind.direct());
      directMs.push(performance.now() - spawned);

      const name = `${kind.key}-${i}`;
      const ready = new Promise<number>((resolve) => readyAt.set(name, resolve));
      const created = performance.now();
      cluster.api.create(pods, { metadata: { name, labels: { bench: kind.key } }, spec: { terminationGracePeriodSeconds: 5, containers: [kind.container] } });
      podMs.push((await withTimeout(ready, 30_000, `pod ${name} did not become Ready`)) - created);
      const started = runningAt.get(name)!;
      relistWaitMs.push(probed ? seenRunningAt(relistStart, started) - started : 0);
      if ((i + 1) % 10 === 0 || i + 1 === count) progress(`${kind.key}: ${i + 1}/${count} (last: direct ${fmt.ms(directMs[i])}, pod ${fmt.ms(podMs[i])})`);
    }
    const after = settledMemory(gc).rss;
    const containerPids = cluster.api.store.list('pods', NAMESPACE).map((p) => Number(((p.status as PodStatus).containerStatuses?.[0]?.containerID ?? '').replace('embedded://', '')));
    const containerRss = treeRss(containerPids);
    const directRss = treeRss(children.map((c) => c.pid!));
    const result: KindResult = {
      key: kind.key,
      label: kind.label,
      pods: count,
      directMs: summarize(directMs),
      podMs: summarize(podMs),
      relistWaitMs: summarize(relistWaitMs),
      nodeMs: summarize(podMs.map((ms, i) => ms - relistWaitMs[i])),
      ratioP50: 0,
      ratioP99: 0,
      directRssPerProcess: directRss / count,
      containerRssPerPod: containerRss / count,
      agentRssPerPod: (after - before) / count,
    };
    result.ratioP50 = result.nodeMs.p50 / result.directMs.p50;
    result.ratioP99 = result.nodeMs.p99 / result.directMs.p99;
    progress(`${kind.key}: direct p50 ${fmt.ms(result.directMs.p50)}, pod p50 ${fmt.ms(result.podMs.p50)} (relist wait ${fmt.ms(result.relistWaitMs.p50)}; node / direct ${result.ratioP50.toFixed(2)}x); RSS per pod ${fmt.mib(result.containerRssPerPod)} + ${fmt.mib(result.agentRssPerPod)} node-side`);
    return result;
  } finally {
    stopWatch();
    await stopDirect(children);
    await deleteAll(cluster, progress, kind.key);
  }
}

type PodStatus = { conditions?: { type: string; status: string }[]; containerStatuses?: { containerID?: string; state?: { running?: unknown } }[] };

function isReady(pod: KubeObject): boolean {
  return ((pod.status as PodStatus | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Spawns as the node's runtime does (own process group, output piped) and resolves once the process exists. */
function startDirectly(argv: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } });
    child.stdout!.resume();
    child.stderr!.resume();
    child.once('error', reject);
    child.once('spawn', () => resolve(child));
  });
}

/** The workload fixture run directly: started once it says it listens and answers GET /healthz. */
async function startWorkloadDirectly(): Promise<ChildProcess> {
  const child = spawn(WORKLOAD_ENTRYPOINT[0], [...WORKLOAD_ENTRYPOINT.slice(1), 'sleep', '3600'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', POD_IP: '127.0.0.1', BOUNDARY_PORT: '0' },
  });
  child.stderr!.resume();
  const address = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /boundary listening on (\S+)/.exec(text);
      if (match) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`workload exited with ${code} before listening: ${text}`)));
  });
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  await new Promise<void>((resolve, reject) => {
    get({ host, port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`workload /healthz answered ${res.statusCode}`));
    }).on('error', reject);
  });
  return child;
}

/** SIGKILL to every direct process tree (the workload starts its main command in a group of its own). */
async function stopDirect(children: ChildProcess[]): Promise<void> {
  const exited = children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((resolve) => c.once('exit', resolve)));
  for (const child of children) {
    for (const pid of [...descendants(child.pid!), child.pid!]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  await Promise.all(exited);
}

async function deleteAll(cluster: EmbeddedCluster, progress: (line: string) => void, key: string): Promise<void> {
  const pods = cluster.api.target('v1', 'pods', NAMESPACE);
  for (const pod of cluster.api.store.list('pods', NAMESPACE)) {
    try {
      cluster.api.delete(pods, pod.metadata.name!);
    } catch {
      // already gone
    }
  }
  const deadline = performance.now() + 60_000;
  while (cluster.api.store.list('pods', NAMESPACE).length > 0) {
    if (performance.now() > deadline) throw new Error(`${key}: pods still there 60 s after their deletion`);
    await new Promise((r) => setTimeout(r, 50));
  }
  progress(`${key}: all pods deleted`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

// ---- /proc (Linux) ----

/** Parent -> children from /proc. */
function processTable(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentPid(Number(entry));
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]); // else exited meanwhile
  }
  return children;
}

function descendants(root: number, table = processTable()): number[] {
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of table.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Bytes of resident memory of the given processes and all their descendants. */
function treeRss(roots: number[]): number {
  const table = processTable();
  let total = 0;
  for (const root of roots) {
    if (!root) continue;
    for (const pid of [root, ...descendants(root, table)]) {
      try {
        const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        total += Number(kb ?? 0) * 1024;
      } catch {
        // exited meanwhile
      }
    }
  }
  return total;
}
