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
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { buildHash, cachedBuild } from '../../driver/launch/cached-build.ts';
import { FIXTURES_BUNDLE_ENV } from './lane-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the lane runner hands Playwright: NODE_OPTIONS and the variable naming the bundle. */
export interface FixturesBundle {
  /** The bundled fixtures (`fixtures.mjs`). */
  file: string;
  /** Environment for the Playwright process: its workers inherit it. */
  env: Record<string, string>;
}

/** The file the bundle stands in for. */
const ENTRY = join(ROOT, 'fixtures/conformance.ts');
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

/** esbuild loads each project file with its `import.meta.url` (and `.dirname`, `.filename`) made the file's own. */
export const ownUrls: esbuild.Plugin = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      // Replaced in the syntax tree (esbuild's define), not the text: a string that mentions it stays as it is.
      const source = await readFile(args.path, 'utf8');
      const { code } = await esbuild.transform(source, { loader: 'ts', format: 'esm', define: { 'import.meta.url': JSON.stringify(pathToFileURL(args.path).href), 'import.meta.dirname': JSON.stringify(dirname(args.path)), 'import.meta.filename': JSON.stringify(args.path) }, sourcefile: args.path });
      return { contents: code, loader: 'js' };
    });
  },
};

/** The resolve hook, registered from NODE_OPTIONS; module.register needs a module to point at, so it is written beside the bundle. */
function hookSources(bundleUrl: string, registerUrl: string): { register: string; hooks: string } {
  return {
    // Playwright's runner (the lane runner's own child) passes NODE_OPTIONS on to its workers;
    // a worker takes it out of its environment, so what a test starts (a driver, a user's
    // exec= command) does not load the hook.
    register: [
      `import { register } from 'node:module';`,
      `register('./hooks.mjs', import.meta.url);`,
      `if (String(process.ppid) !== process.env.${RUNNER_PARENT_ENV}) {`,
      `  process.env.NODE_OPTIONS = (process.env.NODE_OPTIONS ?? '').replace(${JSON.stringify(`--import ${registerUrl}`)}, '').trim();`,
      `  if (!process.env.NODE_OPTIONS) delete process.env.NODE_OPTIONS;`,
      `}`,
      '',
    ].join('\n'),
    hooks: [
      `const from = ${JSON.stringify(pathToFileURL(ENTRY).href)};`,
      `const to = ${JSON.stringify(bundleUrl)};`,
      `export async function resolve(specifier, context, next) {`,
      `  const resolved = await next(specifier, context);`,
      `  return resolved.url === from ? { url: to, format: 'module', shortCircuit: true } : resolved;`,
      `}`,
      '',
    ].join('\n'),
  };
}

/** Builds the bundle into `dir`: fixtures.mjs, and the hook that points imports at it. */
async function buildInto(dir: string, final: string): Promise<void> {
  await esbuild.build({ ...BUILD_OPTIONS, absWorkingDir: ROOT, entryPoints: [ENTRY], outfile: join(dir, 'fixtures.mjs'), plugins: [ownUrls] });
  const { register, hooks } = hookSources(pathToFileURL(join(final, 'fixtures.mjs')).href, pathToFileURL(join(final, 'register.mjs')).href);
  writeFileSync(join(dir, 'register.mjs'), register);
  writeFileSync(join(dir, 'hooks.mjs'), hooks);
}

/**
 * The bundle for the current sources, built unless a build of the same sources exists
 * (driver/launch/cached-build.ts); undefined where there is nothing to bundle (no
 * `fixtures/conformance.ts`, as in the installed package).
 */
export async function fixturesBundle(): Promise<FixturesBundle | undefined> {
  if (!existsSync(ENTRY) || process.env[FIXTURES_BUNDLE_ENV] === 'off') return undefined;
  const hash = buildHash(ROOT, projectSources(), { esbuild: esbuild.version, BUILD_OPTIONS }, LOCKFILE);
  const { dir } = await cachedBuild(CACHE_DIR, hash, (temp, final) => buildInto(temp, final));
  const file = join(dir, 'fixtures.mjs');
  const nodeOptions = [process.env.NODE_OPTIONS, `--import ${pathToFileURL(join(dir, 'register.mjs')).href}`].filter(Boolean).join(' ');
  return { file, env: { NODE_OPTIONS: nodeOptions, [FIXTURES_BUNDLE_ENV]: file, [RUNNER_PARENT_ENV]: String(process.pid) } };
}
