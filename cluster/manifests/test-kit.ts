import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { FETCH_COMMAND, MANIFESTS_ENV, localAgentSandboxManifest } from './agent-sandbox-manifests.ts';
import { agentSandboxAsset, type KnownAgentSandboxVersion } from './agent-sandbox-releases.ts';

export interface UpstreamManifests<V extends KnownAgentSandboxVersion> {
  /** The verified local file of each version (only meaningful when `missing` is undefined). */
  paths: Record<V, string>;
  /** Why the tests that need them must skip, naming how to provide them; undefined when all are here. */
  missing?: string;
}

/**
 * The real release manifests a test file needs, from AGENT_SANDBOX_MANIFESTS or the per-user
 * cache only: a test never downloads. Use as
 * `const upstream = upstreamManifests('v0.5.0'); test.skip(!!upstream.missing, upstream.missing);`
 * A copy that is there but does not match its pinned sha256 throws (a failure, not a skip).
 */
export function upstreamManifests<V extends KnownAgentSandboxVersion>(...versions: V[]): UpstreamManifests<V> {
  const paths = {} as Record<V, string>;
  const absent: V[] = [];
  for (const version of versions) {
    const found = localAgentSandboxManifest(version);
    if (found) paths[version] = found.path;
    else absent.push(version);
  }
  if (!absent.length) return { paths };
  const files = absent.map((v) => `${v}/${agentSandboxAsset(v)}`).join(', ');
  return {
    paths,
    missing: `needs the real Agent Sandbox ${absent.join(', ')} release manifest${absent.length > 1 ? 's' : ''}, neither in ${MANIFESTS_ENV} nor cached: set ${MANIFESTS_ENV}=DIR (DIR holding ${files}) or run \`${FETCH_COMMAND} ${absent.join(' ')}\``,
  };
}

/** Every document of a verified release manifest (a path from `upstreamManifests`), nulls dropped. */
export function manifestDocuments(path: string): KubeObjectLike[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as KubeObjectLike | null)
    .filter((d): d is KubeObjectLike => !!d);
}

/** The Sandbox CustomResourceDefinition of a verified release manifest. */
export function sandboxCrdOf(path: string): KubeObjectLike {
  const crd = manifestDocuments(path).find((d) => d.kind === 'CustomResourceDefinition' && d.metadata?.name === 'sandboxes.agents.x-k8s.io');
  if (!crd) throw new Error(`${path} has no CustomResourceDefinition sandboxes.agents.x-k8s.io`);
  return crd;
}

/** A manifest document, typed only as far as these helpers look. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObjectLike = { kind?: string; metadata?: { name?: string; namespace?: string } } & Record<string, any>;
