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
 *
 * The servers run on this (main) thread; the client runs in a worker thread (worker.ts).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { generateServingCertificate } from '../cluster/embedded/tls.ts';
import type { Endpoint, GetResult, LoadPlan, LoadResult } from './http-load.ts';
import type { WatchResult } from './watch-delivery.ts';
import { busyWarning, exposeGc, fmt, progressLog, reportBenchmark, settledMemory, type BenchOptions, type Row } from './common.ts';
import { runInWorker } from './worker.ts';

const TARGETS = {
  /** Pod creates per second as a fraction of the bare server's requests per second. */
  createRatio: 0.4,
  /** Process RSS with 10,000 Pods stored. */
  rssBytes: 300 * 2 ** 20,
  lostEvents: 0,
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
}

const FULL: Sizes = { concurrency: 16, warmup: 1_000, timed: 9_000, rounds: 3, listWarmup: 2, listRuns: 15, watchers: 10, watchCreates: 5_000 };
const QUICK: Sizes = { concurrency: 16, warmup: 200, timed: 800, rounds: 2, listWarmup: 1, listRuns: 5, watchers: 10, watchCreates: 500 };

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

  const ratio = create.rate / baseline.rate;
  const rows: Row[] = [
    { measure: 'baseline: bare https POST', value: `${fmt.int(baseline.rate)} req/s` },
    { measure: 'create: POST pods', value: `${fmt.int(create.rate)} pods/s` },
    { measure: 'create / baseline', value: ratio.toFixed(2), target: `>= ${TARGETS.createRatio}`, pass: ratio >= TARGETS.createRatio },
    { measure: `create / baseline per round (${roundRatios.length})`, value: roundRatios.map((r) => r.toFixed(2)).join(' ') },
    { measure: 'create latency p50 / p95', value: `${fmt.ms(create.latencyMs.p50)} / ${fmt.ms(create.latencyMs.p95)}` },
    { measure: 'create failures', value: fmt.int(create.failed), target: '0', pass: create.failed === 0 },
    { measure: `list all ${fmt.int(listAll.items ?? 0)} pods, median`, value: fmt.ms(listAll.latencyMs.p50) },
    { measure: 'list all pods, p95', value: fmt.ms(listAll.latencyMs.p95) },
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
      targets: { createRatio: TARGETS.createRatio, rssBytes: TARGETS.rssBytes, lostEvents: TARGETS.lostEvents },
      results: {
        baseline,
        create,
        rounds: sizes.rounds,
        createRatio: ratio,
        memory: { storedPods, withPods: memory, atStart: memoryAtStart },
        roundRatios,
        list: { all: listAll, firstPage: listPage },
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
