/**
 * The reference driver as one JavaScript file, for the harness to run as its external driver
 * (and, built by `npm run build`, the package's: dist/driver/bundle/).
 *
 * Why a bundle and not `node --import tsx`: run through tsx, the driver process held 208 MiB RSS
 * once serving, before any sandbox; bundled without its packages, 122 MiB (`npm run bench --
 * driver-scale`, "driver RSS once serving"): the loader (every module transpiled at run time, its
 * caches) cost ~85 MiB of the 200 MiB issue 15 gives the driver at 100 sandboxes at once.
 *
 * Its packages are bundled too, minified: a lane starts a driver process per test (two
 * in `ha`, more after a crash), and each loading @kubernetes/client-node's ~830 modules from
 * node_modules cost ~0.9 s of CPU to start (`--help` in 0.3 s bundled). Measured with
 * `npm run lanes` on 2 cores: 73 driver processes took 93 s of the run's 275 s of CPU, 74 took
 * 50 s once bundled; driver-scale: 85 MiB once serving (was 107), peak 124 MiB (was 139).
 * Minified, the bundle parses faster and its source costs less memory (a `--help` run: 79 MiB max
 * RSS, 106 MiB unminified); its names minified too, it is 4.2 MB instead of 6.8 (the package
 * ships it) and starts on the same CPU (0.43-0.46 s to ready vs 0.41-0.42); `keepNames` keeps
 * functions' names for stack traces.
 * The build is cached by a hash of its inputs (the sources, and package-lock.json for the
 * packages), so a lane's many processes (the runner, each Playwright worker) build it once
 * between them (cached-build.ts).
 */
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';
import { buildHash, cachedBuildSync } from './cached-build.ts';

/** Where the bundle is built from and into; the defaults are the project's, tests pass their own. */
export interface DriverBundleOptions {
  /** The folder whose sources are bundled (the `driver` room, which imports nothing outside itself). */
  sourceRoot: string;
  /** The entry point, relative to `sourceRoot`. */
  entry: string;
  /** Each build lands in `<cacheDir>/<hash>/`. */
  cacheDir: string;
}

export interface DriverBundle {
  /** The bundled entry point, `node <file>` runs it. */
  file: string;
  /** The key of this build: the hash of its sources, the esbuild version and the build options. */
  hash: string;
  /** False when an earlier build with the same hash was reused. */
  built: boolean;
}

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const PROJECT_DRIVER_BUNDLE: DriverBundleOptions = {
  sourceRoot: join(PROJECT_ROOT, 'driver'),
  entry: 'cli/main.ts',
  cacheDir: join(PROJECT_ROOT, 'node_modules/.cache/sandbox-conformance/driver'),
};

const BUNDLE_FILE = 'driver.mjs';

const BUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The packages' CommonJS modules call require() (node builtins among them), which an ES module
  // bundle has no binding for unless it makes one.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  // Packages resolve from the project's node_modules, whatever folder the sources are built from.
  nodePaths: [join(PROJECT_ROOT, 'node_modules')],
  minify: true,
  legalComments: 'none',
  // Functions and classes keep their own names (`.name`, stack traces) where bundling would
  // rename one to avoid a clash; no source maps, whose loading costs memory the bundle saves.
  keepNames: true,
  logLevel: 'silent',
} as const satisfies Esbuild.BuildOptions;

/**
 * esbuild, loaded when a bundle is checked or built: the installed package only runs the bundle
 * it ships, and `sandbox-conformance driver serve` (started once per test by `--driver exec=`)
 * would otherwise load esbuild's JavaScript API for nothing (~0.06 CPU-s of each start).
 */
const esbuild = (): typeof Esbuild => createRequire(import.meta.url)('esbuild') as typeof Esbuild;

/** What pins the bundled packages' versions. */
const LOCKFILE = join(PROJECT_ROOT, 'package-lock.json');

/** What the bundle is made of: every TypeScript source and `.proto` under the root, tests aside. */
function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => (path.endsWith('.ts') && !path.endsWith('.test.ts')) || path.endsWith('.proto'))
    .map((path) => join(root, path))
    .sort();
}

/**
 * Writes the bundle and its `.proto` files into `dir`: flat beside the bundle, because the gRPC
 * layer loads `compute_driver.proto` relative to its own module, which is the bundle once bundled.
 */
function buildInto(dir: string, options: DriverBundleOptions, files: string[]): void {
  const result = esbuild().buildSync({
    ...BUILD_OPTIONS,
    absWorkingDir: options.sourceRoot,
    entryPoints: [options.entry],
    outfile: join(dir, BUNDLE_FILE),
    metafile: true,
    write: false,
  });
  // The hash covers the files under the source root (and the packages, by the lockfile): an input elsewhere would go stale unseen.
  const hashed = new Set(files);
  const outside = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/') && !hashed.has(resolve(options.sourceRoot, input)));
  if (outside.length) throw new Error(`the driver bundle imports files outside ${options.sourceRoot} (${outside.join(', ')}): the driver may import only its own room (docs/contributing.md, import directions)`);
  for (const output of result.outputFiles) writeFileSync(output.path, output.contents);
  const protos = files.filter((file) => file.endsWith('.proto'));
  const names = protos.map((file) => basename(file));
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash) throw new Error(`two .proto files named ${clash} under ${options.sourceRoot}: they are copied flat beside the bundle, so their names must differ`);
  for (const proto of protos) copyFileSync(proto, join(dir, basename(proto)));
}

/** The project's bundle written into `dir` (`npm run build`: the package ships it in dist/driver/bundle/, where the compiled projectDriverBundle finds it). */
export function writeProjectDriverBundle(dir: string): void {
  mkdirSync(dir, { recursive: true });
  buildInto(dir, PROJECT_DRIVER_BUNDLE, sourceFiles(PROJECT_DRIVER_BUNDLE.sourceRoot));
}

/** The bundle for the current sources: reused when one with the same hash exists, built otherwise. */
export function driverBundle(options: DriverBundleOptions = PROJECT_DRIVER_BUNDLE): DriverBundle {
  const files = sourceFiles(options.sourceRoot);
  const hash = buildHash(options.sourceRoot, files, { esbuild: esbuild().version, BUILD_OPTIONS, entry: options.entry }, LOCKFILE);
  const { dir, built } = cachedBuildSync(options.cacheDir, hash, (temp) => buildInto(temp, options, files));
  return { file: join(dir, BUNDLE_FILE), hash, built };
}

let projectBundle: DriverBundle | undefined;

/**
 * The project's driver bundle, checked (and built when needed) once per process. In the installed
 * package (this module compiled to JavaScript) the bundle `npm run build` wrote beside it: nothing
 * is built or written under node_modules.
 */
export function projectDriverBundle(): DriverBundle {
  if (import.meta.url.endsWith('.js')) return { file: fileURLToPath(new URL(`../bundle/${BUNDLE_FILE}`, import.meta.url)), hash: 'built with the package', built: false };
  projectBundle ??= driverBundle();
  return projectBundle;
}
