import { defineConfig, type ReporterDescription } from '@playwright/test';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RunOptions } from './fixtures/run-value.ts';
import { bundleStepLocations } from './fixtures/reporters/bundle-step-locations.ts';
import { recordWorkerPid } from './fixtures/reporters/test-cost.ts';
import { FIXTURES_BUNDLE_ENV, readLaneRun, yourScenariosProject } from './lanes/run/lane-run.ts';

/**
 * This config runs from the checkout (TypeScript) and, compiled, from the installed package's
 * dist/ (under node_modules, where Playwright transpiles nothing): paths are resolved from this
 * file, modules by the extension this file has. Every output goes under the run's report folder.
 */
const own = (path: string) => fileURLToPath(new URL(path.replace(/\.ts$/, import.meta.url.endsWith('.js') ? '.js' : '.ts'), import.meta.url));

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

const reporters: ReporterDescription[] = run?.reports === 'results'
  ? [['list'], ['json', { outputFile: `${run.reportDir}/results.json` }]]
  : run
  ? [
      // Before the reporters that read step locations (it takes away those in the fixtures bundle).
      ...bundleStepLocations(process.env[FIXTURES_BUNDLE_ENV]),
      ['list'],
      ['html', { outputFolder: `${run.reportDir}/html`, open: 'never' }],
      ['junit', { outputFile: `${run.reportDir}/junit.xml` }],
      ['json', { outputFile: `${run.reportDir}/results.json` }],
      ['blob', { outputDir: `${run.reportDir}/blob`, fileName: 'report.zip' }],
      [own('./fixtures/reporters/test-cost.ts'), { outputFile: `${run.reportDir}/test-cost.json` }],
      [own('./fixtures/reporters/plain-summary.ts')],
    ]
  : [['list'], [own('./fixtures/reporters/test-cost.ts'), { print: true }], [own('./fixtures/reporters/plain-summary.ts')]];

/**
 * `npm test`'s workers: most tests wait on a cluster, a process or a lane far more than they
 * compute (on 2 cores, 2 workers kept ~1.2 cores busy), so three more than twice the cores, and
 * never fewer than 7: on 2 cores 7 workers took 494 s (CPU 883 s) where 6 took 514 s (905 s) the
 * same day, and 6 had taken 525 s where 5 took 546-551 s; the cores stay busy while the searches,
 * the package and explore-search wait. A lane's runner sets its own count (lanes/run/lane-job.ts).
 */
const WORKERS = Math.max(7, 2 * availableParallelism() + 3);

/**
 * The test files that take minutes (whole lanes, searches, the package), each a project listed
 * before the rest: Playwright hands out tests in project order, so these start first and the
 * many short tests fill the workers beside them, instead of starting last (files go in path
 * order) and running on alone at the end. The lane self-test's lanes keep the cores busy; it
 * leaves three workers to the others (LANE_SELF_TEST_WORKERS), which take the files that mostly
 * wait (a grace period, a search's shrinking, a stop's deadline) meanwhile, instead of holding
 * every worker at once near the end while the cores sit half idle (measured: ~60 s of the run).
 * The package's test (~2.5 min, one chain: pack, install, two lanes) goes before the shorter
 * waiting files: listed after them, it started ~300 s into the run and ended ~30 s before it.
 */
const LANE_SELF_TEST = 'scripts/lane-self-test.test.ts';
const LANE_SELF_TEST_WORKERS = WORKERS - 3;
const LONG_TEST_FILES = [
  LANE_SELF_TEST,
  'explore/search/search-only-variants.test.ts',
  'scripts/packaging/package.test.ts',
  'driver/kubernetes/stop-order.test.ts',
  'explore/search/explore-search.test.ts',
  'scripts/fault-proxy-lane.test.ts',
  'scripts/lane.test.ts',
  'cli/sandbox-conformance.test.ts',
];

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
  workers: WORKERS,
  timeout: 60_000,
  reporter: reporters,
  outputDir: run ? `${run.reportDir}/test-results` : 'test-results',
  // `--scenarios`: the user's imports of sandbox-conformance/fixtures resolve to this run's fixtures (lane-run.ts).
  ...(run?.scenariosTsconfig && { tsconfig: run.scenariosTsconfig }),
  projects: [
    // `npm test` (`--project=unit*`): the minutes-long files first, then the rest.
    ...LONG_TEST_FILES.map((file) => ({ name: `unit-long:${basename(file, '.test.ts')}`, testMatch: file, ...(file === LANE_SELF_TEST && { workers: LANE_SELF_TEST_WORKERS }) })),
    {
      name: 'unit',
      testMatch: ['bench/**/*.test.ts', 'cli/**/*.test.ts', 'cluster/**/*.test.ts', 'driver/**/*.test.ts', 'explore/**/*.test.ts', 'faults/**/*.test.ts', 'fixtures/**/*.test.ts', 'timeline/**/*.test.ts', 'lanes/**/*.test.ts', 'scripts/**/*.test.ts'],
      testIgnore: LONG_TEST_FILES,
    },
    {
      name: run?.lane.name ?? 'scenarios',
      testDir: 'scenarios',
      testMatch: import.meta.url.endsWith('.js') ? '**/*.spec.js' : '**/*.spec.ts',
      timeout: 180_000,
      use: { run },
    },
    // `--scenarios DIR`: the user's own scenarios, outside this package (Playwright transpiles them), with the same fixtures and run value.
    ...(run?.scenariosDir ? [{ name: yourScenariosProject(run.lane.name), testDir: run.scenariosDir, testMatch: '**/*.spec.ts', timeout: 180_000, use: { run } }] : []),
  ],
});
