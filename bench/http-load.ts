/**
 * The client side of the benchmarks: one request loop, used unchanged against the bare
 * baseline server and against the embedded cluster, plus timed GETs (the watch reader is watch-delivery.ts).
 *
 * Plain `node:https` rather than a load generator (autocannon, k6, wrk): the point of the
 * baseline is that *the same* client code drives both servers, so the ratio measures the
 * server and not two different clients, and a library would add its own per-request
 * overhead, HTTP parser or connection handling that we could not hold constant.
 *
 * Everything here runs inside a worker thread (see worker.ts) so the client does not share
 * the server's event loop.
 */
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface Endpoint {
  url: string;
  /** PEM of the CA that signed the server's certificate: TLS is verified, as kubectl does. */
  ca: string;
  token?: string;
}

interface Reply {
  status: number;
  bytes: number;
  body: Buffer;
}

export type Progress = (line: string) => void;

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : NaN,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** `{i}` in a path or body template becomes the request's index. */
function fill(template: string, i: number): string {
  return template.includes('{i}') ? template.replaceAll('{i}', String(i)) : template;
}

export function send(agent: Agent | false, endpoint: Endpoint, method: string, path: string, body?: string, contentType = 'application/json'): Promise<Reply> {
  const url = new URL(endpoint.url);
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (endpoint.token) headers.authorization = `Bearer ${endpoint.token}`;
  if (body !== undefined) {
    headers['content-type'] = contentType;
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, method, path, headers, agent, ca: endpoint.ca }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---- the request loop ----

export interface LoadPlan {
  label: string;
  endpoint: Endpoint;
  method: string;
  /** Path and body templates; `{i}` is replaced by the request index. */
  path: string;
  body?: string;
  contentType?: string;
  expectStatus: number;
  /** Untimed requests first (indices 0..warmup-1) over the same connections. */
  warmup: number;
  /** Timed requests (indices warmup..warmup+count-1). */
  count: number;
  /** Requests in flight at once, each lane on its own keep-alive connection. */
  concurrency: number;
}

export interface LoadResult {
  label: string;
  requests: number;
  warmup: number;
  concurrency: number;
  seconds: number;
  /** Timed requests per second, failed ones included. */
  rate: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  firstFailure?: string;
  latencyMs: Summary;
  requestBytes: number;
  responseBytes: number;
}

export async function runLoad(plan: LoadPlan, progress: Progress = () => {}): Promise<LoadResult> {
  const { results } = await runAlternating({ plans: [plan], rounds: 1 }, progress);
  return results[0];
}

export interface AlternatingPlan {
  /** Each plan's `warmup` runs once up front; its `count` is split evenly over the rounds. */
  plans: LoadPlan[];
  rounds: number;
}

export interface AlternatingResult {
  /** Per plan, all rounds together. */
  results: LoadResult[];
  /** Per round, per plan. */
  rounds: LoadResult[][];
}

/**
 * Runs several load plans in turn, round after round (A B A B ...), each over its own
 * keep-alive connections. Interleaving spreads slow drifts of the machine (other processes,
 * CPU frequency) over all plans alike, so their ratio is steadier than back-to-back runs.
 */
export async function runAlternating(plan: AlternatingPlan, progress: Progress = () => {}): Promise<AlternatingResult> {
  const agents = plan.plans.map((p) => new Agent({ keepAlive: true, maxSockets: p.concurrency, ca: p.endpoint.ca }));
  try {
    for (const [i, p] of plan.plans.entries()) {
      if (p.warmup <= 0) continue;
      progress(`${p.label}: warming up with ${p.warmup} requests`);
      await loop(agents[i], p, 0, p.warmup, () => {});
    }
    const rounds: Raw[][] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const row: Raw[] = [];
      for (const [i, p] of plan.plans.entries()) {
        const per = Math.floor(p.count / plan.rounds) + (round < p.count % plan.rounds ? 1 : 0);
        const first = p.warmup + rounds.reduce((n, r) => n + r[i].requests, 0);
        const started = performance.now();
        const label = plan.rounds > 1 ? `${p.label} (round ${round + 1}/${plan.rounds})` : p.label;
        const raw = await loop(agents[i], p, first, per, (done) => {
          const seconds = (performance.now() - started) / 1000;
          progress(`${label}: ${done}/${per} (${Math.round(done / seconds)}/s)`);
        });
        if (plan.rounds > 1) progress(`${label}: ${Math.round(raw.rate)}/s`);
        row.push(raw);
      }
      rounds.push(row);
    }
    const finish = (p: LoadPlan, raws: Raw[]): LoadResult => {
      const latencies = new Float64Array(raws.reduce((n, r) => n + r.latencies.length, 0));
      let offset = 0;
      for (const r of raws) latencies.set(r.latencies, (offset += r.latencies.length) - r.latencies.length);
      const statuses: Record<string, number> = {};
      for (const r of raws) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
      const requests = raws.reduce((n, r) => n + r.requests, 0);
      const seconds = raws.reduce((n, r) => n + r.seconds, 0);
      const ok = raws.reduce((n, r) => n + r.ok, 0);
      return {
        label: p.label,
        warmup: p.warmup,
        concurrency: p.concurrency,
        requests,
        seconds,
        rate: requests / seconds,
        ok,
        failed: requests - ok,
        statuses,
        firstFailure: raws.find((r) => r.firstFailure)?.firstFailure,
        latencyMs: summarize(latencies),
        requestBytes: raws.reduce((n, r) => n + r.requestBytes, 0),
        responseBytes: raws.reduce((n, r) => n + r.responseBytes, 0),
      };
    };
    return {
      results: plan.plans.map((p, i) => finish(p, rounds.map((r) => r[i]))),
      rounds: rounds.map((row) => row.map((raw, i) => finish(plan.plans[i], [raw]))),
    };
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

type Raw = Omit<LoadResult, 'label' | 'warmup' | 'concurrency' | 'latencyMs'> & { latencies: Float64Array };

async function loop(
  agent: Agent,
  plan: LoadPlan,
  first: number,
  count: number,
  tick: (done: number) => void,
): Promise<Raw> {
  const latencies = new Float64Array(count);
  const statuses: Record<string, number> = {};
  let next = 0;
  let done = 0;
  let ok = 0;
  let firstFailure: string | undefined;
  let requestBytes = 0;
  let responseBytes = 0;
  const ticker = setInterval(() => tick(done), 2000);
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const k = next++;
      const i = first + k;
      const path = fill(plan.path, i);
      const body = plan.body === undefined ? undefined : fill(plan.body, i);
      const t0 = performance.now();
      try {
        const reply = await send(agent, plan.endpoint, plan.method, path, body, plan.contentType);
        statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
        responseBytes += reply.bytes;
        if (reply.status === plan.expectStatus) ok++;
        else firstFailure ??= `${plan.method} ${path}: HTTP ${reply.status} ${reply.body.toString('utf8').slice(0, 300)}`;
      } catch (error) {
        statuses.network = (statuses.network ?? 0) + 1;
        firstFailure ??= `${plan.method} ${path}: ${(error as Error).message}`;
      }
      latencies[k] = performance.now() - t0;
      requestBytes += body ? Buffer.byteLength(body) : 0;
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: plan.concurrency }, lane));
  } finally {
    clearInterval(ticker);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    requests: count,
    seconds,
    rate: count / seconds,
    ok,
    failed: count - ok,
    statuses,
    firstFailure,
    latencies,
    requestBytes,
    responseBytes,
  };
}

// ---- timed GETs ----

export interface GetPlan {
  label: string;
  endpoint: Endpoint;
  path: string;
  warmup: number;
  runs: number;
}

export interface GetResult {
  label: string;
  path: string;
  /** Time to the last byte of the body, per run (parsing excluded). */
  ms: number[];
  latencyMs: Summary;
  status: number;
  bytes: number;
  items?: number;
  continue: boolean;
  remainingItemCount?: number;
}

/** One request at a time over one keep-alive connection. */
export async function timeGets(plan: GetPlan, progress: Progress = () => {}): Promise<GetResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: plan.endpoint.ca });
  try {
    const ms: number[] = [];
    let last: Reply | undefined;
    for (let run = 0; run < plan.warmup + plan.runs; run++) {
      const t0 = performance.now();
      last = await send(agent, plan.endpoint, 'GET', plan.path);
      const elapsed = performance.now() - t0;
      if (last.status !== 200) throw new Error(`GET ${plan.path}: HTTP ${last.status} ${last.body.toString('utf8').slice(0, 300)}`);
      if (run >= plan.warmup) ms.push(elapsed);
      if (run === plan.warmup) progress(`${plan.label}: first timed run ${elapsed.toFixed(1)} ms, ${(last.bytes / 1e6).toFixed(1)} MB`);
    }
    const list = JSON.parse(last!.body.toString('utf8')) as { items?: unknown[]; metadata?: { continue?: string; remainingItemCount?: number } };
    return {
      label: plan.label,
      path: plan.path,
      ms,
      latencyMs: summarize(ms),
      status: last!.status,
      bytes: last!.bytes,
      items: list.items?.length,
      continue: !!list.metadata?.continue,
      remainingItemCount: list.metadata?.remainingItemCount,
    };
  } finally {
    agent.destroy();
  }
}

// ---- interleaved GETs: several servers timed in the same rounds ----

export interface InterleavedGetPlan {
  /** The same path on each endpoint, e.g. directly and through a proxy. */
  endpoints: { label: string; endpoint: Endpoint }[];
  path: string;
  /** Untimed rounds first (JIT, TLS sessions, keep-alive connections). */
  warmup: number;
  rounds: number;
}

export interface InterleavedGetResult {
  path: string;
  /** Per endpoint, in the plan's order: time to the last byte of each timed GET. */
  results: { label: string; ms: number[]; latencyMs: Summary }[];
}

/**
 * One GET per endpoint per round, one at a time, each endpoint over its own keep-alive
 * connection; the order within a round alternates, so neither endpoint always goes first
 * (a slow moment of the machine, or a warm cache, hits both alike).
 */
export async function timeInterleavedGets(plan: InterleavedGetPlan, progress: Progress = () => {}): Promise<InterleavedGetResult> {
  const agents = plan.endpoints.map(({ endpoint }) => new Agent({ keepAlive: true, maxSockets: 1, ca: endpoint.ca }));
  const ms = plan.endpoints.map(() => [] as number[]);
  try {
    for (let round = 0; round < plan.warmup + plan.rounds; round++) {
      const order = plan.endpoints.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) {
        const t0 = performance.now();
        const reply = await send(agents[i], plan.endpoints[i].endpoint, 'GET', plan.path);
        const elapsed = performance.now() - t0;
        if (reply.status !== 200) throw new Error(`GET ${plan.path} (${plan.endpoints[i].label}): HTTP ${reply.status} ${reply.body.toString('utf8').slice(0, 300)}`);
        if (round >= plan.warmup) ms[i].push(elapsed);
      }
      if (round === plan.warmup) progress(`timing ${plan.rounds} rounds of ${plan.endpoints.map((e) => e.label).join(' + ')}`);
    }
    return { path: plan.path, results: plan.endpoints.map(({ label }, i) => ({ label, ms: ms[i], latencyMs: summarize(ms[i]) })) };
  } finally {
    for (const agent of agents) agent.destroy();
  }
}
