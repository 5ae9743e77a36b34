/**
 * A build kept in a cache folder under the hash of its inputs, as the project's bundles are (the
 * driver's, the lane's fixtures, the lane command): a build with the same hash is reused; a new
 * one is written whole under a temporary name and renamed into place, so processes building side
 * by side cannot see half of one; builds nobody used for a day are removed.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Builds other than the current one are removed once unused this long (a reuse touches its directory). */
const STALE_BUILD_MS = 24 * 3600_000;

export interface CachedBuild {
  /** `<cacheDir>/<hash>/`, complete. */
  dir: string;
  /** False when an earlier build with the same hash was reused. */
  built: boolean;
}

/** The key of a build: `salt` (the builder's version and options), the lockfile, and each file's path (relative to `root`) and content. */
export function buildHash(root: string, files: readonly string[], salt: unknown, lockfile: string): string {
  const hash = createHash('sha256').update(JSON.stringify(salt)).update(readFileSync(lockfile));
  for (const file of files) hash.update(`\0${relative(root, file)}\0`).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** The build `hash` in `cacheDir`, reused when there, else written by `build(temp, final)` into `temp` (it will be renamed to `final`). */
export function cachedBuildSync(cacheDir: string, hash: string, build: (temp: string, final: string) => void): CachedBuild {
  const dir = join(cacheDir, hash);
  if (reused(dir)) return { dir, built: false };
  const temp = temporary(cacheDir, hash);
  try {
    build(temp, dir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  return installed(cacheDir, hash, temp);
}

/** As cachedBuildSync, with a build that is asynchronous. */
export async function cachedBuild(cacheDir: string, hash: string, build: (temp: string, final: string) => Promise<void>): Promise<CachedBuild> {
  const dir = join(cacheDir, hash);
  if (reused(dir)) return { dir, built: false };
  const temp = temporary(cacheDir, hash);
  try {
    await build(temp, dir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  return installed(cacheDir, hash, temp);
}

/** The directory appears whole (a rename), so its existence means a complete build. */
function reused(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const now = new Date();
  try {
    utimesSync(dir, now, now); // marks it used, so no other build prunes it as stale
  } catch {
    // a cache this user may read but not write (another user's checkout): use it as it is
  }
  return true;
}

function temporary(cacheDir: string, hash: string): string {
  mkdirSync(cacheDir, { recursive: true });
  return mkdtempSync(join(cacheDir, `.${hash}-`));
}

function installed(cacheDir: string, hash: string, temp: string): CachedBuild {
  const dir = join(cacheDir, hash);
  try {
    chmodSync(temp, 0o755); // mkdtemp makes it private; other users of this checkout run it too
    renameSync(temp, dir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // Another process renamed its identical build into place first: use that one.
    if (existsSync(dir) && ['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) return { dir, built: false };
    throw error;
  }
  for (const entry of readdirSync(cacheDir)) {
    const path = join(cacheDir, entry);
    if (entry !== hash && Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
  return { dir, built: true };
}
