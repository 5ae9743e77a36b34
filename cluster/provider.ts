import type { Capability, Lane } from '../lanes/lane.ts';

export type ProviderName = 'embedded' | 'kind' | 'existing';

/** How a scenario reaches the embedded cluster's fault injection (admin API over HTTPS). */
export interface FaultEndpoint {
  url: string;
  token: string;
  caCert: string;
}

/** A running cluster for one lane: everything fixtures need, as JSON (it crosses into Playwright workers). */
export interface ClusterHandle {
  provider: ProviderName;
  lane: string;
  /** kind cluster name, or the embedded cluster's label. */
  name: string;
  kubeconfigPath: string;
  context?: string;
  capabilities: Capability[];
  /** Capabilities the cluster cannot offer, with the reason (merged with the lane's own). */
  lacks: { capability: Capability; reason: string }[];
  faults?: FaultEndpoint;
  /** The external driver's socket, for lanes that run the driver out of process. */
  driverSocket?: string;
}

export interface ProviderOptions {
  /** Keep the cluster after the run (kind: do not delete it). */
  keep: boolean;
  /** Where the run keeps its files (kubeconfigs, sockets, logs). */
  workDir: string;
  /** The lane's report folder: cluster logs of a failed up() go to `<reportDir>/cluster-logs/` (default: under workDir). */
  reportDir?: string;
  progress: (line: string) => void;
  /** Stops an up() in flight (Ctrl-C); the caller then tears down what onCluster registered. */
  signal?: AbortSignal;
  /**
   * Called by up() as soon as there is something to tear down (for kind: before `kind create`
   * starts), so an interrupted up() can be cleaned up with down(handle).
   */
  onCluster?: (handle: ClusterHandle) => void;
}

/**
 * Brings up (get-or-create, idempotent, safe after a crash) and tears down a cluster for a
 * lane. Scenarios never see a provider; they get the handle through fixtures.
 */
export interface ClusterProvider {
  readonly name: ProviderName;
  up(lane: Lane, options: ProviderOptions): Promise<ClusterHandle>;
  down(handle: ClusterHandle, options: ProviderOptions): Promise<void>;
  /** Writes cluster logs into `dir` for a failure report. */
  exportLogs?(handle: ClusterHandle, dir: string): Promise<void>;
}
