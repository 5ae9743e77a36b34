import { expect, test } from '@playwright/test';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { driverBundle, PROJECT_DRIVER_BUNDLE, type DriverBundleOptions } from './driver-bundle.ts';
import { ExternalDriverProcess } from './external-driver-process.ts';

/**
 * The driver's bundle: built from a copy of the driver's sources (so a test can change one),
 * reused while they are unchanged, rebuilt when one changes, whole when processes build at once,
 * and serving the gRPC contract when run.
 */

let dir: string;
let options: DriverBundleOptions;

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driver-bundle-'));
  options = { ...PROJECT_DRIVER_BUNDLE, sourceRoot: join(dir, 'driver'), cacheDir: join(dir, 'cache') };
  await cp(PROJECT_DRIVER_BUNDLE.sourceRoot, options.sourceRoot, { recursive: true });
});

test.afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('built once, reused while the sources are unchanged, rebuilt when one changes', async () => {
  const first = driverBundle(options);
  expect(first.built).toBe(true);
  expect((await readdir(dirname(first.file))).sort()).toEqual(['compute_driver.proto', 'driver.mjs']);
  // The .proto the gRPC layer loads beside its module, the same bytes as the source's.
  expect(await readFile(join(dirname(first.file), 'compute_driver.proto'), 'utf8')).toBe(await readFile(join(options.sourceRoot, 'grpc/compute_driver.proto'), 'utf8'));
  expect(await readFile(first.file, 'utf8')).toContain('compute driver listening on');

  expect(driverBundle(options)).toEqual({ ...first, built: false });
  // A test beside the sources is not part of the bundle.
  await appendFile(join(options.sourceRoot, 'grpc/grpc.test.ts'), '\n// changed\n');
  expect(driverBundle(options)).toEqual({ ...first, built: false });

  const serve = join(options.sourceRoot, 'cli/serve.ts');
  await writeFile(serve, (await readFile(serve, 'utf8')).replaceAll('compute driver listening on', 'changed driver listening on'));
  const second = driverBundle(options);
  expect(second.built).toBe(true);
  expect(second.hash).not.toBe(first.hash);
  expect(await readFile(second.file, 'utf8')).toContain('changed driver listening on');
  expect(driverBundle(options)).toEqual({ ...second, built: false });
  // A changed .proto is a change too.
  await appendFile(join(options.sourceRoot, 'grpc/compute_driver.proto'), '\n// changed\n');
  expect(driverBundle(options).built).toBe(true);
  // Nothing but whole builds in the cache, the older ones kept for a driver still running them.
  expect((await readdir(options.cacheDir)).length).toBe(3);
});

test('an import from outside the source root is refused: the hash would not see it change', async () => {
  await writeFile(join(dir, 'outside.ts'), 'export const OUTSIDE = 1;\n');
  await appendFile(join(options.sourceRoot, 'cli/serve.ts'), "\nexport { OUTSIDE } from '../../outside.ts';\n");
  expect(() => driverBundle(options)).toThrow(/^the driver bundle imports files outside \S+\/driver \(\.\.\/outside\.ts\): the driver may import only its own room/);
  expect(await readdir(options.cacheDir)).toEqual([]);
});

test('processes that ask at once: one builds, the others wait and reuse its whole bundle; no temp directory or lock is left', async () => {
  test.setTimeout(120_000);
  const build = `import { driverBundle } from ${JSON.stringify(new URL('./driver-bundle.ts', import.meta.url).href)};
    process.stdout.write(JSON.stringify(driverBundle(${JSON.stringify(options)})));`;
  const bundles = await Promise.all([1, 2, 3].map(() => execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', build]).then((r) => JSON.parse(r.stdout) as { file: string; built: boolean })));
  expect(bundles.map((b) => b.built).sort()).toEqual([false, false, true]);
  const files = bundles.map((b) => b.file);
  expect(new Set(files).size).toBe(1);
  expect(await readdir(options.cacheDir)).toEqual([dirname(files[0]).split('/').at(-1)]);
  expect((await readdir(dirname(files[0]))).sort()).toEqual(['compute_driver.proto', 'driver.mjs']);
});

test('the bundled driver serves GetCapabilities on its socket', async () => {
  test.setTimeout(120_000);
  // The project's own sources, built into the test's output folder.
  const bundle = driverBundle({ ...PROJECT_DRIVER_BUNDLE, cacheDir: test.info().outputPath('driver-bundle') });
  expect(bundle.built).toBe(true);
  const kubeconfigPath = test.info().outputPath('kubeconfig');
  const cluster = await EmbeddedCluster.start({ kubeconfigPath, agentSandbox: 'v0.5.0' });
  try {
    const driver = await ExternalDriverProcess.start({ kubeconfigPath, command: { argv: [process.execPath, bundle.file, 'serve', '--mode', 'shared', '--namespace', 'openshell'] } });
    try {
      expect(driver.capabilities).toMatchObject({ driverName: 'kubernetes', driverVersion: '0.2.0' });
      expect(await driver.client.getCapabilities()).toEqual(driver.capabilities);
    } finally {
      await driver.stop();
    }
  } finally {
    await cluster.stop();
  }
});
