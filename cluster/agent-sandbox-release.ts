import type { AgentSandboxRelease } from './cluster-provider.ts';
import { agentSandboxReleaseUrl } from './manifests/agent-sandbox-releases.ts';
import { AGENT_SANDBOX_PROFILES, AGENT_SANDBOX_VERSIONS, type AgentSandboxVersion } from './embedded/agent-sandbox/profiles.ts';

/** The releases this project knows (a profile for the embedded cluster, a pinned manifest for kind). */
export const KNOWN_AGENT_SANDBOX_VERSIONS: readonly AgentSandboxVersion[] = AGENT_SANDBOX_VERSIONS;

/**
 * An Agent Sandbox release as lanes ask for it: the Sandbox API version the driver will prefer
 * (from the release's profile, the table the embedded cluster simulates it by) and the release
 * manifest's release URL (for messages; the kind provider installs the verified local copy from
 * cluster/manifests/). A new version is a new profile; this follows.
 */
export function agentSandboxRelease(version: AgentSandboxVersion): AgentSandboxRelease {
  return {
    version,
    apiVersion: AGENT_SANDBOX_PROFILES[version].apiVersion,
    manifest: agentSandboxReleaseUrl(version),
  };
}
