/**
 * The one way to get a real Agent Sandbox release manifest as a local file:
 *
 * 1. `AGENT_SANDBOX_MANIFESTS=DIR`: `DIR/<version>/<asset>` (a folder the user keeps, e.g. offline);
 * 2. the per-user cache: `$XDG_CACHE_HOME` (or `~/.cache`) `/sandbox-conformance/agent-sandbox/<version>/<asset>`;
 * 3. a download of the release asset into that cache (temp file + rename: a partial download
 *    never takes the real name).
 *
 * Every copy, wherever it comes from, is checked against the sha256 pinned in
 * agent-sandbox-releases.ts before anyone gets its path.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, readFileSync, statSync } from 'node:fs';
import { access, mkdir, open, rename, rm, rmdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { AGENT_SANDBOX_RELEASES, DEFAULT_RELEASES_URL, agentSandboxAsset, agentSandboxReleaseUrl, type ReleaseTable } from './agent-sandbox-releases.ts';

export const MANIFESTS_ENV = 'AGENT_SANDBOX_MANIFESTS';
/** A mirror of https://github.com/kubernetes-sigs/agent-sandbox/releases/download (tests point it at a local server). */
export const RELEASES_URL_ENV = 'AGENT_SANDBOX_RELEASES_URL';
export const FETCH_COMMAND = 'npm run manifests -- fetch';

const DEFAULT_DOWNLOAD_TIMEOUT_MS = 120_000;

export interface ManifestOptions {
  /** Where AGENT_SANDBOX_MANIFESTS, AGENT_SANDBOX_RELEASES_URL, XDG_CACHE_HOME and HOME come from (default process.env). */
  env?: Record<string, string | undefined>;
  /** The pinned digests (default AGENT_SANDBOX_RELEASES). */
  releases?: ReleaseTable;
  /** Deadline for one download, headers and body (default 120 s). */
  timeoutMs?: number;
  progress?: (line: string) => void;
}

export type ManifestSource = 'env-dir' | 'cache' | 'download';

export interface ResolvedManifest {
  version: string;
  /** The verified local file. */
  path: string;
  sha256: string;
  source: ManifestSource;
  /** Where the release publishes it. */
  url: string;
}

/** A manifest that cannot be had, with what the user should do about it. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

interface Release {
  version: string;
  asset: string;
  sha256: string;
  url: string;
}

function envOf(options: ManifestOptions): Record<string, string | undefined> {
  return options.env ?? process.env;
}

function release(version: string, options: ManifestOptions): Release {
  const releases: ReleaseTable = options.releases ?? AGENT_SANDBOX_RELEASES;
  const pinned = Object.hasOwn(releases, version) ? releases[version] : undefined;
  if (!pinned) {
    throw new ManifestError(
      `unknown Agent Sandbox version "${version}"; known: ${Object.keys(releases).join(', ')} (each needs its sha256 pinned in cluster/manifests/agent-sandbox-releases.ts)`,
    );
  }
  const base = envOf(options)[RELEASES_URL_ENV] || DEFAULT_RELEASES_URL;
  return { version, asset: agentSandboxAsset(version), sha256: pinned.sha256, url: agentSandboxReleaseUrl(version, base) };
}

/** The per-user cache of release manifests (XDG base directory spec: a relative XDG_CACHE_HOME is ignored). */
export function manifestCacheDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache');
  return join(base, 'sandbox-conformance', 'agent-sandbox');
}

function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function howToFix(source: ManifestSource, r: Release, path: string): string {
  switch (source) {
    case 'env-dir':
      return `${MANIFESTS_ENV} must hold the release asset itself: replace ${path} with ${r.url}, or unset ${MANIFESTS_ENV}`;
    case 'cache':
      return `the cached copy is corrupt or not the release asset: delete it (rm ${path}) and run \`${FETCH_COMMAND} ${r.version}\``;
    case 'download':
      return `nothing was saved; try again, or put the real file in ${MANIFESTS_ENV}=DIR (DIR/${r.version}/${r.asset})`;
  }
}

function mismatch(source: ManifestSource, r: Release, path: string, actual: string): ManifestError {
  const what = source === 'download' ? `the download of ${r.url}` : path;
  return new ManifestError(
    `Agent Sandbox ${r.version} ${r.asset}: ${what} does not match the pinned sha256\n  expected ${r.sha256}\n  got      ${actual}\n${howToFix(source, r, path)}`,
  );
}

/** `path` as a verified manifest, or undefined when there is no such file. */
function verified(path: string, source: ManifestSource, r: Release): ResolvedManifest | undefined {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return undefined;
  }
  if (!isFile) return undefined;
  const actual = sha256Of(path);
  if (actual !== r.sha256) throw mismatch(source, r, path, actual);
  return { version: r.version, path, sha256: actual, source, url: r.url };
}

function fromEnvDir(r: Release, options: ManifestOptions): ResolvedManifest | undefined {
  const dir = envOf(options)[MANIFESTS_ENV];
  if (!dir) return undefined;
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new ManifestError(`${MANIFESTS_ENV}=${dir} is not a directory; point it at a folder holding <version>/<asset> (e.g. ${r.version}/${r.asset}), or unset it`);
  return verified(join(dir, r.version, r.asset), 'env-dir', r);
}

function cachePath(r: Release, options: ManifestOptions): string {
  return join(manifestCacheDir(envOf(options)), r.version, r.asset);
}

/**
 * The manifest of `version` from AGENT_SANDBOX_MANIFESTS or the cache, verified; undefined when
 * neither has it. Never touches the network (tests use it to decide whether to skip).
 */
export function localAgentSandboxManifest(version: string, options: ManifestOptions = {}): ResolvedManifest | undefined {
  const r = release(version, options);
  return fromEnvDir(r, options) ?? verified(cachePath(r, options), 'cache', r);
}

/** The local path of the verified manifest of `version`: AGENT_SANDBOX_MANIFESTS, else the cache, else downloaded into the cache. */
export async function resolveAgentSandboxManifest(version: string, options: ManifestOptions = {}): Promise<string> {
  const local = localAgentSandboxManifest(version, options);
  if (local) return local.path;
  return (await downloadToCache(release(version, options), options)).path;
}

/** Makes sure the cache holds a verified copy of `version` (AGENT_SANDBOX_MANIFESTS is not consulted): `npm run manifests -- fetch`. */
export async function cacheAgentSandboxManifest(version: string, options: ManifestOptions = {}): Promise<ResolvedManifest> {
  const r = release(version, options);
  return verified(cachePath(r, options), 'cache', r) ?? downloadToCache(r, options);
}

/** Why a fetch failed, in words: the cause's code (ENOTFOUND, ECONNREFUSED, …) says more than "fetch failed". */
function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no complete answer in time';
  const cause = e?.cause;
  if (cause?.code) return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? `: ${cause.message}` : ''}`;
  return cause?.message ?? e?.message ?? String(error);
}

function unwritable(dir: string, r: Release, error: unknown): ManifestError {
  const e = error as NodeJS.ErrnoException;
  return new ManifestError(
    `the manifest cache ${dir} is not writable (${e.code ?? 'error'}: ${e.message}); set XDG_CACHE_HOME to a writable folder, or ${MANIFESTS_ENV}=DIR to a folder holding ${r.version}/${r.asset}`,
  );
}

/** Removes the directories this download created (deepest first), each only if still empty. */
async function removeCreatedDirs(dir: string, created: string | undefined): Promise<void> {
  if (!created) return;
  for (let d = dir; ; d = dirname(d)) {
    await rmdir(d).catch(() => undefined);
    if (d === created || relative(created, d).startsWith('..') || d === dirname(d)) return;
  }
}

async function downloadToCache(r: Release, options: ManifestOptions): Promise<ResolvedManifest> {
  const target = cachePath(r, options);
  const dir = dirname(target);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
    // Refuse before the network is asked: an existing folder may still be read-only.
    await access(dir, constants.W_OK);
  } catch (error) {
    await removeCreatedDirs(dir, created);
    throw unwritable(dir, r, error);
  }
  // Same directory as the target, so the final rename is atomic; a name no reader looks for.
  const temp = join(dir, `.${r.asset}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  try {
    options.progress?.(`downloading Agent Sandbox ${r.version} ${r.asset} from ${r.url}`);
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(r.url, { signal, redirect: 'follow' });
    } catch (error) {
      throw new ManifestError(
        `could not download Agent Sandbox ${r.version} from ${r.url} (${describe(error)}); without network, set ${MANIFESTS_ENV}=DIR to a folder holding ${r.version}/${r.asset}, or run \`${FETCH_COMMAND} ${r.version}\` where the network is reachable`,
      );
    }
    if (!response.ok || !response.body) {
      throw new ManifestError(`could not download Agent Sandbox ${r.version}: ${r.url} answered HTTP ${response.status} ${response.statusText}; is ${r.version} a published release?`);
    }
    let file;
    try {
      file = await open(temp, 'wx', 0o644);
    } catch (error) {
      throw unwritable(dir, r, error);
    }
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of response.body) {
        hash.update(chunk);
        bytes += chunk.length;
        await file.write(chunk);
      }
    } catch (error) {
      throw new ManifestError(`the download of ${r.url} broke off after ${bytes} bytes (${describe(error)}); nothing was saved; try again`);
    } finally {
      await file.close();
    }
    const actual = hash.digest('hex');
    if (actual !== r.sha256) throw mismatch('download', r, target, actual);
    await rename(temp, target);
    options.progress?.(`saved Agent Sandbox ${r.version} ${r.asset} (sha256 ${actual}) to ${target}`);
    return { version: r.version, path: target, sha256: actual, source: 'download', url: r.url };
  } catch (error) {
    await rm(temp, { force: true });
    await removeCreatedDirs(dir, created);
    throw error;
  }
}
