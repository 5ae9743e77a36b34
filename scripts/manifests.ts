#!/usr/bin/env tsx
/**
 * `npm run manifests -- fetch [VERSION...]`: fills the per-user cache with the real Agent Sandbox
 * release manifests, each checked against its pinned sha256 (cluster/manifests/).
 */
import { parseArgs } from 'node:util';
import { MANIFESTS_ENV, RELEASES_URL_ENV, cacheAgentSandboxManifest, manifestCacheDir } from '../cluster/manifests/agent-sandbox-manifests.ts';
import { AGENT_SANDBOX_RELEASES } from '../cluster/manifests/agent-sandbox-releases.ts';

const KNOWN = Object.keys(AGENT_SANDBOX_RELEASES);

const HELP = `Usage: npm run manifests -- fetch [VERSION...]

Downloads the Agent Sandbox release manifests into the per-user cache, so that kind lanes
and the tests that need the real manifests work offline afterwards. Every file is checked
against the sha256 pinned in cluster/manifests/agent-sandbox-releases.ts; a file already
cached is checked, not downloaded again.

  VERSION        ${KNOWN.join(', ')} (default: all of them)

Cache: ${manifestCacheDir()}/<version>/<asset>
       ($XDG_CACHE_HOME, else ~/.cache, then sandbox-conformance/agent-sandbox)

Other sources, used before the cache by lanes and tests (not by this command):
  ${MANIFESTS_ENV}=DIR   a folder holding <version>/<asset> (manifest.yaml up to v0.5.1,
                                 sandbox.yaml from v0.5.2)
Downloads come from https://github.com/kubernetes-sigs/agent-sandbox/releases/download,
or from ${RELEASES_URL_ENV} (a mirror with the same layout).

Options:
  -h, --help   this help
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\nRun \`npm run manifests -- --help\` for usage.\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
} catch (error) {
  fail((error as Error).message);
}
if (parsed.values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const [command, ...versions] = parsed.positionals;
if (command !== 'fetch') fail(command ? `unknown command "${command}"; the command is fetch` : 'missing command: fetch');
const unknown = versions.filter((v) => !KNOWN.includes(v));
if (unknown.length) fail(`unknown Agent Sandbox version${unknown.length > 1 ? 's' : ''} ${unknown.map((v) => `"${v}"`).join(', ')}; known: ${KNOWN.join(', ')}`);

let failed = 0;
for (const version of versions.length ? versions : KNOWN) {
  try {
    const got = await cacheAgentSandboxManifest(version);
    const how = got.source === 'download' ? `downloaded from ${got.url}` : 'already cached';
    process.stdout.write(`${version}: ${how}: ${got.path} (sha256 ${got.sha256})\n`);
  } catch (error) {
    failed++;
    process.stderr.write(`${version}: error: ${(error as Error).message}\n`);
  }
}
process.exit(failed ? 1 : 0);
