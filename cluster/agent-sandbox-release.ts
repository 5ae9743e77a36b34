import type { AgentSandboxRelease } from './cluster-provider.ts';
import { AGENT_SANDBOX_PROFILES, type AgentSandboxVersion } from './embedded/agent-sandbox/profiles.ts';

/**
 * An Agent Sandbox release as lanes ask for it: the Sandbox API version the driver will prefer
 * (from the release's profile, the table the embedded cluster simulates it by) and the release
 * manifest a real cluster installs. A new version is a new profile; this follows.
 */
export function agentSandboxRelease(version: AgentSandboxVersion): AgentSandboxRelease {
  return {
    version,
    apiVersion: AGENT_SANDBOX_PROFILES[version].apiVersion,
    manifest: `https://github.com/kubernetes-sigs/agent-sandbox/releases/download/${version}/manifest.yaml`,
  };
}
