import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FIXTURES_BUNDLE_ENV } from './lane-run.ts';
import { fixturesBundle } from './fixtures-bundle.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFORMANCE = pathToFileURL(`${ROOT}fixtures/conformance.ts`).href;

/** A plain Node process (no TypeScript loader) that imports fixtures/conformance.ts and says what it got. */
function importFixtures(env: Record<string, string>) {
  const script = `const m = await import(${JSON.stringify(CONFORMANCE)}); console.log(JSON.stringify({ test: typeof m.test, driverError: typeof m.DriverError, nodeOptions: process.env.NODE_OPTIONS ?? null }));`;
  return execa(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, reject: false, env, extendEnv: false });
}

test('the bundle stands in for fixtures/conformance.ts wherever it is imported, and is reused while the sources stay the same', async () => {
  test.setTimeout(60_000);
  const bundle = await withBundleSetting(undefined, fixturesBundle);
  expect(bundle).toBeDefined();
  expect(existsSync(bundle!.file)).toBe(true);
  expect((await withBundleSetting(undefined, fixturesBundle))!.file, 'the same sources: the same build').toBe(bundle!.file);
  // What its modules find beside themselves, they find where their sources are.
  expect(readFileSync(bundle!.file, 'utf8')).toContain(JSON.stringify(pathToFileURL(`${ROOT}faults/schedule/parse-schedule.ts`).href));

  // Without the hook, Node cannot load a .ts file; with it, the import gets the bundle.
  const plain = await importFixtures({ PATH: process.env.PATH! });
  expect(plain.exitCode).not.toBe(0);
  // As Playwright's runner, the lane runner's child: the hook stays in NODE_OPTIONS for its workers.
  const runner = await importFixtures({ PATH: process.env.PATH!, ...bundle!.env, CONFORMANCE_FIXTURES_RUNNER_PARENT: String(process.pid) });
  expect(runner.stderr).toBe('');
  expect(JSON.parse(runner.stdout)).toEqual({ test: 'function', driverError: 'function', nodeOptions: bundle!.env.NODE_OPTIONS });
  // As a worker (any other process): the hook is registered, then taken out of what its own children inherit.
  const worker = await importFixtures({ PATH: process.env.PATH!, ...bundle!.env, CONFORMANCE_FIXTURES_RUNNER_PARENT: '1' });
  expect(JSON.parse(worker.stdout)).toEqual({ test: 'function', driverError: 'function', nodeOptions: null });
});

test(`${FIXTURES_BUNDLE_ENV}=off: no bundle, the fixtures load from source`, async () => {
  expect(await withBundleSetting('off', fixturesBundle)).toBeUndefined();
});

/** Runs `f` with CONFORMANCE_FIXTURES_BUNDLE as given (unset for undefined), whatever the test run was started with. */
async function withBundleSetting<T>(value: string | undefined, f: () => Promise<T>): Promise<T> {
  const before = process.env[FIXTURES_BUNDLE_ENV];
  if (value === undefined) delete process.env[FIXTURES_BUNDLE_ENV];
  else process.env[FIXTURES_BUNDLE_ENV] = value;
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env[FIXTURES_BUNDLE_ENV];
    else process.env[FIXTURES_BUNDLE_ENV] = before;
  }
}
