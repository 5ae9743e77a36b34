import { defineConfig, type ReporterDescription } from '@playwright/test';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { RunOptions } from './fixtures/run-value.ts';
import { recordWorkerPid } from './fixtures/reporters/test-cost.ts';
import { FIXTURES_BUNDLE_ENV, readLaneRun } from './lanes/run/lane-run.ts';

/**
 * The Kubernetes client, loaded here through require() of an ES module (Node >= 20.19) before any
 * test file: Playwright loads this config first in every worker, and the test files' `import`s of
 * the package then get the same module instance from Node's cache. Imported through Playwright's
 * module hooks instead, its ~830 modules cost every worker ~1 s of CPU (require: ~0.3 s); a lane
 * starts up to 3 workers per core. An older Node without require(esm) loads it as before.
 * Not in a lane's workers that load the bundled fixtures (lanes/run/fixtures-bundle.ts): the
 * bundle carries its own copy.
 */
if (!process.env[FIXTURES_BUNDLE_ENV] || process.env[FIXTURES_BUNDLE_ENV] === 'off') {
  try {
    createRequire(import.meta.url)('@kubernetes/client-node');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error;
  }
}

/**
 * In a worker of a run with the test-cost reporter: tell it this worker's process id (Playwright
 * does not), so it can read the worker's CPU time from /proc. The config is loaded in each worker
 * after Playwright has set TEST_WORKER_INDEX.
 */
recordWorkerPid();

/** Set by `npm run lane` (CONFORMANCE_RUN): the lane, its cluster, the driver under test, where reports go. */
const run = readLaneRun();

const reporters: ReporterDescription[] = run
  ? [
      ['list'],
      ['html', { outputFolder: `${run.reportDir}/html`, open: 'never' }],
      ['junit', { outputFile: `${run.reportDir}/junit.xml` }],
      ['json', { outputFile: `${run.reportDir}/results.json` }],
      ['./fixtures/reporters/test-cost.ts', { outputFile: `${run.reportDir}/test-cost.json` }],
      ['./fixtures/reporters/plain-summary.ts'],
    ]
  : [['list'], ['./fixtures/reporters/test-cost.ts', { print: true }], ['./fixtures/reporters/plain-summary.ts']];

/**
 * One runner for everything. `unit` runs the `*.test.ts` files beside the code they test. The
 * scenario project runs `scenarios/` against the lane `npm run lane` brought up: it is named
 * after the lane and hands the run value to the fixtures. Without a lane it is `scenarios`,
 * which lists (`npm run lane -- --list`) but cannot run.
 */
export default defineConfig<object, RunOptions>({
  testDir: '.',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // `npm test`: most tests wait on a cluster, a process or a lane far more than they compute
  // (on 2 cores, 2 workers kept ~1.2 cores busy), so twice as many workers as cores, and never
  // fewer than 4. A lane's runner sets its own count (lanes/run/lane-job.ts).
  workers: Math.max(4, 2 * availableParallelism()),
  timeout: 60_000,
  reporter: reporters,
  outputDir: run ? `${run.reportDir}/test-results` : 'test-results',
  projects: [
    {
      name: 'unit',
      testMatch: ['bench/**/*.test.ts', 'cluster/**/*.test.ts', 'driver/**/*.test.ts', 'faults/**/*.test.ts', 'fixtures/**/*.test.ts', 'timeline/**/*.test.ts', 'lanes/**/*.test.ts', 'scripts/**/*.test.ts'],
    },
    {
      name: run?.lane.name ?? 'scenarios',
      testDir: 'scenarios',
      testMatch: '**/*.spec.ts',
      timeout: 180_000,
      use: { run },
    },
  ],
});
