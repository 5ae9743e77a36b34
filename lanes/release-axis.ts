import { agentSandboxRelease, KNOWN_AGENT_SANDBOX_VERSIONS } from '../cluster/agent-sandbox-release.ts';
import type { AgentSandboxVersion } from '../cluster/cluster-provider.ts';
import type { Lane } from './lane-declaration.ts';

/**
 * The Agent Sandbox release as a lane axis (`--agent-sandbox VERSION`): the lane as it is, on
 * another release. Only a release under which the driver uses the Sandbox API version the lane
 * tests can run it (the driver prefers v1beta1 whenever it is served). A lane on a release other
 * than its own is named `<lane>-<version>`, so its reports, its Playwright project and its kind
 * cluster stay apart from the lane's own.
 */
export function laneOnRelease(lane: Lane, version: string, lanes: readonly Lane[]): Lane {
  if (!(KNOWN_AGENT_SANDBOX_VERSIONS as readonly string[]).includes(version)) {
    throw new Error(`unknown Agent Sandbox version "${version}"; known: ${KNOWN_AGENT_SANDBOX_VERSIONS.join(', ')}`);
  }
  const release = agentSandboxRelease(version as AgentSandboxVersion);
  if (release.apiVersion !== lane.agentSandbox.apiVersion) {
    const fitting = KNOWN_AGENT_SANDBOX_VERSIONS.filter((v) => agentSandboxRelease(v).apiVersion === lane.agentSandbox.apiVersion);
    const lanesForIt = lanes.filter((l) => l.agentSandbox.apiVersion === release.apiVersion).map((l) => l.name);
    throw new Error(
      `Agent Sandbox ${version} cannot run lane ${lane.name}: the lane tests the ${lane.agentSandbox.apiVersion} Sandbox API, and with ${version} the driver uses ${release.apiVersion}. ` +
        `Lane ${lane.name} runs on ${fitting.join(' or ')}; ${version} runs the lanes ${lanesForIt.join(', ')}.`,
    );
  }
  if (version === lane.agentSandbox.version) return lane;
  return { ...lane, name: `${lane.name}-${version}`, aliases: [], agentSandbox: release };
}
