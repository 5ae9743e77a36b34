/**
 * `npm run bench -- explore`: how fast `npm run explore` searches on the embedded cluster — runs
 * per minute of wall time for a fixed-seed search of the reference driver without shrinking
 * (fault runs and their reference runs), against the issue's target of 10 per minute on 2 cores,
 * and the machine time per run against Sieve's 5–12 machine-minutes per test plan (its OSDI'22
 * Table 5; the target: 100 times cheaper than its cheapest). The search runs as the command runs,
 * in a process of its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { busyWarning, progressLog, reportBenchmark, type BenchOptions, type Row } from './common.ts';

/** Sieve's cheapest test plan, in machine-seconds (5 machine-minutes). */
const SIEVE_PLAN_MACHINE_SECONDS = 300;

export async function runExploreBenchmark(options: BenchOptions): Promise<void> {
  const log = progressLog('explore');
  const busyAtStart = busyWarning();
  // A search as CI runs one (10 minutes: hundreds of runs), not a handful: the command's start and
  // each batch's Playwright start are spread over the runs as they are in a real search.
  const runs = options.quick ? 6 : 90;
  const dir = await mkdtemp(join(tmpdir(), 'bench-explore-'));
  try {
    log(`npm run explore -- v1beta1 --runs ${runs} --seed 1 --no-shrink`);
    const started = performance.now();
    const search = await execa(process.execPath, ['--import', 'tsx', 'scripts/explore.ts', 'v1beta1', '--runs', String(runs), '--seed', '1', '--no-shrink', '--replays', '1', '--report-dir', dir], { reject: false, all: true });
    const seconds = (performance.now() - started) / 1000;
    const summary = /(\d+) fault runs over (\d+) programs in \d+ s; (\d+) runs in all/.exec(search.all ?? '');
    if (!summary || (search.exitCode !== 0 && search.exitCode !== 1)) throw new Error(`the search did not finish (exit ${search.exitCode}):\n${(search.all ?? '').slice(-3000)}`);
    const total = Number(summary[3]);
    const perMinute = total / (seconds / 60);
    const machineSecondsPerRun = (seconds * availableParallelism()) / total;
    const rows: Row[] = [
      { measure: 'runs per minute (fault runs and their reference runs, whole command)', value: perMinute.toFixed(1), target: '>= 10', pass: perMinute >= 10 },
      { measure: 'machine time per run', value: `${machineSecondsPerRun.toFixed(1)} s`, target: `<= ${SIEVE_PLAN_MACHINE_SECONDS / 100} s (Sieve / 100)`, pass: machineSecondsPerRun <= SIEVE_PLAN_MACHINE_SECONDS / 100 },
      { measure: 'findings (reference driver)', value: search.exitCode === 0 ? 'none' : 'some (see the search output)' },
    ];
    await reportBenchmark({
      name: 'explore',
      options,
      quickNote: `${runs} fault runs`,
      subtitle: `${runs} fault runs, seed 1, no shrinking`,
      busyAtStart,
      rows,
      figures: { runs, totalRuns: total, seconds, perMinute, machineSecondsPerRun, sievePlanMachineSeconds: SIEVE_PLAN_MACHINE_SECONDS },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
