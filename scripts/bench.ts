#!/usr/bin/env tsx
/**
 * `npm run bench -- <name>... [--quick]`: runs named benchmarks from bench/, one after the
 * other; with no name, the benchmarks behind issue 15's figures and one table of them
 * (bench/issue-figures.ts). Benchmarks are measurements, not tests: a missed target is
 * printed, the exit code stays 0; only a benchmark that cannot run exits non-zero.
 */
import { parseArgs } from 'node:util';
import type { BenchOptions } from '../bench/common.ts';

interface Benchmark {
  summary: string;
  run(options: BenchOptions): Promise<void>;
}

/** The registry: one entry per benchmark, loaded only when asked for. */
const BENCHMARKS: Record<string, Benchmark> = {
  apiserver: {
    summary: 'embedded API server: Pod create rate vs a bare https server, list at 10k Pods, watch delivery, RSS',
    run: async (options) => (await import('../bench/apiserver.ts')).runApiserverBenchmark(options),
  },
  pods: {
    summary: 'node agent: Pod create -> Ready latency vs spawning the same program directly (sleep, workload + probe), RSS per running Pod',
    run: async (options) => (await import('../bench/pod-startup.ts')).runPodsBenchmark(options),
  },
  stop: {
    summary: 'reference driver: stop latency vs its lower bound (supervisor + workload termination from the Pods\' watched changes); suspend-first for contrast',
    run: async (options) => (await import('../bench/stop-latency.ts')).runStopBenchmark(options),
  },
  'driver-scale': {
    summary: 'reference driver as an external process: 3 rounds of 100 sandboxes at once through create -> stop -> start -> delete; wall time, driver RSS peak and once idle, growth across rounds',
    run: async (options) => (await import('../bench/driver-scale.ts')).runDriverScaleBenchmark(options),
  },
  proxy: {
    summary: 'fault proxy: GETs of one Pod directly and through the proxy (no fault in force), interleaved; median, p99, proxy/direct',
    run: async (options) => (await import('../bench/proxy-latency.ts')).runProxyBenchmark(options),
  },
  tests: {
    summary: '`npm test` as CI runs it: wall time against 8 min on 2 cores, workers\' CPU time, the 15 slowest test files (wall and CPU)',
    run: async (options) => (await import('../bench/test-suite.ts')).runTestSuiteBenchmark(options),
  },
  lanes: {
    summary: 'conformance lanes on the embedded cluster: wall time of one lane and of all six side by side, timeline recorder overhead',
    run: async (options) => (await import('../bench/lanes.ts')).runLanesBenchmark(options),
  },
};

function help(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((n) => n.length));
  const list = Object.entries(BENCHMARKS)
    .map(([name, b]) => `  ${name.padEnd(width)}  ${b.summary}`)
    .join('\n');
  return `Usage: npm run bench                         (issue 15's figures: one table, reports/bench.json)
       npm run bench -- <benchmark>... [options]

Benchmarks:
${list}

Options:
  --quick      small sizes for a smoke run (figures not comparable with the targets)
  -h, --help   show this help

Figures are printed as a table (progress goes to stderr) and written to reports/bench/<benchmark>.json
(with no name: one table of every issue-15 figure, written to reports/bench.json).
A missed target is reported as MISSED; the exit code is still 0.
`;
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${help()}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(help());
  process.exit(0);
}
if (positionals.length === 0) {
  const { runIssueFigures } = await import('../bench/issue-figures.ts');
  let code: number;
  try {
    code = await runIssueFigures({ quick: !!values.quick });
  } catch (error) {
    process.stderr.write(`error: benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
    code = 1;
  }
  process.exit(code);
}
const unknown = positionals.filter((name) => !Object.hasOwn(BENCHMARKS, name));
if (unknown.length) fail(`unknown benchmark${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (known: ${Object.keys(BENCHMARKS).join(', ')})`);

try {
  for (const name of new Set(positionals)) await BENCHMARKS[name].run({ quick: !!values.quick });
} catch (error) {
  process.stderr.write(`error: benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
// Every benchmark closes its servers and workers; exiting explicitly guards against a
// stray handle keeping a finished measurement alive.
process.exit(0);
