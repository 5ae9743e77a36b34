/**
 * `npm run bench -- tests`: where `npm test`'s time goes. Runs the unit project as CI runs it
 * (CI=true: its workers, retries off), and reads what the test-cost reporter measured
 * (fixtures/reporters/test-cost.ts): the run's wall time against issue 25's target (<= 8 min
 * on 2 cores), the workers' busy time and CPU time, and the 15 slowest test files with their
 * wall and CPU time. `--quick` runs the timeline's tests only, to try the benchmark itself.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { costByFile, renderCostTable, TEST_COST_FILE, type CostReport } from '../fixtures/reporters/test-cost.ts';
import { machine, progressLog, renderTable, writeReport, type BenchOptions, type Row } from './common.ts';
import type { Measurement } from './figures-table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_MINUTES = 8;

interface SuiteRun {
  report: CostReport;
  exitCode: number;
  minutes: number;
  files: ReturnType<typeof costByFile>;
  workerMs: number;
  /** Workers' and their children's CPU; undefined without /proc. */
  cpuMs: number | undefined;
}

/** Runs `npm test` as CI does (its workers, retries off) and reads what the test-cost reporter measured. */
async function measureSuite(options: BenchOptions, log: (line: string) => void): Promise<SuiteRun> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-tests-'));
  const costFile = join(dir, 'test-cost.json');
  try {
    log(`running ${options.quick ? 'the timeline tests' : '`npm test`'} as CI does; this takes minutes`);
    // The test run's own output (a dot per test, then its failures) is the progress, on stderr.
    const done = await execa(join(ROOT, 'node_modules/.bin/playwright'), ['test', '--project=unit*', '--reporter=dot,./fixtures/reporters/test-cost.ts', ...(options.quick ? ['timeline/'] : [])], {
      cwd: ROOT,
      reject: false,
      stdio: ['ignore', process.stderr, process.stderr],
      // Without a machine-wide NODE_EXTRA_CA_CERTS, as .ci/run runs it: with one, every Node process starts on ~50 ms more CPU.
      env: { CI: 'true', [TEST_COST_FILE]: costFile, NODE_EXTRA_CA_CERTS: undefined },
    });
    let report: CostReport;
    try {
      report = JSON.parse(readFileSync(costFile, 'utf8')) as CostReport;
    } catch {
      throw new Error(`the test run wrote no cost report (exit ${done.exitCode}); its output is above`);
    }
    const files = costByFile(report.tests);
    return {
      report,
      exitCode: done.exitCode ?? 1,
      minutes: report.runWallMs / 60_000,
      files,
      workerMs: files.reduce((sum, f) => sum + f.wallMs, 0),
      cpuMs: files.every((f) => f.cpuMs !== undefined) ? files.reduce((sum, f) => sum + f.cpuMs!, 0) : undefined,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Issue 25's `npm test` figure for `npm run bench` (figures-table.ts). */
export async function testSuiteFigures(options: BenchOptions, log: (line: string) => void): Promise<Measurement[]> {
  const run = await measureSuite(options, log);
  const cores = availableParallelism();
  const failed = run.exitCode !== 0;
  return [
    {
      id: 'npm-test',
      measured: `${run.minutes.toFixed(1)} min`,
      values: { minutes: run.minutes, workerMinutes: run.workerMs / 60_000, cpuMinutes: run.cpuMs === undefined ? NaN : run.cpuMs / 60_000, cores },
      ratio: run.cpuMs === undefined ? undefined : run.report.runWallMs / (run.cpuMs / cores),
      pass: !options.quick && !failed && run.minutes <= TARGET_MINUTES,
      note: failed ? `tests FAILED, exit ${run.exitCode}` : options.quick ? 'QUICK: the timeline tests only' : undefined,
    },
  ];
}

export async function runTestSuiteBenchmark(options: BenchOptions): Promise<void> {
  const log = progressLog('tests');
  const { report, exitCode, minutes, files, workerMs, cpuMs } = await measureSuite(options, log);
  const failed = exitCode !== 0;
  const rows: Row[] = [
    { measure: `npm test, wall time (${report.tests.length} tests)`, value: `${minutes.toFixed(1)} min${failed ? ' (tests FAILED)' : ''}`, ...(options.quick ? {} : { target: `<= ${TARGET_MINUTES} min`, pass: minutes <= TARGET_MINUTES && !failed }) },
    { measure: `workers' busy time (${report.workers} workers)`, value: `${(workerMs / 60_000).toFixed(1)} min` },
    { measure: 'CPU time (workers and their children)', value: cpuMs === undefined ? 'n/a (no /proc)' : `${(cpuMs / 60_000).toFixed(1)} min` },
    { measure: 'CPU / wall', value: cpuMs === undefined ? 'n/a' : `${(cpuMs / report.runWallMs).toFixed(2)} cores busy on average` },
  ];
  process.stdout.write(renderTable('npm test on this machine', rows));
  process.stdout.write(`\n${renderCostTable(report)}\n`);
  const file = await writeReport('tests', { machine: machine(), quick: !!options.quick, exitCode, runWallMs: report.runWallMs, workers: report.workers, files });
  process.stdout.write(`\nwritten: ${file}\n`);
}
