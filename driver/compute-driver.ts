/**
 * The compute driver contract: one interface, two transports (in-process and gRPC over a Unix
 * socket). Modelled on OpenShell's `openshell.compute.v1.ComputeDriver` service, reduced to
 * what a lifecycle-ordering harness exercises.
 */

export type PublicPhase = 'Provisioning' | 'Ready' | 'Stopping' | 'Stopped' | 'Starting' | 'Deleting' | 'Error';

export interface DriverCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface SandboxSpec {
  /** DNS-1123 label, unique per workspace. */
  name: string;
  /** Workspace the sandbox belongs to; the driver's default when omitted. */
  workspace?: string;
  /** The sandbox's main command, run by the workload. */
  command: string[];
  environment?: Record<string, string>;
  /** Overrides the driver's supervisor termination grace period for this sandbox. */
  supervisorGraceSeconds?: number;
  /** Overrides the workload's termination grace period. */
  workloadGraceSeconds?: number;
}

export interface DriverSandbox {
  id: string;
  name: string;
  workspace: string;
  namespace: string;
  phase: PublicPhase;
  conditions: DriverCondition[];
  deleting: boolean;
  /** `kubernetes://<namespace>/<cr-uid>/<supervisor-pod-uid>` while a generation runs. */
  runtimeIdentity?: string;
  /** Names of the Kubernetes objects behind the sandbox, for evidence and checks. */
  objects: { sandbox: string; workloadPod: string; supervisorPod: string; boundaryService: string; generation?: string; secrets: string[] };
}

export interface DriverCapabilities {
  driverName: string;
  driverVersion: string;
  /** The Agent Sandbox API version in use (`v1beta1`, `v1alpha1`). */
  agentSandboxApiVersion: string;
  workspaceMode: WorkspaceMode;
  variant: DriverVariant;
  gatewayManagesLifecycle: boolean;
}

export type WorkspaceMode = 'shared' | 'managed' | 'operator';

/** `suspend-first` is the pre-#3424 ordering defect, kept so the suite can prove it catches it. */
export type DriverVariant = 'reference' | 'suspend-first';

export type DriverEvent = { type: 'sandbox'; sandbox: DriverSandbox } | { type: 'deleted'; sandboxId: string };

export type DriverErrorCode = 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' | 'UNAVAILABLE' | 'INTERNAL';

/** A driver error with a gRPC-style code; the message is what an operator reads. */
export class DriverError extends Error {
  constructor(
    readonly code: DriverErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DriverError';
  }
}

export interface ComputeDriver {
  capabilities(): Promise<DriverCapabilities>;
  /** Checks a spec without creating anything. */
  validate(spec: SandboxSpec): Promise<void>;
  create(spec: SandboxSpec): Promise<DriverSandbox>;
  get(id: string): Promise<DriverSandbox>;
  list(): Promise<DriverSandbox[]>;
  /** Returns once the sandbox is stopped, or fails with the driver's error. */
  stop(id: string): Promise<DriverSandbox>;
  /** Returns once a new generation runs and is Ready. */
  start(id: string): Promise<DriverSandbox>;
  /** True when something was deleted. */
  delete(id: string): Promise<boolean>;
  /** Snapshots of every sandbox on each change; ends when the signal aborts. */
  watch(listener: (event: DriverEvent) => void, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
