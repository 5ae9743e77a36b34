import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { upstreamManifests } from '../cluster/manifests/test-kit.ts';

/**
 * `npm run manifests`, run as a user runs it (tsx, its own process), with an empty cache of its
 * own (XDG_CACHE_HOME) and downloads from a local server (AGENT_SANDBOX_RELEASES_URL).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'manifests-cli-'));
});
test.afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function manifests(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, ['--import', 'tsx', 'scripts/manifests.ts', ...args], {
    cwd: ROOT,
    reject: false,
    env: { XDG_CACHE_HOME: join(dir, 'cache'), AGENT_SANDBOX_MANIFESTS: '', ...env },
  });
}

const cached = (version: string, asset: string) => join(dir, 'cache', 'sandbox-conformance', 'agent-sandbox', version, asset);

test('--help says what it does, where the cache is and the other sources', async () => {
  const run = await manifests(['--help']);
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toContain('Usage: npm run manifests -- fetch [VERSION...]');
  expect(run.stdout).toContain('v0.4.6, v0.5.0, v0.5.4 (default: all of them)');
  expect(run.stdout).toContain(`Cache: ${join(dir, 'cache', 'sandbox-conformance', 'agent-sandbox')}/<version>/<asset>`);
  expect(run.stdout).toContain('AGENT_SANDBOX_MANIFESTS=DIR');
});

test('bad input: a clear message, exit 2, and nothing fetched or created', async () => {
  const cases: [string[], string][] = [
    [[], 'error: missing command: fetch'],
    [['get'], 'error: unknown command "get"; the command is fetch'],
    [['fetch', 'v0.5.0', 'v9.9.9', 'latest'], 'error: unknown Agent Sandbox versions "v9.9.9", "latest"; known: v0.4.6, v0.5.0, v0.5.4'],
    [['fetch', '--force'], "error: Unknown option '--force'"],
  ];
  for (const [args, message] of cases) {
    const run = await manifests(args, { AGENT_SANDBOX_RELEASES_URL: 'http://127.0.0.1:1' });
    expect(run.exitCode, args.join(' ')).toBe(2);
    expect(run.stderr, args.join(' ')).toContain(message);
    expect(run.stderr).toContain('Run `npm run manifests -- --help` for usage.');
  }
  expect(existsSync(join(dir, 'cache'))).toBe(false);
});

/** A port that was free a moment ago: connecting is refused, as when the release host is unreachable. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

test('offline: each version fails with what to do, exit 1, and the cache stays empty', async () => {
  const base = `http://127.0.0.1:${await closedPort()}/releases`;
  const run = await manifests(['fetch', 'v0.5.0', 'v0.5.4'], { AGENT_SANDBOX_RELEASES_URL: base });
  expect(run.exitCode).toBe(1);
  expect(run.stderr.split('\n').filter(Boolean)).toEqual([
    `v0.5.0: error: could not download Agent Sandbox v0.5.0 from ${base}/v0.5.0/manifest.yaml (ECONNREFUSED); without network, set AGENT_SANDBOX_MANIFESTS=DIR to a folder holding v0.5.0/manifest.yaml, or run \`npm run manifests -- fetch v0.5.0\` where the network is reachable`,
    `v0.5.4: error: could not download Agent Sandbox v0.5.4 from ${base}/v0.5.4/sandbox.yaml (ECONNREFUSED); without network, set AGENT_SANDBOX_MANIFESTS=DIR to a folder holding v0.5.4/sandbox.yaml, or run \`npm run manifests -- fetch v0.5.4\` where the network is reachable`,
  ]);
  expect(existsSync(join(dir, 'cache'))).toBe(false);
});

test('a corrupt cached copy fails the fetch with what to do; it is not silently replaced', async () => {
  const file = cached('v0.4.6', 'manifest.yaml');
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, 'truncated');
  const run = await manifests(['fetch', 'v0.4.6'], { AGENT_SANDBOX_RELEASES_URL: 'http://127.0.0.1:1' });
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain(`v0.4.6: error: Agent Sandbox v0.4.6 manifest.yaml: ${file} does not match the pinned sha256`);
  expect(run.stderr).toContain(`delete it (rm ${file}) and run \`npm run manifests -- fetch v0.4.6\``);
  expect(await readFile(file, 'utf8')).toBe('truncated');
});

test.describe('with the real release files served locally', () => {
  const upstream = upstreamManifests('v0.4.6', 'v0.5.0', 'v0.5.4');
  test.skip(!!upstream.missing, upstream.missing);

  test('fetch (no version) caches every known release, checked; a second fetch only checks', async () => {
    const files: Record<string, string> = {
      '/dl/v0.4.6/manifest.yaml': upstream.paths['v0.4.6'],
      '/dl/v0.5.0/manifest.yaml': upstream.paths['v0.5.0'],
      '/dl/v0.5.4/sandbox.yaml': upstream.paths['v0.5.4'],
    };
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const file = files[req.url ?? ''];
      if (!file) return void res.writeHead(404).end();
      void readFile(file).then((body) => res.end(body));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dl`;
    try {
      const first = await manifests(['fetch'], { AGENT_SANDBOX_RELEASES_URL: base });
      expect(first.stderr).toBe('');
      expect(first.exitCode).toBe(0);
      expect(first.stdout.split('\n')).toEqual([
        `v0.4.6: downloaded from ${base}/v0.4.6/manifest.yaml: ${cached('v0.4.6', 'manifest.yaml')} (sha256 db8424b2901cef57f71757b5ae5499eda0b6ef0dfd71a50dffeeb44326517967)`,
        `v0.5.0: downloaded from ${base}/v0.5.0/manifest.yaml: ${cached('v0.5.0', 'manifest.yaml')} (sha256 ccfe3649de8b33f0ee0ec635e2c7b40e1c468ad9fde6aac7c7379501327d9c4c)`,
        `v0.5.4: downloaded from ${base}/v0.5.4/sandbox.yaml: ${cached('v0.5.4', 'sandbox.yaml')} (sha256 51e3610f235b58abd465280682d366d3d0fed8972489bf6a800d707988d24c3e)`,
      ]);
      expect(await readFile(cached('v0.5.0', 'manifest.yaml'))).toEqual(await readFile(upstream.paths['v0.5.0']));

      const again = await manifests(['fetch', 'v0.5.0'], { AGENT_SANDBOX_RELEASES_URL: base });
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toBe(`v0.5.0: already cached: ${cached('v0.5.0', 'manifest.yaml')} (sha256 ccfe3649de8b33f0ee0ec635e2c7b40e1c468ad9fde6aac7c7379501327d9c4c)`);
      expect(hits).toHaveLength(3);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});
