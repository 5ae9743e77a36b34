import type { DriverCondition, DriverSandbox } from '../compute-driver.ts';
import type { KubeObject } from './kube.ts';
import { ANNOTATION, LABEL, type BootstrapOperation, type BootstrapPhase } from './names.ts';

/** What the driver reads off a Sandbox CR. */
export interface SandboxState {
  id: string;
  name: string;
  workspace: string;
  namespace: string;
  crName: string;
  bootstrapping: boolean;
  operation?: BootstrapOperation;
  phase?: BootstrapPhase | 'rolling-back';
  generation?: string;
  suspendedInSpec: boolean;
  /** The Agent Sandbox controller's name for the workload Pod (annotation, else the CR name). */
  workloadPod: string;
  conditions: CrCondition[];
}

/** A condition of the Sandbox's status, as the Agent Sandbox controller writes it. */
export interface CrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export function readState(cr: KubeObject): SandboxState {
  const meta = cr.metadata!;
  const annotations = meta.annotations ?? {};
  const spec = cr.spec ?? {};
  return {
    id: meta.labels?.[LABEL.sandboxId] ?? '',
    name: meta.labels?.[LABEL.sandboxName] ?? meta.name!,
    workspace: meta.labels?.[LABEL.workspace] ?? '',
    namespace: meta.namespace!,
    crName: meta.name!,
    bootstrapping: annotations[ANNOTATION.bootstrapping] === 'true',
    operation: annotations[ANNOTATION.operation] as BootstrapOperation | undefined,
    phase: annotations[ANNOTATION.phase] as SandboxState['phase'],
    generation: annotations[ANNOTATION.generation],
    suspendedInSpec: spec.operatingMode === 'Suspended' || spec.replicas === 0,
    workloadPod: annotations[ANNOTATION.podName] ?? meta.name!,
    conditions: currentConditions(cr),
  };
}

/** Conditions observed at the CR's current generation (older ones are stale, e.g. v0.5.0's Suspended after resume). */
export function currentConditions(cr: KubeObject): CrCondition[] {
  const generation = cr.metadata?.generation;
  const conditions = ((cr.status?.conditions ?? []) as (CrCondition & { observedGeneration?: number })[]).filter(
    (c) => c.observedGeneration === undefined || generation === undefined || c.observedGeneration === generation,
  );
  return conditions.map(({ type, status, reason, message, lastTransitionTime }) => ({ type, status, reason, message, lastTransitionTime }));
}

export function condition(state: SandboxState, type: string): CrCondition | undefined {
  return state.conditions.find((c) => c.type === type);
}

/**
 * The reference driver's own annotation (not OpenShell's): the generation-Secret cleanup failures
 * of the last stop, reported as a `CleanupFailed` condition until the next start completes.
 */
export const CLEANUP_FAILED_ANNOTATION = 'sandbox-conformance.dev/cleanup-failed';

/**
 * The reference driver's own annotation (not OpenShell's): why the last create or start failed
 * after it was installed (a stage deadline), reported as a `StartFailed` condition until the next
 * start begins; the gateway fails the create or start it waits for with its message.
 */
export const START_FAILED_ANNOTATION = 'sandbox-conformance.dev/start-failed';

const STARTING = { reason: 'SandboxRuntimeGenerationStarting', message: 'a sandbox runtime transition is in flight' };

/**
 * The conditions the driver reports (it reports no phase): the Sandbox's own, at its current
 * generation; while the bootstrap marker is present `Bootstrapping=True` replaces `Suspended`
 * and `Ready` is forced False, as OpenShell's driver does, so no caller mistakes a generation
 * still being installed (or a stop under way) for a ready one; once stopped (suspended in spec,
 * no marker) `Ready` is False and `Suspended` True whatever a stale status says (v0.4.6 keeps
 * `Ready=True` while suspended); a stage deadline that failed the last create or start as
 * `StartFailed`; and a stop's Secret cleanup failure as `CleanupFailed`.
 */
export function reportedConditions(cr: KubeObject, state: SandboxState = readState(cr)): DriverCondition[] {
  const own = (type: string) => state.conditions.find((c) => c.type === type);
  const as = (c: CrCondition): DriverCondition => ({ type: c.type, status: c.status, reason: c.reason ?? '', message: c.message ?? '', ...(c.lastTransitionTime && { transitionTime: new Date(c.lastTransitionTime).toISOString() }) });
  let conditions = state.conditions.map(as);
  const replace = (types: string[], added: DriverCondition[]) => (conditions = [...conditions.filter((c) => !types.includes(c.type)), ...added]);
  if (cr.metadata?.deletionTimestamp) {
    // Deleting: reported through `deleting`; the conditions stay as the Sandbox shows them.
  } else if (state.bootstrapping) {
    replace(['Suspended', 'Ready', 'Bootstrapping'], [
      { type: 'Ready', status: 'False', ...STARTING },
      { type: 'Bootstrapping', status: 'True', ...STARTING },
    ]);
  } else if (state.suspendedInSpec) {
    const suspended = own('Suspended');
    replace(['Ready', 'Suspended'], [
      { type: 'Ready', status: 'False', reason: 'SandboxSuspended', message: 'the sandbox is stopped' },
      suspended?.status === 'True' ? as(suspended) : { type: 'Suspended', status: 'True', reason: 'SandboxSuspended', message: 'the sandbox is stopped' },
    ]);
  }
  const startFailed = cr.metadata?.annotations?.[START_FAILED_ANNOTATION];
  if (startFailed) conditions.push({ type: 'StartFailed', status: 'True', reason: 'SupervisorNotReady', message: startFailed });
  const cleanup = cr.metadata?.annotations?.[CLEANUP_FAILED_ANNOTATION];
  if (cleanup) conditions.push({ type: 'CleanupFailed', status: 'True', reason: 'GenerationSecretCleanupFailed', message: cleanup });
  return conditions;
}

/** The driver's snapshot of a sandbox: identity and observed status, no spec (observations may omit it). */
export function toDriverSandbox(cr: KubeObject): DriverSandbox {
  const state = readState(cr);
  return {
    id: state.id,
    name: state.name,
    namespace: state.namespace,
    workspace: state.workspace,
    status: {
      name: state.crName,
      instanceId: state.suspendedInSpec ? '' : state.workloadPod,
      agentFd: '',
      sandboxFd: '',
      conditions: reportedConditions(cr, state),
      deleting: !!cr.metadata?.deletionTimestamp,
    },
  };
}
