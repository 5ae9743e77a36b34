/**
 * Watch delivery under load, the client side of the apiserver benchmark's watch figure:
 * watchers on `?watch=true` while ConfigMaps are created and patched through the same request
 * loop as the other figures (http-load.ts); events are counted per watcher. Runs in a worker
 * thread (worker.ts), like every client task.
 */
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { runLoad, send, type Endpoint, type LoadResult, type Progress } from './http-load.ts';

export interface WatchPlan {
  endpoint: Endpoint;
  namespace: string;
  watchers: number;
  /** ConfigMaps created, then each updated once: creates + updates changes in all. */
  creates: number;
  concurrency: number;
  /** How long to wait for missing events after the last write was acknowledged. */
  graceMs: number;
}

interface WatcherReport {
  received: number;
  unique: number;
  duplicates: number;
  outOfOrder: number;
  lost: number;
  /** ms from the first write to this watcher's last event. */
  lastEventMs: number;
  errors: string[];
}

export interface WatchResult {
  watchers: number;
  startResourceVersion: string;
  writes: { creates: LoadResult; updates: LoadResult };
  expectedPerWatcher: number;
  perWatcher: WatcherReport[];
  lostTotal: number;
  duplicatesTotal: number;
  outOfOrderTotal: number;
  /** First write sent to last expected event received by the slowest watcher. */
  deliverySeconds: number;
  /** Last write acknowledged to last event received by the slowest watcher. */
  tailMs: number;
  /** Events received by all watchers together per second of delivery time. */
  eventsPerSecond: number;
  timedOut: boolean;
}

class Watcher {
  received = 0;
  readonly revisions = new Set<number>();
  outOfOrder = 0;
  lastRevision = 0;
  lastEventAt = 0;
  ended = false;
  readonly errors: string[] = [];
  private pending = '';
  private req?: ReturnType<typeof request>;

  constructor(private readonly prefix: string) {}

  /** Resolves once the server answered with the stream's headers. */
  open(endpoint: Endpoint, path: string): Promise<void> {
    const url = new URL(endpoint.url);
    return new Promise((resolve, reject) => {
      // Own connection per watcher (agent: false), as separate informers would have.
      this.req = request(
        { hostname: url.hostname, port: url.port, path, agent: false, ca: endpoint.ca, headers: { authorization: `Bearer ${endpoint.token}`, accept: 'application/json' } },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
            res.resume();
            return;
          }
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => this.feed(chunk));
          res.on('end', () => (this.ended = true));
          res.on('error', (error) => this.errors.push(error.message));
          resolve();
        },
      );
      this.req.on('error', (error) => {
        if (!this.ended) this.errors.push(error.message);
        reject(error);
      });
      this.req.end();
    });
  }

  close(): void {
    this.ended = true;
    this.req?.destroy();
  }

  private feed(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop()!;
    for (const line of lines) {
      if (!line) continue;
      const event = JSON.parse(line) as { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; message?: string } };
      if (event.type === 'ERROR') {
        this.errors.push(`ERROR event: ${event.object.message ?? line.slice(0, 200)}`);
        continue;
      }
      if (event.type === 'BOOKMARK' || !event.object.metadata?.name?.startsWith(this.prefix)) continue;
      const revision = Number(event.object.metadata.resourceVersion);
      this.received++;
      if (revision <= this.lastRevision) this.outOfOrder++;
      this.lastRevision = Math.max(this.lastRevision, revision);
      this.revisions.add(revision);
      this.lastEventAt = performance.now();
    }
  }
}

export async function runWatch(plan: WatchPlan, progress: Progress = () => {}): Promise<WatchResult> {
  const { endpoint, namespace } = plan;
  const setup = new Agent({ keepAlive: true, maxSockets: 1, ca: endpoint.ca });
  const prefix = 'bench-cm-';
  const watchers = Array.from({ length: plan.watchers }, () => new Watcher(prefix));
  try {
    const ns = await send(setup, endpoint, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    if (ns.status !== 201 && ns.status !== 409) throw new Error(`create namespace ${namespace}: HTTP ${ns.status} ${ns.body.toString('utf8').slice(0, 300)}`);
    const list = await send(setup, endpoint, 'GET', `/api/v1/namespaces/${namespace}/configmaps`);
    if (list.status !== 200) throw new Error(`list configmaps: HTTP ${list.status}`);
    const rv = (JSON.parse(list.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const path = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${rv}`;
    await Promise.all(watchers.map((w) => w.open(endpoint, path)));
    progress(`watch: ${plan.watchers} watchers open from resourceVersion ${rv}; writing ${plan.creates} creates + ${plan.creates} updates`);

    const status = () => `watchers have ${Math.min(...watchers.map((w) => w.revisions.size))}..${Math.max(...watchers.map((w) => w.revisions.size))} events`;
    const t0 = performance.now();
    const creates = await runLoad(
      {
        label: 'watch: configmap creates',
        endpoint,
        method: 'POST',
        path: `/api/v1/namespaces/${namespace}/configmaps`,
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}{i}` }, data: { value: 'created' } }),
        expectStatus: 201,
        warmup: 0,
        count: plan.creates,
        concurrency: plan.concurrency,
      },
      (line) => progress(`${line}; ${status()}`),
    );
    const updates = await runLoad(
      {
        label: 'watch: configmap updates (merge patch)',
        endpoint,
        method: 'PATCH',
        path: `/api/v1/namespaces/${namespace}/configmaps/${prefix}{i}`,
        body: JSON.stringify({ data: { value: 'updated' } }),
        contentType: 'application/merge-patch+json',
        expectStatus: 200,
        warmup: 0,
        count: plan.creates,
        concurrency: plan.concurrency,
      },
      (line) => progress(`${line}; ${status()}`),
    );
    const writesDone = performance.now();
    // Every successful write is one change, so one event for every watcher.
    const expected = creates.ok + updates.ok;
    let timedOut = false;
    let lastReport = writesDone;
    while (watchers.some((w) => w.revisions.size < expected && !w.ended)) {
      const now = performance.now();
      if (now - writesDone > plan.graceMs) {
        timedOut = true;
        break;
      }
      if (now - lastReport > 2000) {
        progress(`watch: writes done, waiting for events; ${status()} of ${expected}`);
        lastReport = now;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const lastEvent = Math.max(...watchers.map((w) => w.lastEventAt));
    const perWatcher = watchers.map(
      (w): WatcherReport => ({
        received: w.received,
        unique: w.revisions.size,
        duplicates: w.received - w.revisions.size,
        outOfOrder: w.outOfOrder,
        lost: Math.max(0, expected - w.revisions.size),
        lastEventMs: w.lastEventAt ? w.lastEventAt - t0 : NaN,
        errors: [...w.errors, ...(w.ended && w.revisions.size < expected ? ['stream ended early'] : [])],
      }),
    );
    const deliverySeconds = (lastEvent - t0) / 1000;
    return {
      watchers: plan.watchers,
      startResourceVersion: rv,
      writes: { creates, updates },
      expectedPerWatcher: expected,
      perWatcher,
      lostTotal: perWatcher.reduce((n, w) => n + w.lost, 0),
      duplicatesTotal: perWatcher.reduce((n, w) => n + w.duplicates, 0),
      outOfOrderTotal: perWatcher.reduce((n, w) => n + w.outOfOrder, 0),
      deliverySeconds,
      tailMs: Math.max(0, lastEvent - writesDone),
      eventsPerSecond: perWatcher.reduce((n, w) => n + w.unique, 0) / deliverySeconds,
      timedOut,
    };
  } finally {
    for (const w of watchers) w.close();
    setup.destroy();
  }
}
