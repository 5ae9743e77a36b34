import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandBundle } from './command-bundle.ts';
import { FIXTURES_BUNDLE_ENV } from './lane-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LANE_MAIN = join(ROOT, 'scripts/lane-main.ts');

test('npm run lane starts from its bundle: the same help, reused while the sources stay the same, and each module finds what lies beside its source', async () => {
  test.setTimeout(60_000);
  const bundle = await commandBundle(LANE_MAIN);
  expect(bundle && existsSync(bundle)).toBe(true);
  expect(await commandBundle(LANE_MAIN), 'the same sources: the same build').toBe(bundle);
  expect(readFileSync(bundle!, 'utf8')).toContain(JSON.stringify(join(ROOT, 'lanes/run')));
  const [bundled, fromSource] = await Promise.all([
    execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', '--help'], { cwd: ROOT, reject: false }),
    execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', '--help'], { cwd: ROOT, reject: false, env: { [FIXTURES_BUNDLE_ENV]: 'off' } }),
  ]);
  expect(bundled.stderr).toBe('');
  expect(bundled.exitCode).toBe(0);
  expect(bundled.stdout).toBe(fromSource.stdout);
  expect(bundled.stdout).toContain('Usage: npm run lane --');
});

test(`${FIXTURES_BUNDLE_ENV}=off: no bundle; an entry that imports a file the hash does not cover is refused`, async () => {
  const before = process.env[FIXTURES_BUNDLE_ENV];
  process.env[FIXTURES_BUNDLE_ENV] = 'off';
  try {
    expect(await commandBundle(LANE_MAIN)).toBeUndefined();
  } finally {
    if (before === undefined) delete process.env[FIXTURES_BUNDLE_ENV];
    else process.env[FIXTURES_BUNDLE_ENV] = before;
  }
  const dir = mkdtempSync(join(tmpdir(), 'command-bundle-test-'));
  try {
    writeFileSync(join(dir, 'helper.ts'), 'export const x = 1;\n');
    writeFileSync(join(dir, 'entry.ts'), "import { x } from './helper.ts';\nconsole.log(x);\n");
    await expect(commandBundle(join(dir, 'entry.ts'))).rejects.toThrow(/imports files its bundle's hash does not cover \(.*command-bundle-test-\w+\/helper\.ts\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
