import { defineConfig } from '@playwright/test';

/**
 * One runner for everything: `unit` runs the `*.test.ts` files that sit beside the code they
 * test (no browser involved); lane projects for `scenarios/` join when the lane matrix lands.
 */
export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: process.env.CI ? 2 : undefined,
  timeout: 60_000,
  reporter: [['list'], ['./fixtures/reporters/plain-summary.ts']],
  projects: [
    {
      name: 'unit',
      testMatch: ['cluster/**/*.test.ts', 'driver/**/*.test.ts', 'fixtures/**/*.test.ts', 'lanes/**/*.test.ts', 'scripts/**/*.test.ts'],
    },
  ],
});
