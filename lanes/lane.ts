import { agentSandboxReleaseUrl } from '../cluster/manifests/agent-sandbox-releases.ts';
import type { WorkspaceMode } from '../driver/compute-driver.ts';

export type AgentSandboxVersion = 'v0.4.6' | 'v0.5.0' | 'v0.5.4';

/** Something a scenario may need that not every lane or cluster provides. */
export type Capability = 'fault-injection' | 'external-driver-restart';

/** One lane of the matrix, as data: what is installed, how the driver runs, what it lacks and why. */
export interface Lane {
  name: string;
  aliases: string[];
  description: string;
  agentSandbox: {
    version: AgentSandboxVersion;
    /** The Sandbox API version the driver will find preferred. */
    apiVersion: 'v1alpha1' | 'v1beta1';
    /**
     * Where the release publishes the manifest a real cluster installs (for messages such as
     * "install it with kubectl apply -f …"); the kind provider installs the verified local copy
     * from cluster/manifests/ instead.
     */
    manifest: string;
  };
  driver: {
    workspaceMode: WorkspaceMode;
    /** In the test process, or an external process behind a gRPC Unix socket. */
    deployment: 'in-process' | 'external';
  };
  /** Operator mode: namespaces an operator fixture creates and labels before the run. */
  operator?: { label: string; workspaces: number };
  /** Capabilities this lane lacks regardless of the cluster, with the reason shown in reports. */
  lacks: { capability: Capability; reason: string }[];
}

/** The release URL of a version's manifest (`manifest.yaml` up to v0.5.1, `sandbox.yaml` from v0.5.2). */
export function agentSandboxManifest(version: AgentSandboxVersion): string {
  return agentSandboxReleaseUrl(version);
}
