#!/usr/bin/env tsx
/**
 * `npm run build` (and `prepack`, so `npm pack` and `npm publish` always ship a fresh one): the
 * package's JavaScript and type declarations in dist/, with the files the code reads at run time
 * beside them.
 *
 * Why tsc and not esbuild: the package must ship declarations (`sandbox-conformance/fixtures` is
 * typed for the user's scenarios), which only tsc writes, and one tool emitting both keeps the
 * JavaScript and its .d.ts from the same compilation. `rewriteRelativeImportExtensions` turns the
 * sources' `./x.ts` imports into `./x.js`: Playwright transpiles nothing under node_modules and
 * Node refuses to strip types there, so everything the runner loads from the package (config,
 * specs, fixtures, reporters) is plain JavaScript. No source maps: Playwright reads them to
 * locate tests, and they point at .ts files the package does not ship (reports then named
 * `../scenarios/…`); stack traces name the compiled files, which are readable tsc output.
 */
import { chmodSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { writeProjectDriverBundle } from '../driver/launch/driver-bundle.ts';
import { writePackageFixturesBundle } from '../lanes/run/fixtures-bundle.ts';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/** What the code reads beside itself at run time (`new URL('./x', import.meta.url)`): not TypeScript, so tsc does not copy it. */
export const RUNTIME_ASSETS = [
  'cluster/kind/kind-config.yaml',
  'driver/grpc/compute_driver.proto',
  'faults/schedule/schedule.schema.json',
  'fixtures/programs/supervisor/Dockerfile',
  'fixtures/programs/supervisor/main.cjs',
  'fixtures/programs/workload/Dockerfile',
  'fixtures/programs/workload/main.cjs',
];

rmSync(DIST, { recursive: true, force: true });
const started = Date.now();
await execa(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
for (const asset of RUNTIME_ASSETS) cpSync(join(ROOT, asset), join(DIST, asset));
// The driver as one file, as the harness runs it from a checkout (driver/launch/driver-bundle.ts): each driver process it starts,
// and each `sandbox-conformance driver serve`, is ready on half the CPU the compiled modules take.
writeProjectDriverBundle(join(DIST, 'driver/bundle'));
// The fixtures as one file, for the lane's Playwright runner and workers to load in place of
// dist/fixtures/conformance.js and its modules (lanes/run/fixtures-bundle.ts).
await writePackageFixturesBundle(DIST);
// The bin runs as `node dist/cli/sandbox-conformance.js` through npm's shim; the mode matters where it is run directly.
const bin = join(DIST, 'cli/sandbox-conformance.js');
const source = readFileSync(bin, 'utf8');
if (!source.startsWith('#!')) writeFileSync(bin, `#!/usr/bin/env node\n${source}`);
chmodSync(bin, 0o755);
process.stdout.write(`dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
