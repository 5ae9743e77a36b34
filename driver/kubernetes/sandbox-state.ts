import type { DriverCondition, DriverSandbox, PublicPhase } from '../compute-driver.ts';
import type { KubeObject } from './kube.ts';
import { ANNOTATION, LABEL, sandboxObjectNames, type BootstrapOperation, type BootstrapPhase } from './names.ts';

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
  conditions: DriverCondition[];
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
export function currentConditions(cr: KubeObject): DriverCondition[] {
  const generation = cr.metadata?.generation;
  const conditions = ((cr.status?.conditions ?? []) as (DriverCondition & { observedGeneration?: number })[]).filter(
    (c) => c.observedGeneration === undefined || generation === undefined || c.observedGeneration === generation,
  );
  return conditions.map(({ type, status, reason, message, lastTransitionTime }) => ({ type, status, reason, message, lastTransitionTime }));
}

export function condition(state: SandboxState, type: string): DriverCondition | undefined {
  return state.conditions.find((c) => c.type === type);
}

/** The phase a gateway would show, composed from the CR's state. */
export function publicPhase(cr: KubeObject, state: SandboxState): PublicPhase {
  if (cr.metadata?.deletionTimestamp) return 'Deleting';
  if (state.bootstrapping) {
    if (state.operation === 'stop') return 'Stopping';
    if (state.operation === 'restart') return 'Starting';
    return 'Provisioning';
  }
  if (state.suspendedInSpec) return 'Stopped';
  if (condition(state, 'Finished')?.status === 'True') return 'Error';
  if (condition(state, 'Ready')?.status === 'True') return 'Ready';
  return 'Provisioning';
}

export function toDriverSandbox(cr: KubeObject, warnings: string[] = []): DriverSandbox {
  const state = readState(cr);
  const names = sandboxObjectNames(state.id, state.crName, state.generation);
  const conditions = [...state.conditions];
  for (const warning of warnings) conditions.push({ type: 'CleanupFailed', status: 'True', reason: 'GenerationSecretCleanupFailed', message: warning });
  return {
    id: state.id,
    name: state.name,
    workspace: state.workspace,
    namespace: state.namespace,
    phase: publicPhase(cr, state),
    conditions,
    deleting: !!cr.metadata?.deletionTimestamp,
    objects: {
      sandbox: state.crName,
      workloadPod: state.workloadPod,
      supervisorPod: names.supervisorPod,
      boundaryService: names.boundaryService,
      generation: state.generation,
      secrets: [names.sandboxSecret, names.supervisorSecret].filter((n): n is string => !!n),
    },
  };
}
