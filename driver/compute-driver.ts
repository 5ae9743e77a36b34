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

/**
 * gRPC-style codes. DEADLINE_EXCEEDED and CANCELLED end a call whose caller stopped waiting
 * (its `CallOptions` deadline passed, or its signal aborted); the message names the stage.
 */
export type DriverErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'INTERNAL';

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

/**
 * How long the caller waits for one call; both optional (without either the driver's own
 * timeouts rule). When either ends the call it stops at once, sends nothing more, and fails
 * with DEADLINE_EXCEEDED (the deadline, or a signal aborted with a `TimeoutError` reason as
 * `AbortSignal.timeout()` does) or CANCELLED (any other abort), naming the stage it was in:
 * `create did not finish: deadline exceeded while waiting for the sandbox to become Ready`.
 * What it already wrote stays as durable state that a later stop, start or reconciliation
 * carries on from.
 */
export interface CallOptions {
  /** Epoch milliseconds by which the call must have finished. Over gRPC: the call's deadline. */
  deadline?: number;
  /** Aborting it ends the call. Over gRPC: the call is cancelled, and with it the driver's work. */
  signal?: AbortSignal;
}

/**
 * The code a call ends with when its caller's signal aborts: DEADLINE_EXCEEDED when the reason
 * is a timeout (`AbortSignal.timeout()` aborts with a `TimeoutError`), CANCELLED otherwise.
 */
export function abortCode(reason: unknown): 'DEADLINE_EXCEEDED' | 'CANCELLED' {
  const timeout = (reason as { name?: string } | undefined)?.name === 'TimeoutError' || (reason instanceof DriverError && reason.code === 'DEADLINE_EXCEEDED');
  return timeout ? 'DEADLINE_EXCEEDED' : 'CANCELLED';
}

/**
 * Every lifecycle method completes on a STATE of the cluster, not on an act of its own: on a
 * cluster shared by several replicas of a driver, whichever replica writes a transition, the
 * call that asked for it returns once the Sandbox shows it.
 */
export interface ComputeDriver {
  capabilities(options?: CallOptions): Promise<DriverCapabilities>;
  /** Checks a spec without creating anything. */
  validate(spec: SandboxSpec, options?: CallOptions): Promise<void>;
  /** Returns once the generation it installed is Ready (completed by this driver or another). */
  create(spec: SandboxSpec, options?: CallOptions): Promise<DriverSandbox>;
  get(id: string, options?: CallOptions): Promise<DriverSandbox>;
  list(options?: CallOptions): Promise<DriverSandbox[]>;
  /**
   * Returns once the sandbox is stopped — suspended, its workload Pod gone, the stop phase
   * cleared — whoever finished it; or fails with the driver's error.
   */
  stop(id: string, options?: CallOptions): Promise<DriverSandbox>;
  /** Returns once a new generation runs and is Ready (completed by this driver or another). */
  start(id: string, options?: CallOptions): Promise<DriverSandbox>;
  /** True when something was deleted. */
  delete(id: string, options?: CallOptions): Promise<boolean>;
  /** Snapshots of every sandbox on each change; ends when the signal aborts. */
  watch(listener: (event: DriverEvent) => void, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
