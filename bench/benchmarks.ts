/**
 * The benchmarks `npm run bench` knows, one entry each, loaded only when asked for, and its
 * command line checked (scripts/bench.ts runs them; the docs test checks documented commands).
 */
import { parseArgs } from 'node:util';
import type { BenchOptions } from './common.ts';

export interface Benchmark {
  summary: string;
  run(options: BenchOptions): Promise<void>;
}

/** The registry: one entry per benchmark, loaded only when asked for. */
export const BENCHMARKS: Record<string, Benchmark> = {
  apiserver: {
    summary: 'embedded API server: Pod create rate vs a bare https server, list at 10k Pods, watch delivery, RSS',
    run: async (options) => (await import('./apiserver.ts')).runApiserverBenchmark(options),
  },
  pods: {
    summary: 'node agent: Pod create -> Ready latency vs spawning the same program directly (sleep, workload + probe), RSS per running Pod',
    run: async (options) => (await import('./pod-startup.ts')).runPodsBenchmark(options),
  },
  stop: {
    summary: 'reference driver: stop latency vs its lower bound (supervisor + workload termination from the Pods\' watched changes); suspend-first for contrast',
    run: async (options) => (await import('./stop-latency.ts')).runStopBenchmark(options),
  },
  'driver-scale': {
    summary: 'reference driver as an external process: 3 rounds of 100 sandboxes at once through create -> stop -> start -> delete; wall time, driver RSS peak and once idle, growth across rounds',
    run: async (options) => (await import('./driver-scale.ts')).runDriverScaleBenchmark(options),
  },
  proxy: {
    summary: 'fault proxy: GETs of one Pod directly and through the proxy (no fault in force), interleaved; median, p99, proxy/direct',
    run: async (options) => (await import('./proxy-latency.ts')).runProxyBenchmark(options),
  },
  tests: {
    summary: '`npm test` as CI runs it: wall time against 8 min on 2 cores, workers\' CPU time, the 15 slowest test files (wall and CPU)',
    run: async (options) => (await import('./test-suite.ts')).runTestSuiteBenchmark(options),
  },
  explore: {
    summary: '`npm run explore` on the embedded cluster: runs per minute of a fixed-seed search of the reference driver (target 10 on 2 cores), machine time per run against Sieve\'s per-plan cost',
    run: async (options) => (await import('./explore-speed.ts')).runExploreBenchmark(options),
  },
  lanes: {
    summary: 'conformance lanes on the embedded cluster: wall time of one lane and of all six side by side, timeline recorder overhead',
    run: async (options) => (await import('./lanes.ts')).runLanesBenchmark(options),
  },
};

/** `npm run bench`'s options. */
export const BENCH_OPTIONS = { quick: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

/** `npm run bench -- ...` checked: an unknown option or benchmark throws. */
export function parseBenchArguments(argv: string[]): { quick: boolean; help: boolean; names: string[] } {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: BENCH_OPTIONS });
  const unknown = positionals.filter((name) => !Object.hasOwn(BENCHMARKS, name));
  if (unknown.length && !values.help) throw new Error(`unknown benchmark${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (known: ${Object.keys(BENCHMARKS).join(', ')})`);
  return { quick: !!values.quick, help: !!values.help, names: [...new Set(positionals)] };
}
