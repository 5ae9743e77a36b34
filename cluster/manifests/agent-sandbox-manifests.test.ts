import { expect, test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MANIFESTS_ENV,
  RELEASES_URL_ENV,
  cacheAgentSandboxManifest,
  localAgentSandboxManifest,
  manifestCacheDir,
  resolveAgentSandboxManifest,
  type ManifestOptions,
} from './agent-sandbox-manifests.ts';
import { AGENT_SANDBOX_RELEASES, agentSandboxAsset, agentSandboxReleaseUrl } from './agent-sandbox-releases.ts';

/**
 * The resolver against real files in temp dirs and a real HTTP server started here (the base
 * URL is overridable for exactly this). Tests that need the real upstream bytes use the real
 * pinned table with a tampered copy; download tests bring a table pinning their own bytes.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const FAKE = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fake-release\n';
const FAKE_RELEASES = { 'v0.5.0': { sha256: sha256(FAKE) }, 'v0.5.4': { sha256: sha256(FAKE) } };

let root: string;
let runs = 0;

test.beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'manifests-test-'));
});

test.afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** A fresh folder for one test: an empty cache (XDG_CACHE_HOME) and a place for an env dir. */
async function sandbox() {
  const dir = join(root, `run-${++runs}`);
  await mkdir(dir, { recursive: true });
  const env: Record<string, string | undefined> = { XDG_CACHE_HOME: join(dir, 'cache'), HOME: join(dir, 'home') };
  return { dir, env, cacheFile: (version: string) => join(manifestCacheDir(env), version, agentSandboxAsset(version)) };
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

/** Every file and folder under `dir`, relative, sorted (what a failed download may have left). */
async function tree(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/releases/download`,
    hits,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

test('the asset is manifest.yaml up to v0.5.1 and sandbox.yaml from v0.5.2; v0.4.6, v0.5.0 and v0.5.4 are pinned', () => {
  expect(['v0.4.6', 'v0.5.0', 'v0.5.1', 'v0.5.2', 'v0.5.4', 'v1.0.0'].map(agentSandboxAsset)).toEqual([
    'manifest.yaml',
    'manifest.yaml',
    'manifest.yaml',
    'sandbox.yaml',
    'sandbox.yaml',
    'sandbox.yaml',
  ]);
  expect(Object.keys(AGENT_SANDBOX_RELEASES)).toEqual(['v0.4.6', 'v0.5.0', 'v0.5.4']);
  for (const { sha256: digest } of Object.values(AGENT_SANDBOX_RELEASES)) expect(digest).toMatch(/^[0-9a-f]{64}$/);
  expect(agentSandboxReleaseUrl('v0.5.4')).toBe('https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.5.4/sandbox.yaml');
  expect(() => agentSandboxAsset('latest')).toThrow('"latest" is not an Agent Sandbox version (vMAJOR.MINOR.PATCH)');
});

test('the cache is $XDG_CACHE_HOME/sandbox-conformance/agent-sandbox, else ~/.cache/…; a relative XDG_CACHE_HOME is ignored', () => {
  expect(manifestCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe(join('/c', 'sandbox-conformance', 'agent-sandbox'));
  expect(manifestCacheDir({ HOME: '/h' })).toBe(join('/h', '.cache', 'sandbox-conformance', 'agent-sandbox'));
  expect(manifestCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe(join('/h', '.cache', 'sandbox-conformance', 'agent-sandbox'));
});

test('AGENT_SANDBOX_MANIFESTS is used first: DIR/<version>/<asset>, verified', async () => {
  const { dir, env } = await sandbox();
  const envDir = join(dir, 'upstream');
  await put(join(envDir, 'v0.5.4', 'sandbox.yaml'), FAKE);
  const options: ManifestOptions = { env: { ...env, [MANIFESTS_ENV]: envDir }, releases: FAKE_RELEASES };
  expect(await resolveAgentSandboxManifest('v0.5.4', options)).toBe(join(envDir, 'v0.5.4', 'sandbox.yaml'));
  expect(localAgentSandboxManifest('v0.5.4', options)).toMatchObject({ source: 'env-dir', sha256: sha256(FAKE) });
  // Nothing was copied or downloaded into the cache.
  expect(await tree(env.XDG_CACHE_HOME!)).toEqual([]);
});

test('a version AGENT_SANDBOX_MANIFESTS lacks comes from the cache; a DIR that is not a directory is an error', async () => {
  const { dir, env, cacheFile } = await sandbox();
  const envDir = join(dir, 'upstream');
  await mkdir(envDir);
  await put(cacheFile('v0.5.0'), FAKE);
  const options: ManifestOptions = { env: { ...env, [MANIFESTS_ENV]: envDir }, releases: FAKE_RELEASES };
  expect(await resolveAgentSandboxManifest('v0.5.0', options)).toBe(cacheFile('v0.5.0'));
  expect(localAgentSandboxManifest('v0.5.0', options)?.source).toBe('cache');

  const missing = join(dir, 'no-such-dir');
  await expect(resolveAgentSandboxManifest('v0.5.0', { ...options, env: { ...env, [MANIFESTS_ENV]: missing } })).rejects.toThrow(
    `AGENT_SANDBOX_MANIFESTS=${missing} is not a directory; point it at a folder holding <version>/<asset> (e.g. v0.5.0/manifest.yaml), or unset it`,
  );
});

test('a cache hit is served without the network', async () => {
  const { env, cacheFile } = await sandbox();
  await put(cacheFile('v0.5.0'), FAKE);
  const server = await serve((_req, res) => res.end('should not be asked'));
  try {
    const path = await resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES });
    expect(path).toBe(cacheFile('v0.5.0'));
    expect(await readFile(path, 'utf8')).toBe(FAKE);
    expect(server.hits).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a tampered copy (env dir or cache) is an error naming the file, both digests and what to do', async () => {
  const { dir, env, cacheFile } = await sandbox();
  const tampered = 'kind: Namespace # edited\n';
  const expected = AGENT_SANDBOX_RELEASES['v0.5.0'].sha256;

  await put(cacheFile('v0.5.0'), tampered);
  const cached = await resolveAgentSandboxManifest('v0.5.0', { env }).then(() => undefined, (e: Error) => e.message);
  expect(cached).toBe(
    [
      `Agent Sandbox v0.5.0 manifest.yaml: ${cacheFile('v0.5.0')} does not match the pinned sha256`,
      `  expected ${expected}`,
      `  got      ${sha256(tampered)}`,
      `the cached copy is corrupt or not the release asset: delete it (rm ${cacheFile('v0.5.0')}) and run \`npm run manifests -- fetch v0.5.0\``,
    ].join('\n'),
  );
  // The local lookup (what tests use to decide whether to skip) fails the same way: a bad copy is never a skip.
  expect(() => localAgentSandboxManifest('v0.5.0', { env })).toThrow('does not match the pinned sha256');
  // And the cached file is left for the user to look at, not silently replaced.
  expect(await readFile(cacheFile('v0.5.0'), 'utf8')).toBe(tampered);

  const envDir = join(dir, 'upstream');
  const file = join(envDir, 'v0.5.0', 'manifest.yaml');
  await put(file, tampered);
  await expect(resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [MANIFESTS_ENV]: envDir } })).rejects.toThrow(
    `${file} does not match the pinned sha256\n  expected ${expected}\n  got      ${sha256(tampered)}\nAGENT_SANDBOX_MANIFESTS must hold the release asset itself: replace ${file} with https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.5.0/manifest.yaml, or unset AGENT_SANDBOX_MANIFESTS`,
  );
});

test('an unknown version is an error listing the known ones', async () => {
  const { env } = await sandbox();
  await expect(resolveAgentSandboxManifest('v9.9.9', { env })).rejects.toThrow(
    'unknown Agent Sandbox version "v9.9.9"; known: v0.4.6, v0.5.0, v0.5.4 (each needs its sha256 pinned in cluster/manifests/agent-sandbox-releases.ts)',
  );
  expect(() => localAgentSandboxManifest('main', { env })).toThrow('unknown Agent Sandbox version "main"');
});

test('an unwritable cache is an error naming the folder and what to do; nothing is created', async () => {
  const { dir, env } = await sandbox();
  // A file where the cache folder would go: refused even for root, unlike a chmod.
  const blocker = join(dir, 'not-a-folder');
  await writeFile(blocker, '');
  const server = await serve((_req, res) => res.end(FAKE));
  try {
    const options: ManifestOptions = { env: { ...env, XDG_CACHE_HOME: blocker, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES };
    const message = await resolveAgentSandboxManifest('v0.5.0', options).then(() => '', (e: Error) => e.message);
    expect(message).toMatch(
      new RegExp(`^the manifest cache ${join(blocker, 'sandbox-conformance', 'agent-sandbox', 'v0.5.0')} is not writable \\((ENOTDIR|EEXIST): .*\\); set XDG_CACHE_HOME to a writable folder, or AGENT_SANDBOX_MANIFESTS=DIR to a folder holding v0.5.0/manifest.yaml$`),
    );
    expect(server.hits).toEqual([]);
    expect(await readFile(blocker, 'utf8')).toBe('');
  } finally {
    await server.close();
  }
});

test('a cache folder without write permission is the same clear error (as a user other than root)', async () => {
  test.skip(process.getuid?.() === 0, 'root may write into any folder, so a read-only folder cannot be shown to root');
  const { env } = await sandbox();
  const versionDir = join(manifestCacheDir(env), 'v0.5.0');
  await mkdir(versionDir, { recursive: true });
  await chmod(versionDir, 0o500);
  const server = await serve((_req, res) => res.end(FAKE));
  try {
    await expect(resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES })).rejects.toThrow(
      new RegExp(`^the manifest cache ${versionDir} is not writable \\(EACCES: `),
    );
    expect(await tree(versionDir)).toEqual([]);
    expect(server.hits).toEqual([]);
  } finally {
    await chmod(versionDir, 0o700);
    await server.close();
  }
});

test('a download lands in the cache (following a redirect, as GitHub answers); the next resolve is a cache hit', async () => {
  const { env, cacheFile } = await sandbox();
  const server = await serve((req, res) => {
    if (req.url === '/releases/download/v0.5.0/manifest.yaml') {
      res.writeHead(302, { location: '/objects/manifest-blob' }).end();
    } else if (req.url === '/objects/manifest-blob') {
      res.end(FAKE);
    } else {
      res.writeHead(404).end();
    }
  });
  try {
    const progress: string[] = [];
    const options: ManifestOptions = { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES, progress: (l) => progress.push(l) };
    expect(localAgentSandboxManifest('v0.5.0', options)).toBeUndefined();
    expect(server.hits).toEqual([]);

    const first = await cacheAgentSandboxManifest('v0.5.0', options);
    expect(first).toEqual({ version: 'v0.5.0', path: cacheFile('v0.5.0'), sha256: sha256(FAKE), source: 'download', url: `${server.url}/v0.5.0/manifest.yaml` });
    expect(await readFile(cacheFile('v0.5.0'), 'utf8')).toBe(FAKE);
    expect(server.hits).toEqual(['/releases/download/v0.5.0/manifest.yaml', '/objects/manifest-blob']);
    expect(progress).toEqual([
      `downloading Agent Sandbox v0.5.0 manifest.yaml from ${server.url}/v0.5.0/manifest.yaml`,
      `saved Agent Sandbox v0.5.0 manifest.yaml (sha256 ${sha256(FAKE)}) to ${cacheFile('v0.5.0')}`,
    ]);
    // Only the file itself: no temp file beside it.
    expect(await tree(join(manifestCacheDir(env), 'v0.5.0'))).toEqual(['manifest.yaml']);

    expect(await resolveAgentSandboxManifest('v0.5.0', options)).toBe(cacheFile('v0.5.0'));
    expect((await cacheAgentSandboxManifest('v0.5.0', options)).source).toBe('cache');
    expect(server.hits).toHaveLength(2);
  } finally {
    await server.close();
  }
});

test('a download that breaks off leaves nothing: no file under the real name, no temp file, no new folder', async () => {
  const { env } = await sandbox();
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-length': String(FAKE.length * 10) });
    res.write(FAKE.slice(0, 20));
    // Let the first bytes reach the client, then drop the connection mid-body.
    setTimeout(() => res.destroy(), 50);
  });
  try {
    const message = await resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toMatch(new RegExp(`^the download of ${server.url}/v0.5.0/manifest.yaml broke off after 20 bytes \\(.+\\); nothing was saved; try again$`));
    expect(await tree(env.XDG_CACHE_HOME!)).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a download with other bytes than pinned is refused with both digests; nothing is saved', async () => {
  const { env } = await sandbox();
  const server = await serve((_req, res) => res.end('something else\n'));
  try {
    await expect(resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES })).rejects.toThrow(
      `Agent Sandbox v0.5.0 manifest.yaml: the download of ${server.url}/v0.5.0/manifest.yaml does not match the pinned sha256\n  expected ${sha256(FAKE)}\n  got      ${sha256('something else\n')}\nnothing was saved`,
    );
    expect(await tree(env.XDG_CACHE_HOME!)).toEqual([]);
  } finally {
    await server.close();
  }
});

test('offline (nothing answers) and HTTP errors are clear errors; nothing is created', async () => {
  const { env } = await sandbox();
  // A port that was just free: connection refused, as when the host is unreachable.
  const closed = await serve(() => undefined);
  await closed.close();
  const offline = await resolveAgentSandboxManifest('v0.5.0', { env: { ...env, [RELEASES_URL_ENV]: closed.url }, releases: FAKE_RELEASES }).then(
    () => '',
    (e: Error) => e.message,
  );
  expect(offline).toBe(
    `could not download Agent Sandbox v0.5.0 from ${closed.url}/v0.5.0/manifest.yaml (ECONNREFUSED); without network, set AGENT_SANDBOX_MANIFESTS=DIR to a folder holding v0.5.0/manifest.yaml, or run \`npm run manifests -- fetch v0.5.0\` where the network is reachable`,
  );
  expect(await tree(env.XDG_CACHE_HOME!)).toEqual([]);

  const server = await serve((_req, res) => res.writeHead(404, 'Not Found').end());
  try {
    await expect(resolveAgentSandboxManifest('v0.5.4', { env: { ...env, [RELEASES_URL_ENV]: server.url }, releases: FAKE_RELEASES })).rejects.toThrow(
      `could not download Agent Sandbox v0.5.4: ${server.url}/v0.5.4/sandbox.yaml answered HTTP 404 Not Found; is v0.5.4 a published release?`,
    );
    expect(await tree(env.XDG_CACHE_HOME!)).toEqual([]);
  } finally {
    await server.close();
  }
});
