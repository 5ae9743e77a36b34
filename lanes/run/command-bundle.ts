/**
 * A command of the checkout (`npm run lane`, `npm run explore`, `npm run fault-proxy`) as one
 * JavaScript file. Through tsx, `npm run lane -- --help` took ~3 CPU-seconds, nearly all of it
 * loading and transpiling the ~400 modules under the lane runner (`explore --help` ~3.9,
 * `fault-proxy --help` ~2.5); every run and every test that starts the command paid it. Built
 * with the fixtures bundle's options (each module's `import.meta.url` its own source's, so what
 * the code finds beside itself is where it always was) and cached the same way, keyed by every
 * source of the rooms it may import and the entry.
 *
 * The installed package runs its compiled JavaScript and never builds this.
 */
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { buildHash, cachedBuild } from '../../driver/launch/cached-build.ts';
import { BUILD_OPTIONS, LOCKFILE, ownUrls, projectSources } from './fixtures-bundle.ts';
import { FIXTURES_BUNDLE_ENV } from './lane-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_DIR = join(ROOT, 'node_modules/.cache/sandbox-conformance/commands');

/**
 * The bundle of `entry` (a module of scripts/ that imports only the project's rooms and
 * packages, or of one of `rooms`, whose sources it may import too): its file, to import or run;
 * undefined with CONFORMANCE_FIXTURES_BUNDLE=off (everything from source). Throws when it cannot
 * be built, or when it would take in a file its hash does not cover.
 */
export async function commandBundle(entry: string, rooms: readonly string[] = []): Promise<string | undefined> {
  if (process.env[FIXTURES_BUNDLE_ENV] === 'off') return undefined;
  const sources = [...new Set([...projectSources(), ...projectSources(rooms), entry])];
  const hash = buildHash(ROOT, sources, { esbuild: esbuild.version, BUILD_OPTIONS, entry }, LOCKFILE);
  const name = `${entry.replace(/^.*\//, '').replace(/\.ts$/, '')}.mjs`;
  const { dir } = await cachedBuild(CACHE_DIR, hash, async (temp) => {
    const result = await esbuild.build({ ...BUILD_OPTIONS, absWorkingDir: ROOT, entryPoints: [entry], outfile: join(temp, name), plugins: [ownUrls], metafile: true });
    const covered = new Set(sources);
    const outside = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/') && !covered.has(join(ROOT, input)));
    if (outside.length) throw new Error(`${entry} imports files its bundle's hash does not cover (${outside.join(', ')})`);
  });
  return join(dir, name);
}

/** Runs the command `entry` (see commandBundle) from its bundle; from source, saying why, when the bundle cannot be built. */
export async function importCommand(entry: string, rooms: readonly string[] = []): Promise<void> {
  let bundle: string | undefined;
  try {
    bundle = await commandBundle(entry, rooms);
  } catch (error) {
    process.stderr.write(`note: running ${relative(ROOT, entry)} from source, not from its bundle (${(error as Error).message})\n`);
  }
  await import(pathToFileURL(bundle ?? entry).href);
}
