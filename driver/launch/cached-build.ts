/**
 * A build kept in a cache folder under the hash of its inputs, as the project's bundles are (the
 * driver's, the lane's fixtures, the lane command): a build with the same hash is reused; a new
 * one is written whole under a temporary name and renamed into place, so no process can see half
 * of one; builds nobody used for a day are removed.
 *
 * One process builds a hash at a time; the others wait for its build and reuse it. On a fresh
 * clone `npm test` starts a dozen lanes at once, each of which needs the same three bundles: built
 * side by side, every one of them paid ~6 CPU-seconds per bundle for a build all but one threw
 * away. The lock is a directory (`mkdir` either creates it or fails, atomically) holding the
 * builder's pid, so a lock whose builder died is taken over at once. Written here rather than
 * with a lock package: those keep a lock alive by refreshing its mtime on a timer, which a
 * synchronous build (the driver's, esbuild's buildSync) would starve; a pid needs no timer.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative } from 'node:path';

/** Builds other than the current one are removed once unused this long (a reuse touches its directory). */
const STALE_BUILD_MS = 24 * 3600_000;
/** How often a process waiting for another's build looks again. */
const WAIT_POLL_MS = 100;
/** How long a process waits for another's build before it gives up with an error (a build takes seconds). */
const WAIT_DEADLINE_MS = 5 * 60_000;
/** A lock without a readable pid this long after it was made is a builder that died before writing one. */
const PIDLESS_LOCK_MS = 10_000;

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

/**
 * The build `hash` in `cacheDir`, reused when there, else written by `build(temp, final)` into
 * `temp` (it will be renamed to `final`); while another process builds it, waited for (up to
 * `waitDeadlineMs`) and reused.
 */
export function cachedBuildSync(cacheDir: string, hash: string, build: (temp: string, final: string) => void, waitDeadlineMs = WAIT_DEADLINE_MS): CachedBuild {
  const dir = join(cacheDir, hash);
  const waiting = new BuildWait(cacheDir, hash, waitDeadlineMs);
  for (;;) {
    if (reused(dir)) return { dir, built: false };
    if (waiting.lock()) break;
    waiting.check();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAIT_POLL_MS); // a synchronous sleep: the caller's build is synchronous too
  }
  try {
    if (reused(dir)) return { dir, built: false }; // installed by the process that held the lock just before
    const temp = temporary(cacheDir, hash);
    try {
      build(temp, dir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      throw error;
    }
    return installed(cacheDir, hash, temp);
  } finally {
    waiting.unlock();
  }
}

/** As cachedBuildSync, with a build that is asynchronous. */
export async function cachedBuild(cacheDir: string, hash: string, build: (temp: string, final: string) => Promise<void>, waitDeadlineMs = WAIT_DEADLINE_MS): Promise<CachedBuild> {
  const dir = join(cacheDir, hash);
  const waiting = new BuildWait(cacheDir, hash, waitDeadlineMs);
  for (;;) {
    if (reused(dir)) return { dir, built: false };
    if (waiting.lock()) break;
    waiting.check();
    await sleep(WAIT_POLL_MS);
  }
  try {
    if (reused(dir)) return { dir, built: false }; // installed by the process that held the lock just before
    const temp = temporary(cacheDir, hash);
    try {
      await build(temp, dir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      throw error;
    }
    return installed(cacheDir, hash, temp);
  } finally {
    waiting.unlock();
  }
}

/**
 * The lock of one hash's build, `<cacheDir>/.<hash>.lock/` with the builder's pid in it, and a
 * wait for it. The builder installs its build before it releases the lock, and whoever takes the
 * lock looks for an installed build first, so a hash is built once however the looks interleave.
 */
class BuildWait {
  private readonly path: string;
  private readonly since = Date.now();

  constructor(
    private readonly cacheDir: string,
    private readonly hash: string,
    private readonly deadlineMs: number,
  ) {
    this.path = join(cacheDir, `.${hash}.lock`);
  }

  /** Takes the lock; false when another process holds it. */
  lock(): boolean {
    mkdirSync(this.cacheDir, { recursive: true });
    try {
      mkdirSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    writeFileSync(join(this.path, 'pid'), String(process.pid));
    return true;
  }

  unlock(): void {
    rmSync(this.path, { recursive: true, force: true });
  }

  /** Between two looks: removes a lock whose builder is gone (the next lock() takes it), and throws once the wait is over its deadline. */
  check(): void {
    const holder = this.holder();
    if (holder === 'gone') {
      rmSync(this.path, { recursive: true, force: true });
      return;
    }
    if (Date.now() - this.since > this.deadlineMs) {
      throw new Error(`waited ${this.deadlineMs / 1000} s for process ${holder ?? '(unknown)'} to finish building ${this.hash} in ${this.cacheDir}; if no build is running, remove ${this.path}`);
    }
  }

  /** The builder's pid while it runs; 'gone' when it died; undefined when not known yet (or the lock was just released). */
  private holder(): number | 'gone' | undefined {
    let text: string;
    try {
      text = readFileSync(join(this.path, 'pid'), 'utf8');
    } catch {
      try {
        return Date.now() - statSync(this.path).mtimeMs > PIDLESS_LOCK_MS ? 'gone' : undefined;
      } catch {
        return undefined; // released between the two looks
      }
    }
    const pid = Number(text);
    if (!Number.isInteger(pid) || pid <= 0) return 'gone';
    try {
      process.kill(pid, 0);
      return pid;
    } catch (error) {
      // EPERM: alive, another user's process.
      return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : 'gone';
    }
  }
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
    const mtimeMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs; // another process's lock or temporary folder may go meanwhile
    if (entry !== hash && mtimeMs !== undefined && Date.now() - mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
  return { dir, built: true };
}
