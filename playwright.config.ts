import { defineConfig, type ReporterDescription } from '@playwright/test';
import { LANES } from './lanes/index.ts';

/** Set by `npm run lane`: where this lane's reports go (reports/<lane>/). */
const reportDir = process.env.CONFORMANCE_REPORT_DIR;

const laneReporters: ReporterDescription[] = reportDir
  ? [
      ['list'],
      ['html', { outputFolder: `${reportDir}/html`, open: 'never' }],
      ['junit', { outputFile: `${reportDir}/junit.xml` }],
      ['json', { outputFile: `${reportDir}/results.json` }],
      ['./fixtures/reporters/plain-summary.ts'],
    ]
  : [['list'], ['./fixtures/reporters/plain-summary.ts']];

/**
 * One runner for everything. `unit` runs the `*.test.ts` files beside the code they test; each
 * lane is a project over `scenarios/` carrying the lane name as a worker-scoped option. Lane
 * projects need a cluster, so they run through `npm run lane`, which brings one up first.
 */
export default defineConfig<object, { laneName: string }>({
  testDir: '.',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: process.env.CI ? 2 : undefined,
  timeout: 60_000,
  reporter: laneReporters,
  outputDir: reportDir ? `${reportDir}/test-results` : 'test-results',
  projects: [
    {
      name: 'unit',
      testMatch: ['cluster/**/*.test.ts', 'driver/**/*.test.ts', 'fixtures/**/*.test.ts', 'timeline/**/*.test.ts', 'lanes/**/*.test.ts', 'scripts/**/*.test.ts'],
    },
    ...LANES.map((lane) => ({
      name: lane.name,
      testDir: 'scenarios',
      testMatch: '**/*.spec.ts',
      timeout: 180_000,
      use: { laneName: lane.name },
    })),
  ],
});
