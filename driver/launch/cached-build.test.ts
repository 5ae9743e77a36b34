import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cachedBuild, cachedBuildSync } from './cached-build.ts';

/**
 * The build cache's lock: one build per hash however many ask at once, a lock whose builder died
 * taken over, and a wait on a builder that never finishes ended by its deadline, naming the lock.
 * (Processes building at once: driver-bundle.test.ts.)
 */

let cacheDir: string;
test.beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'cached-build-'));
});
test.afterEach(() => {
  rmSync(cacheDir, { recursive: true, force: true });
});

const slowBuild = (builds: string[]) => async (temp: string) => {
  builds.push(temp);
  await sleep(300);
  writeFileSync(join(temp, 'out.txt'), 'built');
};

test('asked for at once, a hash is built once and the others reuse it; no lock or temporary folder is left', async () => {
  const builds: string[] = [];
  const results = await Promise.all([1, 2, 3].map(() => cachedBuild(cacheDir, 'h1', slowBuild(builds))));
  expect(builds).toHaveLength(1);
  expect(results.map((r) => r.built).sort()).toEqual([false, false, true]);
  expect(new Set(results.map((r) => r.dir))).toEqual(new Set([join(cacheDir, 'h1')]));
  expect(readdirSync(cacheDir)).toEqual(['h1']);
});

test('a lock whose builder has exited is taken over at once', async () => {
  const exited = await execa(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  mkdirSync(join(cacheDir, '.h2.lock'));
  writeFileSync(join(cacheDir, '.h2.lock', 'pid'), exited.stdout);
  const started = Date.now();
  const result = cachedBuildSync(cacheDir, 'h2', (temp) => writeFileSync(join(temp, 'out.txt'), 'built'), 5_000);
  expect(result).toEqual({ dir: join(cacheDir, 'h2'), built: true });
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(readdirSync(cacheDir)).toEqual(['h2']);
});

test('a wait on a builder that never finishes ends at its deadline, naming the builder and the lock', async () => {
  const builder = execa('sleep', ['30']);
  try {
    mkdirSync(join(cacheDir, '.h3.lock'));
    writeFileSync(join(cacheDir, '.h3.lock', 'pid'), String(builder.pid));
    const builds: string[] = [];
    await expect(cachedBuild(cacheDir, 'h3', slowBuild(builds), 500)).rejects.toThrow(
      `waited 0.5 s for process ${builder.pid} to finish building h3 in ${cacheDir}; if no build is running, remove ${join(cacheDir, '.h3.lock')}`,
    );
    expect(() => cachedBuildSync(cacheDir, 'h3', () => builds.push('sync'), 300)).toThrow(`waited 0.3 s for process ${builder.pid}`);
    expect(builds).toEqual([]);
  } finally {
    builder.kill();
    await builder.catch(() => undefined);
  }
});
