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
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
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
const EXTERNAL = ['@playwright/test', 'playwright', 'playwright-core', 'esbuild', 'typescript'];
const STALE_BUILD_MS = 24 * 3600_000;

/** The lane runner's pid: the process whose child is Playwright's runner. */
const RUNNER_PARENT_ENV = 'CONFORMANCE_FIXTURES_RUNNER_PARENT';

const BUILD_OPTIONS = {
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

function sourceFiles(): string[] {
  return SOURCE_ROOMS.flatMap((room) =>
    readdirSync(join(ROOT, room), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('test-kit.ts'))
      .map((path) => join(ROOT, room, path)),
  ).sort();
}

function hashOf(files: string[]): string {
  const hash = createHash('sha256').update(JSON.stringify({ esbuild: esbuild.version, BUILD_OPTIONS })).update(readFileSync(join(ROOT, 'package-lock.json')));
  for (const file of files) hash.update(`\0${relative(ROOT, file)}\0`).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** esbuild loads each project file with its `import.meta.url` made the file's own URL. */
const ownUrls: esbuild.Plugin = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      // Replaced in the syntax tree (esbuild's define), not the text: a string that mentions it stays as it is.
      const source = await readFile(args.path, 'utf8');
      const { code } = await esbuild.transform(source, { loader: 'ts', format: 'esm', define: { 'import.meta.url': JSON.stringify(pathToFileURL(args.path).href) }, sourcefile: args.path });
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
 * The bundle for the current sources, built unless a build of the same sources exists; undefined
 * where there is nothing to bundle (no `fixtures/conformance.ts`). Each build is written whole
 * under a temporary name and renamed into place, so lanes building side by side cannot see half
 * of one.
 */
export async function fixturesBundle(): Promise<FixturesBundle | undefined> {
  if (!existsSync(ENTRY) || process.env[FIXTURES_BUNDLE_ENV] === 'off') return undefined;
  const hash = hashOf(sourceFiles());
  const dir = join(CACHE_DIR, hash);
  const file = join(dir, 'fixtures.mjs');
  if (existsSync(dir)) {
    const now = new Date();
    try {
      utimesSync(dir, now, now); // marks it used, so no other build prunes it as stale
    } catch {
      // a cache this user may read but not write (another user's checkout): use it as it is
    }
  } else {
    mkdirSync(CACHE_DIR, { recursive: true });
    const temp = mkdtempSync(join(CACHE_DIR, `.${hash}-`));
    try {
      await buildInto(temp, dir);
      chmodSync(temp, 0o755); // mkdtemp makes it private; other users of this checkout run it too
      renameSync(temp, dir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      // Another lane renamed its identical build into place first: use that one.
      if (!(existsSync(dir) && ['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? ''))) throw error;
    }
    for (const entry of readdirSync(CACHE_DIR)) {
      const path = join(CACHE_DIR, entry);
      if (entry !== hash && Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    }
  }
  const nodeOptions = [process.env.NODE_OPTIONS, `--import ${pathToFileURL(join(dir, 'register.mjs')).href}`].filter(Boolean).join(' ');
  return { file, env: { NODE_OPTIONS: nodeOptions, [FIXTURES_BUNDLE_ENV]: file, [RUNNER_PARENT_ENV]: String(process.pid) } };
}
