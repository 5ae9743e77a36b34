/**
 * `sandbox-conformance manifests fetch [VERSION...]` (and `npm run manifests -- fetch`): fills the
 * per-user cache with the real Agent Sandbox release manifests, each checked against its pinned
 * sha256 (cluster/manifests/).
 */
import { parseArgs } from 'node:util';
import { MANIFESTS_ENV, RELEASES_URL_ENV, cacheAgentSandboxManifest, manifestCacheDir } from '../cluster/manifests/agent-sandbox-manifests.ts';
import { AGENT_SANDBOX_RELEASES } from '../cluster/manifests/agent-sandbox-releases.ts';

const KNOWN = Object.keys(AGENT_SANDBOX_RELEASES);

const help = (command: string) => `Usage: ${command} fetch [VERSION...]

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

Docs: docs/kind.md (Agent Sandbox release manifests)
`;

/** Runs the command; resolves to the exit status (0, 1 when a version could not be cached, 2 for bad usage). */
/** `sandbox-conformance manifests`'s (and `npm run manifests`') options. */
export const MANIFESTS_OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;

export async function manifestsCommand(argv: string[], command = 'sandbox-conformance manifests'): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`error: ${message}\n\nRun \`${command} --help\` for usage.\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: MANIFESTS_OPTIONS });
  } catch (error) {
    return fail((error as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(help(command));
    return 0;
  }
  const [action, ...versions] = parsed.positionals;
  if (action !== 'fetch') return fail(action ? `unknown command "${action}"; the command is fetch` : 'missing command: fetch');
  const unknown = versions.filter((v) => !KNOWN.includes(v));
  if (unknown.length) return fail(`unknown Agent Sandbox version${unknown.length > 1 ? 's' : ''} ${unknown.map((v) => `"${v}"`).join(', ')}; known: ${KNOWN.join(', ')}`);

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
  return failed ? 1 : 0;
}
