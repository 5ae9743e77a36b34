import type { AgentSandboxRelease, Lack } from '../cluster/cluster-provider.ts';
import type { WorkspaceMode } from '../driver/compute-driver.ts';
import type { DriverSettings } from '../driver/launch/external-driver-process.ts';
import type { RoleSelectors } from '../driver/role-selectors.ts';
import type { DriverRbac } from './driver-rbac.ts';

/** One lane of the matrix, as data: what is installed, how the driver runs, what it lacks and why. */
export interface Lane {
  name: string;
  aliases: string[];
  /** What the lane tests, besides its Agent Sandbox release (printed beside it). */
  description: string;
  /** The release the lane runs by default; `--agent-sandbox` picks another that serves the same Sandbox API (release-axis.ts). */
  agentSandbox: AgentSandboxRelease;
  driver: {
    workspaceMode: WorkspaceMode;
    /** In the test process, or an external process behind a gRPC Unix socket. */
    deployment: 'in-process' | 'external';
    /** Grace periods, API headroom and namespace the harness runs the driver with. */
    settings: DriverSettings;
    /** What the driver may do: its ServiceAccount's Role (sandbox namespace) and ClusterRole rules (driver-rbac.ts). */
    rbac: DriverRbac;
    /**
     * How many replicas of the driver run on the cluster at once (default 1), all with these
     * settings and rules; the harness's gateway sends each call to one of them, picked by a
     * generator seeded from the run's seed (`--seed`). Only an external deployment runs more than one.
     */
    replicas?: number;
  };
  /** Operator mode: namespaces an operator fixture creates and labels before the run. */
  operator?: { label: string; workspaces: number };
  /**
   * How the harness finds a sandbox's objects (label selectors with `{id}`): OpenShell's labels
   * when absent (lanes/openshell-roles.ts); `npm run lane -- … --roles FILE` replaces them.
   */
  roles?: RoleSelectors;
  /** Capabilities this lane lacks regardless of the cluster, with the reason shown in reports. */
  lacks: Lack[];
}

