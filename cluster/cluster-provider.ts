/**
 * What a cluster provider is asked for and what it hands back, as plain data: the lane runner
 * builds a `ClusterRequest` from the lane and the fixture programs, a provider brings a cluster
 * up for it and returns a `ClusterHandle`, which crosses into the Playwright workers as JSON.
 * Nothing under cluster/ knows lanes, fixtures or scenarios; they import these types.
 */
import type { AgentSandboxVersion } from './embedded/agent-sandbox/install.ts';

export type { AgentSandboxVersion };

export type ProviderName = 'embedded' | 'kind' | 'existing';

/**
 * Something a scenario may need that not every cluster provides. `admission-policy`:
 * ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30), the one
 * mechanism the harness injects faults with on every cluster.
 */
export type Capability = 'admission-policy';

/** A capability a lane or cluster lacks, with the reason reports show. */
export interface Lack {
  capability: Capability;
  reason: string;
}

/** The Agent Sandbox release a cluster runs. */
export interface AgentSandboxRelease {
  version: AgentSandboxVersion;
  /** The Sandbox API version the driver will find preferred. */
  apiVersion: 'v1alpha1' | 'v1beta1';
  /** Where the release publishes its manifest (messages only; kind installs the verified copy from cluster/manifests/). */
  manifest: string;
}

/** A fixture image the scenarios run: built on clusters with a container runtime, run as a host program on the embedded node. */
export interface FixtureImage {
  /** The reference Pods use (`repo:tag`); kind builds and loads it under this name. */
  image: string;
  /** The directory `docker build` gets (it holds the Dockerfile). */
  buildContext: string;
  /** How the embedded node runs it without a container runtime: the image's ENTRYPOINT as a host command. */
  entrypoint: string[];
}

/** Everything a provider installs, as data from the lane runner. */
export interface ClusterRequest {
  /** The lane it is for: names the cluster (one per lane, so lanes can run side by side). */
  lane: string;
  agentSandbox: AgentSandboxRelease;
  images: readonly FixtureImage[];
  /**
   * The embedded cluster's simulated Agent Sandbox controller: real-cluster timing on (the
   * default) or off, and its seed (default: a random one, reported). Other providers run the
   * real controller and refuse it.
   */
  agentSandboxRealism?: { enabled: boolean; seed?: number };
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
  lacks: Lack[];
  /** The embedded cluster's Agent Sandbox controller timing as it runs (`realism on, seed N (…)`), for reports. */
  agentSandboxRealism?: string;
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
 * request. Scenarios never see a provider; they get the handle through fixtures.
 */
export interface ClusterProvider {
  readonly name: ProviderName;
  up(request: ClusterRequest, options: ProviderOptions): Promise<ClusterHandle>;
  down(handle: ClusterHandle, options: ProviderOptions): Promise<void>;
  /** Writes cluster logs into `dir` for a failure report. */
  exportLogs?(handle: ClusterHandle, dir: string): Promise<void>;
}
