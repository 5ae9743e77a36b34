/**
 * The Agent Sandbox releases this project installs, as data: the sha256 of each release's core
 * asset (releases/download/<version>/<asset>), pinned here so that every copy — from
 * AGENT_SANDBOX_MANIFESTS, the per-user cache or a fresh download — is checked against the
 * same value. These are the digests third-party projects pin for the published assets. To add
 * a release, add its version and the sha256 of its asset.
 */
import semver from 'semver';

export const AGENT_SANDBOX_RELEASES = {
  'v0.4.6': { sha256: 'db8424b2901cef57f71757b5ae5499eda0b6ef0dfd71a50dffeeb44326517967' },
  'v0.5.0': { sha256: 'ccfe3649de8b33f0ee0ec635e2c7b40e1c468ad9fde6aac7c7379501327d9c4c' },
  'v0.5.4': { sha256: '51e3610f235b58abd465280682d366d3d0fed8972489bf6a800d707988d24c3e' },
} as const satisfies Record<string, { sha256: string }>;

export type KnownAgentSandboxVersion = keyof typeof AGENT_SANDBOX_RELEASES;

/** A table of pinned digests, by version (the default is AGENT_SANDBOX_RELEASES; tests bring their own). */
export type ReleaseTable = Readonly<Record<string, { readonly sha256: string }>>;

export const DEFAULT_RELEASES_URL = 'https://github.com/kubernetes-sigs/agent-sandbox/releases/download';

/**
 * The release asset holding the controller, CRD and RBAC: `manifest.yaml` up to v0.5.1, renamed
 * `sandbox.yaml` from v0.5.2 on (when `extensions.yaml` moved next to it).
 */
export function agentSandboxAsset(version: string): string {
  if (!/^v\d+\.\d+\.\d+$/.test(version)) throw new Error(`"${version}" is not an Agent Sandbox version (vMAJOR.MINOR.PATCH)`);
  return semver.lt(version, '0.5.2') ? 'manifest.yaml' : 'sandbox.yaml';
}

/** Where a release's asset is published (under `baseUrl`, a mirror of the GitHub release downloads). */
export function agentSandboxReleaseUrl(version: string, baseUrl = DEFAULT_RELEASES_URL): string {
  return `${baseUrl.replace(/\/+$/, '')}/${version}/${agentSandboxAsset(version)}`;
}
