/**
 * The scenarios' fixtures as one JavaScript file, which a lane's Playwright workers load in
 * place of `fixtures/conformance.ts` and the ~120 TypeScript modules and ~1,000 package modules
 * under it.
 *
 * Why: each worker loaded them through Playwright's module hooks (each TypeScript file
 * transpiled or read from its cache, each import resolved across the hooks' thread), which cost
 * a worker ~3 s of CPU before its first test; a v1beta1 lane starts 6 workers (a third of the
 * lane's ~50 CPU-seconds). The same code bundled loads in ~1 s (`npm run bench -- lanes`).
 *
 * How: the lane runner builds the bundle (esbuild, cached by a hash of every source and the
 * lockfile) and starts Playwright with a module resolve hook (NODE_OPTIONS `--import`, so it is
 * registered before Playwright's own) that answers the bundle wherever `fixtures/conformance.ts`
 * is imported: in the runner, which loads the specs to list them, and in every worker. Scenarios
 * import nothing else of the project (the layout test holds them to `fixtures/`), so the bundle
 * is the one copy of the fixtures a worker has. Specs themselves are untouched: Playwright still
 * transpiles them and reports their lines.
 *
 * Each module's `import.meta.url` is replaced by its source file's URL, so what the code finds
 * beside itself (the driver's `.proto`, the fault schedule's schema, the project root) is found
 * where it always was. @playwright/test stays a package import (one copy per process, as
 * Playwright requires); esbuild and TypeScript too (a native binary, and a compiler only a few
 * paths load).
 *
 * The installed package has its own, built by `npm run build` into dist/fixtures/bundle/ and
 * standing in for dist/fixtures/conformance.js (the import of `sandbox-conformance/fixtures` in
 * the user's scenarios too): there each module's `import.meta.url` is its compiled file's in
 * dist/, found from the bundle's own place at run time, wherever the package is installed.
 * Measured on 2 cores, `npx sandbox-conformance run v1beta1` from the package: its six Playwright
 * workers took 17.7-17.8 CPU-s between them on the bundle, 22.8-23.1 on the compiled modules.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { buildHash, cachedBuild } from '../../driver/launch/cached-build.ts';
import { FIXTURES_BUNDLE_ENV } from './lane-run.ts';

/** The checkout, or the installed package's dist/ (this module compiled). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPILED = import.meta.url.endsWith('.js');

/** What the lane runner hands Playwright: NODE_OPTIONS and the variable naming the bundle. */
export interface FixturesBundle {
  /** The bundled fixtures (`fixtures.mjs`). */
  file: string;
  /** Environment for the Playwright process: its workers inherit it. */
  env: Record<string, string>;
}

/** The file the bundle stands in for (and, from a checkout, is built from). */
const ENTRY = join(ROOT, COMPILED ? 'fixtures/conformance.js' : 'fixtures/conformance.ts');
/** Where `npm run build` writes the package's bundle, under dist/ (the compiled ROOT). */
const PACKAGE_BUNDLE_DIR = 'fixtures/bundle';
const CACHE_DIR = join(ROOT, 'node_modules/.cache/sandbox-conformance/fixtures');
/** The source rooms the fixtures import from; every .ts under them (tests aside) is hashed. */
const SOURCE_ROOMS = ['cluster', 'driver', 'faults', 'fixtures', 'lanes', 'timeline'];
export const EXTERNAL = ['@playwright/test', 'playwright', 'playwright-core', 'esbuild', 'typescript'];
export const LOCKFILE = join(ROOT, 'package-lock.json');

/** The lane runner's pid: the process whose child is Playwright's runner. */
const RUNNER_PARENT_ENV = 'CONFORMANCE_FIXTURES_RUNNER_PARENT';

export const BUILD_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // The packages' CommonJS modules call require(), which an ES module bundle has no binding for unless it makes one.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  minifyWhitespace: true,
  legalComments: 'none',
  // Functions and classes keep their names for stack traces and `.name`.
  keepNames: true,
  logLevel: 'silent',
} as const satisfies esbuild.BuildOptions;

/** Every project source a bundle of the lanes' code may include (tests aside): what its hash covers. */
export function projectSources(rooms: readonly string[] = SOURCE_ROOMS): string[] {
  return rooms.flatMap((room) =>
    readdirSync(join(ROOT, room), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('test-kit.ts'))
      .map((path) => join(ROOT, room, path)),
  ).sort();
}

/**
 * esbuild loads each project file (TypeScript, outside node_modules) with its `import.meta.url`,
 * `.dirname` and `.filename` replaced as `meta` says for its path: replaced in the syntax tree
 * (esbuild's define), not the text, so a string that mentions them stays as it is; `prelude`, put
 * before the module's code, may declare what the replacements name.
 */
function ownImportMeta(name: string, meta: (path: string) => { define: Record<string, string>; prelude?: string }): esbuild.Plugin {
  return {
    name,
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const source = await readFile(args.path, 'utf8');
        const { define, prelude = '' } = meta(args.path);
        const { code } = await esbuild.transform(source, { loader: 'ts', format: 'esm', define, sourcefile: args.path });
        return { contents: prelude + code, loader: 'js' };
      });
    },
  };
}

/** Each module's `import.meta.url` made its source file's (a bundle run from the checkout it was built from). */
export const ownUrls = ownImportMeta('own-import-meta-url', (path) => ({
  define: { 'import.meta.url': JSON.stringify(pathToFileURL(path).href), 'import.meta.dirname': JSON.stringify(dirname(path)), 'import.meta.filename': JSON.stringify(path) },
}));

/**
 * Each module's `import.meta.url` made its compiled file's in `distDir` (`x/y.ts` -> `x/y.js`),
 * computed at run time from the bundle's own URL and the path between them, which holds wherever
 * the package is installed: no path of the machine that built it is written into the bundle.
 */
function compiledUrls(bundleDir: string, distDir: string): esbuild.Plugin {
  return ownImportMeta('compiled-import-meta-url', (path) => {
    const compiled = join(distDir, relative(ROOT, path)).replace(/\.ts$/, '.js');
    const fromBundle = relative(bundleDir, compiled).split(sep).join('/');
    return {
      define: { 'import.meta.url': '__ownUrl', 'import.meta.dirname': '__ownDir', 'import.meta.filename': '__ownFile' },
      prelude: [
        `import { fileURLToPath as __ownPath } from 'node:url';`,
        `const __ownUrl = new URL(${JSON.stringify(fromBundle)}, import.meta.url).href;`,
        `const __ownFile = __ownPath(__ownUrl);`,
        `const __ownDir = __ownPath(new URL('.', __ownUrl)).replace(/\\/$/, '');`,
        '',
      ].join('\n'),
    };
  });
}

/**
 * The resolve hook, registered from NODE_OPTIONS; module.register needs a module to point at, so
 * it is written beside the bundle. Both files find the bundle and the file it stands in for from
 * their own URL (`entryFromDir`: the path from the bundle's folder to that file), so the package's
 * copies hold wherever it is installed.
 */
function hookSources(entryFromDir: string): { register: string; hooks: string } {
  return {
    // Playwright's runner (the lane runner's own child) passes NODE_OPTIONS on to its workers;
    // a worker takes it out of its environment, so what a test starts (a driver, a user's
    // exec= command) does not load the hook.
    register: [
      `import { register } from 'node:module';`,
      `register('./hooks.mjs', import.meta.url);`,
      `if (String(process.ppid) !== process.env.${RUNNER_PARENT_ENV}) {`,
      `  process.env.NODE_OPTIONS = (process.env.NODE_OPTIONS ?? '').replace(\`--import \${import.meta.url}\`, '').trim();`,
      `  if (!process.env.NODE_OPTIONS) delete process.env.NODE_OPTIONS;`,
      `}`,
      '',
    ].join('\n'),
    hooks: [
      `const from = new URL(${JSON.stringify(entryFromDir)}, import.meta.url).href;`,
      `const to = new URL('./fixtures.mjs', import.meta.url).href;`,
      `export async function resolve(specifier, context, next) {`,
      `  const resolved = await next(specifier, context);`,
      `  return resolved.url === from ? { url: to, format: 'module', shortCircuit: true } : resolved;`,
      `}`,
      '',
    ].join('\n'),
  };
}

/** Builds a bundle of the fixtures into `dir` with `plugin`, and the hook that points imports of `standsFor` at it; `final` is where it will be used from. */
async function buildInto(dir: string, final: string, standsFor: string, plugin: esbuild.Plugin): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await esbuild.build({ ...BUILD_OPTIONS, absWorkingDir: ROOT, entryPoints: [join(ROOT, 'fixtures/conformance.ts')], outfile: join(dir, 'fixtures.mjs'), plugins: [plugin] });
  const { register, hooks } = hookSources(relative(final, standsFor).split(sep).join('/'));
  writeFileSync(join(dir, 'register.mjs'), register);
  writeFileSync(join(dir, 'hooks.mjs'), hooks);
}

/** `npm run build`: the package's bundle in `distDir`/fixtures/bundle/, standing in for the compiled `distDir`/fixtures/conformance.js. */
export async function writePackageFixturesBundle(distDir: string): Promise<void> {
  const dir = join(distDir, PACKAGE_BUNDLE_DIR);
  await buildInto(dir, dir, join(distDir, 'fixtures/conformance.js'), compiledUrls(dir, distDir));
}

/**
 * The bundle for the current sources, built unless a build of the same sources exists
 * (driver/launch/cached-build.ts); in the installed package, the one `npm run build` wrote
 * (nothing is built or written under node_modules); undefined where there is none.
 */
export async function fixturesBundle(): Promise<FixturesBundle | undefined> {
  if (process.env[FIXTURES_BUNDLE_ENV] === 'off') return undefined;
  if (COMPILED) {
    const dir = join(ROOT, PACKAGE_BUNDLE_DIR);
    return existsSync(join(dir, 'fixtures.mjs')) && existsSync(ENTRY) ? bundleIn(dir) : undefined;
  }
  if (!existsSync(ENTRY)) return undefined;
  const hash = buildHash(ROOT, projectSources(), { esbuild: esbuild.version, BUILD_OPTIONS }, LOCKFILE);
  const { dir } = await cachedBuild(CACHE_DIR, hash, (temp, final) => buildInto(temp, final, ENTRY, ownUrls));
  return bundleIn(dir);
}

/** NODE_OPTIONS and the variables that make Playwright's processes load the bundle in `dir`. */
function bundleIn(dir: string): FixturesBundle {
  const file = join(dir, 'fixtures.mjs');
  const nodeOptions = [process.env.NODE_OPTIONS, `--import ${pathToFileURL(join(dir, 'register.mjs')).href}`].filter(Boolean).join(' ');
  return { file, env: { NODE_OPTIONS: nodeOptions, [FIXTURES_BUNDLE_ENV]: file, [RUNNER_PARENT_ENV]: String(process.pid) } };
}
