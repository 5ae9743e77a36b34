/**
 * `npm run bench -- apiserver`: how fast the embedded API server is, against a bare Node
 * HTTPS server measured in the same run on the same machine. It is a measurement, not a
 * test: missed targets are printed as MISSED and the exit code stays 0.
 *
 *   1. baseline   bare `https` server (same certificate setup), POSTs answered with a small JSON
 *   2. create     POST /api/v1/namespaces/default/pods, same client loop, body and concurrency;
 *                 1 and 2 alternate in rounds so drifts of a shared machine hit both alike
 *   3. memory     process RSS once 10,000 Pods are stored
 *   4. list       GET pods (all 10,000) and ?limit=500 (first page), median and p95
 *   5. watch      10 watchers on ConfigMaps while 10,000 changes are written; lost events
 *   6. start      EmbeddedCluster.start() (bare, and with node agent + Agent Sandbox) against a
 *                 bare https server's start (certificate + listen), in this process and in fresh
 *                 processes (module import and start apart)
 *
 * The list of all Pods is set against a bare JSON.stringify of the same stored objects, timed on
 * this thread in the same run: the least any server that sends them as JSON must spend.
 *
 * The servers run on this (main) thread; the client runs in a worker thread (worker.ts).
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { EmbeddedCluster, type EmbeddedClusterOptions } from '../cluster/embedded/cluster.ts';
import { generateServingCertificate } from '../cluster/embedded/tls.ts';
import { summarize, type Endpoint, type GetResult, type LoadPlan, type LoadResult, type Summary } from './http-load.ts';
import type { WatchResult } from './watch-delivery.ts';
import { busyWarning, exposeGc, fmt, progressLog, reportBenchmark, settledMemory, type BenchOptions, type Row } from './common.ts';
import { runInWorker } from './worker.ts';
import type { Measurement } from './figures-table.ts';

const TARGETS = {
  /** Pod creates per second as a fraction of the bare server's requests per second. */
  createRatio: 0.4,
  /** Process RSS with 10,000 Pods stored. */
  rssBytes: 300 * 2 ** 20,
  lostEvents: 0,
  /** Time to the last byte of GET all 10,000 Pods, median (issue 15). */
  listAllMs: 100,
  /** EmbeddedCluster.start() with node agent and Agent Sandbox, the first in a fresh process (issue 15). */
  startMs: 1_000,
};

interface Sizes {
  concurrency: number;
  /** Untimed requests before the timed ones, for both servers (JIT, TLS sessions, connections). */
  warmup: number;
  /** Timed Pod creates; warmup + timed = Pods stored for the list and memory figures. */
  timed: number;
  /** The timed requests of baseline and create alternate in this many rounds. */
  rounds: number;
  listWarmup: number;
  listRuns: number;
  watchers: number;
  /** ConfigMaps created, then each updated once. */
  watchCreates: number;
  /** Starts of each kind in this process, alternating kinds. */
  starts: number;
  /** Fresh processes per kind (bare https, cluster with node agent and Agent Sandbox), alternating. */
  freshStarts: number;
}

const FULL: Sizes = { concurrency: 16, warmup: 1_000, timed: 9_000, rounds: 3, listWarmup: 2, listRuns: 15, watchers: 10, watchCreates: 5_000, starts: 5, freshStarts: 3 };
const QUICK: Sizes = { concurrency: 16, warmup: 200, timed: 800, rounds: 2, listWarmup: 1, listRuns: 5, watchers: 10, watchCreates: 500, starts: 2, freshStarts: 1 };

/** The smallest Pod the API server accepts; the baseline receives the very same bytes. */
const POD_BODY = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'bench-pod-{i}', labels: { app: 'bench' } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});
const PODS_PATH = '/api/v1/namespaces/default/pods';
const BASELINE_REPLY = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 });

export async function runApiserverBenchmark(options: BenchOptions): Promise<void> {
  const sizes = options.quick ? QUICK : FULL;
  const progress = progressLog('apiserver');
  const gc = exposeGc();
  const memoryAtStart = settledMemory(gc);
  const pods = sizes.warmup + sizes.timed;
  const busy = busyWarning();
  if (busy) progress(busy);
  progress(`${options.quick ? 'QUICK run (small sizes, not comparable with the targets); ' : ''}${pods} pods, concurrency ${sizes.concurrency}, ${sizes.watchers} watchers x ${2 * sizes.watchCreates} changes`);

  const load = (label: string, endpoint: Endpoint): LoadPlan => ({
    label,
    endpoint,
    method: 'POST',
    path: PODS_PATH,
    body: POD_BODY,
    expectStatus: 201,
    warmup: sizes.warmup,
    count: sizes.timed,
    concurrency: sizes.concurrency,
  });

  // Both servers run at once, on this thread; the client alternates between them in rounds.
  progress('starting a bare https server (baseline) and the embedded cluster');
  const baselineServer = await startBaselineServer();
  let cluster: EmbeddedCluster | undefined;
  let baseline: LoadResult;
  let create: LoadResult;
  let roundRatios: number[];
  let memory: NodeJS.MemoryUsage;
  let storedPods: number;
  let listAll: GetResult;
  let stringifyMs: Summary;
  let listPage: GetResult;
  let watch: WatchResult;
  try {
    cluster = await EmbeddedCluster.start();
    const endpoint: Endpoint = { url: cluster.url, ca: cluster.certificateAuthority, token: cluster.token };
    const alternating = await runInWorker(
      { kind: 'alternate', plan: { plans: [load('baseline: POST to bare https server', baselineServer.endpoint), load('create: POST pods to embedded cluster', endpoint)], rounds: sizes.rounds } },
      progress,
    );
    await baselineServer.close();
    [baseline, create] = alternating.results;
    roundRatios = alternating.rounds.map(([b, c]) => c.rate / b.rate);
    progress(`baseline ${fmt.int(baseline.rate)} req/s, create ${fmt.int(create.rate)} pods/s: ${(create.rate / baseline.rate).toFixed(2)} of baseline${create.failed ? `; ${create.failed} FAILED: ${create.firstFailure}` : ''}`);

    // Let the controllers drain what the creates queued, then collect garbage and measure.
    await new Promise((r) => setTimeout(r, 500));
    storedPods = cluster.store.list('pods', 'default').length;
    memory = settledMemory(gc);
    progress(`memory: rss ${fmt.mib(memory.rss)} with ${storedPods} pods stored (heap used ${fmt.mib(memory.heapUsed)})`);

    listAll = await runInWorker({ kind: 'get', plan: { label: 'list: all pods', endpoint, path: PODS_PATH, warmup: sizes.listWarmup, runs: sizes.listRuns } }, progress);
    stringifyMs = timeStringify(cluster.store.list('pods', 'default'), sizes.listWarmup, sizes.listRuns);
    progress(`list: bare JSON.stringify of the same ${storedPods} stored Pods, median ${fmt.ms(stringifyMs.p50)}`);
    listPage = await runInWorker(
      { kind: 'get', plan: { label: 'list: first page of 500', endpoint, path: `${PODS_PATH}?limit=500`, warmup: sizes.listWarmup, runs: sizes.listRuns } },
      progress,
    );

    watch = await runInWorker(
      { kind: 'watch', plan: { endpoint, namespace: 'bench', watchers: sizes.watchers, creates: sizes.watchCreates, concurrency: sizes.concurrency, graceMs: 30_000 } },
      progress,
    );
    progress(`watch: delivered in ${watch.deliverySeconds.toFixed(2)} s, ${watch.lostTotal} lost`);
  } finally {
    progress('stopping the servers');
    await baselineServer.close();
    await cluster?.stop();
  }
  // After the rest, so the clusters it starts and stops leave nothing in the memory figure.
  const starts = await measureStarts(sizes, progress);

  const ratio = create.rate / baseline.rate;
  const listRatio = listAll.latencyMs.p50 / stringifyMs.p50;
  const coldStart = starts.fresh.full.startMs.p50;
  const rows: Row[] = [
    { measure: 'baseline: bare https POST', value: `${fmt.int(baseline.rate)} req/s` },
    { measure: 'create: POST pods', value: `${fmt.int(create.rate)} pods/s` },
    { measure: 'create / baseline', value: ratio.toFixed(2), target: `>= ${TARGETS.createRatio}`, pass: ratio >= TARGETS.createRatio },
    { measure: `create / baseline per round (${roundRatios.length})`, value: roundRatios.map((r) => r.toFixed(2)).join(' ') },
    { measure: 'create latency p50 / p95', value: `${fmt.ms(create.latencyMs.p50)} / ${fmt.ms(create.latencyMs.p95)}` },
    { measure: 'create failures', value: fmt.int(create.failed), target: '0', pass: create.failed === 0 },
    { measure: `list all ${fmt.int(listAll.items ?? 0)} pods, median`, value: fmt.ms(listAll.latencyMs.p50), target: `<= ${fmt.ms(TARGETS.listAllMs)}`, pass: listAll.latencyMs.p50 <= TARGETS.listAllMs },
    { measure: 'list all pods, p95', value: fmt.ms(listAll.latencyMs.p95) },
    { measure: 'bare JSON.stringify of the same pods, median', value: fmt.ms(stringifyMs.p50) },
    { measure: 'list all pods / bare JSON.stringify', value: listRatio.toFixed(1) },
    { measure: 'list all pods, body size', value: `${(listAll.bytes / 1e6).toFixed(1)} MB` },
    { measure: `list ?limit=500 (${listPage.items ?? 0} items), median`, value: fmt.ms(listPage.latencyMs.p50) },
    { measure: 'list ?limit=500, p95', value: fmt.ms(listPage.latencyMs.p95) },
    { measure: `watch: events lost (${watch.watchers} watchers x ${fmt.int(watch.expectedPerWatcher)})`, value: fmt.int(watch.lostTotal), target: `${TARGETS.lostEvents}`, pass: watch.lostTotal <= TARGETS.lostEvents && !watch.timedOut },
    { measure: 'watch: duplicate / out-of-order events', value: `${watch.duplicatesTotal} / ${watch.outOfOrderTotal}` },
    { measure: 'watch: writes (create + patch)', value: `${fmt.int(watch.writes.creates.rate)} + ${fmt.int(watch.writes.updates.rate)} /s` },
    { measure: 'watch: delivery time (first write to last event)', value: `${watch.deliverySeconds.toFixed(2)} s` },
    { measure: 'watch: tail (last write ack to last event)', value: fmt.ms(watch.tailMs) },
    { measure: 'watch: events delivered per second (all watchers)', value: fmt.int(watch.eventsPerSecond) },
    { measure: `memory: RSS with ${fmt.int(storedPods)} pods`, value: fmt.mib(memory.rss), target: `<= ${fmt.mib(TARGETS.rssBytes)}`, pass: memory.rss <= TARGETS.rssBytes },
    { measure: 'memory: heap used with pods', value: fmt.mib(memory.heapUsed) },
    { measure: 'memory: RSS at start (tsx, no servers)', value: fmt.mib(memoryAtStart.rss) },
    { measure: 'start: bare https server (certificate + listen), median', value: fmt.ms(starts.inProcess.https.p50) },
    { measure: 'start: embedded cluster (API server, controllers), median', value: fmt.ms(starts.inProcess.cluster.p50) },
    { measure: 'start: + node agent + Agent Sandbox, median', value: fmt.ms(starts.inProcess.full.p50) },
    { measure: 'start: embedded cluster (full) / bare https server', value: (starts.inProcess.full.p50 / starts.inProcess.https.p50).toFixed(1) },
    { measure: `fresh process (${starts.fresh.full.startMs.count}x): full cluster start(), median`, value: fmt.ms(coldStart), target: `<= ${fmt.ms(TARGETS.startMs)}`, pass: coldStart <= TARGETS.startMs },
    { measure: 'fresh process: full cluster / bare https start', value: (coldStart / starts.fresh.https.startMs.p50).toFixed(1) },
    { measure: 'fresh process: import of the cluster modules, median', value: fmt.ms(starts.fresh.full.importMs.p50) },
    { measure: 'fresh process: bare https import / start, median', value: `${fmt.ms(starts.fresh.https.importMs.p50)} / ${fmt.ms(starts.fresh.https.startMs.p50)}` },
  ];
  await reportBenchmark({
    name: 'apiserver',
    options,
    quickNote: 'sizes too small to compare with the targets',
    busyAtStart: busy,
    rows,
    figures: {
      sizes,
      gcBeforeMemory: !!gc,
      targets: TARGETS,
      results: {
        baseline,
        create,
        rounds: sizes.rounds,
        createRatio: ratio,
        memory: { storedPods, withPods: memory, atStart: memoryAtStart },
        roundRatios,
        list: { all: listAll, firstPage: listPage, stringifyMs, stringifyRatio: listRatio },
        start: starts,
        watch,
      },
    },
  });
}

async function startBaselineServer(): Promise<{ endpoint: Endpoint; close: () => Promise<void> }> {
  const tls = await generateServingCertificate();
  const server: Server = createServer({ key: tls.key, cert: tls.cert, ALPNProtocols: ['http/1.1'] }, (req, res) => {
    // Read the body as the API server must, then answer with a small JSON document.
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(BASELINE_REPLY)) });
      res.end(BASELINE_REPLY);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    endpoint: { url: `https://127.0.0.1:${port}`, ca: tls.cert },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

/** A bare JSON.stringify of the objects a list sends, timed as the list is (warm-up, then runs). */
function timeStringify(items: unknown[], warmup: number, runs: number): Summary {
  const ms: number[] = [];
  for (let run = 0; run < warmup + runs; run++) {
    const t0 = performance.now();
    JSON.stringify(items);
    if (run >= warmup) ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

type StartKind = 'https' | 'cluster' | 'full';

const START_OPTIONS: Record<Exclude<StartKind, 'https'>, EmbeddedClusterOptions> = {
  cluster: {},
  full: { node: {}, agentSandbox: 'v0.5.0' },
};

interface StartFigures {
  inProcess: Record<StartKind, Summary>;
  fresh: Record<'https' | 'full', { importMs: Summary; startMs: Summary }>;
}

/** Starts and stops each kind of server in turn, so a slow moment of the machine hits all kinds. */
async function measureStarts(sizes: Sizes, progress: (line: string) => void): Promise<StartFigures> {
  progress(`start: ${sizes.freshStarts} fresh processes each for a bare https server and the full cluster`);
  const fresh = { https: { importMs: [] as number[], startMs: [] as number[] }, full: { importMs: [] as number[], startMs: [] as number[] } };
  for (let round = 0; round < sizes.freshStarts; round++) {
    for (const kind of ['https', 'full'] as const) {
      const { importMs, startMs } = await startInFreshProcess(kind);
      fresh[kind].importMs.push(importMs);
      fresh[kind].startMs.push(startMs);
    }
  }
  progress(`start: ${sizes.starts} starts each in this process`);
  const inProcess: Record<StartKind, number[]> = { https: [], cluster: [], full: [] };
  for (let round = 0; round < sizes.starts; round++) {
    for (const kind of ['https', 'cluster', 'full'] as const) {
      const t0 = performance.now();
      const started = kind === 'https' ? await startBaselineServer() : await EmbeddedCluster.start(START_OPTIONS[kind]);
      inProcess[kind].push(performance.now() - t0);
      await (started instanceof EmbeddedCluster ? started.stop() : started.close());
    }
  }
  const figures: StartFigures = {
    inProcess: { https: summarize(inProcess.https), cluster: summarize(inProcess.cluster), full: summarize(inProcess.full) },
    fresh: {
      https: { importMs: summarize(fresh.https.importMs), startMs: summarize(fresh.https.startMs) },
      full: { importMs: summarize(fresh.full.importMs), startMs: summarize(fresh.full.startMs) },
    },
  };
  progress(`start: full cluster ${fmt.ms(figures.inProcess.full.p50)} in process, ${fmt.ms(figures.fresh.full.startMs.p50)} first in a fresh process (import ${fmt.ms(figures.fresh.full.importMs.p50)})`);
  return figures;
}

/**
 * What a process that starts one cluster pays (a lane): a fresh Node with tsx imports the modules
 * and starts once, timed from inside apart (import, start). The baseline does the same for a bare
 * https server with the same certificate code.
 */
function startInFreshProcess(kind: 'https' | 'full'): Promise<{ importMs: number; startMs: number }> {
  const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const steps =
    kind === 'https'
      ? {
          load: `const [{ createServer }, { generateServingCertificate }] = await Promise.all([import('node:https'), import(${url('../cluster/embedded/tls.ts')})]);`,
          start: `const tls = await generateServingCertificate(); const server = createServer({ key: tls.key, cert: tls.cert }); await new Promise((r) => server.listen(0, '127.0.0.1', r));`,
          stop: `server.close();`,
        }
      : {
          load: `const { EmbeddedCluster } = await import(${url('../cluster/embedded/cluster.ts')});`,
          start: `const cluster = await EmbeddedCluster.start(${JSON.stringify(START_OPTIONS.full)});`,
          stop: `await cluster.stop();`,
        };
  const code = `const { performance } = await import('node:perf_hooks');
const t0 = performance.now(); ${steps.load} const t1 = performance.now(); ${steps.start} const t2 = performance.now(); ${steps.stop}
process.stdout.write(JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1 })); process.exit(0);`;
  const args = ['--import', import.meta.resolve('tsx'), '--input-type=module', '--eval', code];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 60_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`start in a fresh process (${kind}) failed${error.killed ? ' (killed at its 60 s deadline)' : ''}: ${error.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as { importMs: number; startMs: number });
      } catch {
        reject(new Error(`start in a fresh process (${kind}) printed no figures: ${stdout}${stderr}`));
      }
    });
  });
}

/**
 * Issue 15's API server figures for `npm run bench` (figures-table.ts): GET all of 10,000 Pods
 * (median of 15, time to last byte, the client in a worker thread) against a bare JSON.stringify
 * of the same stored objects; and the full cluster's start, first in a fresh process (3), against
 * a bare https server's. The Pods are stored through the object API in process: the list, not
 * the creates, is measured here (the creates are the apiserver benchmark's).
 */
export async function apiserverFigures(options: BenchOptions, progress: (line: string) => void): Promise<Measurement[]> {
  const sizes: Sizes = options.quick ? { ...QUICK, starts: 1 } : { ...FULL, starts: 1 };
  const pods = sizes.warmup + sizes.timed;
  const cluster = await EmbeddedCluster.start();
  let listAll: GetResult;
  let stringifyMs: Summary;
  try {
    progress(`list: storing ${pods} Pods`);
    const target = cluster.api.target('v1', 'pods', 'default');
    for (let i = 0; i < pods; i++) cluster.api.create(target, JSON.parse(POD_BODY.replace('{i}', String(i))));
    const endpoint: Endpoint = { url: cluster.url, ca: cluster.certificateAuthority, token: cluster.token };
    listAll = await runInWorker({ kind: 'get', plan: { label: 'list: all pods', endpoint, path: PODS_PATH, warmup: sizes.listWarmup, runs: sizes.listRuns } }, progress);
    stringifyMs = timeStringify(cluster.store.list('pods', 'default'), sizes.listWarmup, sizes.listRuns);
  } finally {
    await cluster.stop();
  }
  const starts = await measureStarts(sizes, progress);
  const start = starts.fresh.full.startMs.p50;
  return [
    {
      id: 'list-10k',
      measured: fmt.ms(listAll.latencyMs.p50),
      values: { medianMs: listAll.latencyMs.p50, p95Ms: listAll.latencyMs.p95, stringifyMedianMs: stringifyMs.p50, items: listAll.items ?? 0 },
      ratio: listAll.latencyMs.p50 / stringifyMs.p50,
      pass: listAll.latencyMs.p50 <= TARGETS.listAllMs,
      note: `${fmt.int(listAll.items ?? 0)} Pods; JSON.stringify ${fmt.ms(stringifyMs.p50)}`,
    },
    {
      id: 'cluster-start',
      measured: fmt.ms(start),
      values: { medianMs: start, bareHttpsMs: starts.fresh.https.startMs.p50, importMs: starts.fresh.full.importMs.p50 },
      ratio: start / starts.fresh.https.startMs.p50,
      pass: start <= TARGETS.startMs,
      note: `${starts.fresh.full.startMs.count} fresh processes; module import ${fmt.ms(starts.fresh.full.importMs.p50)} apart`,
    },
  ];
}
