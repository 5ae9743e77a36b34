/**
 * The Agent Sandbox controller's behaviour per release, as data (the way kwok describes Pod
 * lifecycles with stages): the controller in sandbox-reconcile.ts and the condition engine in
 * conditions.ts read these tables and hold no version checks of their own. Facts and exact
 * messages: shared/reference/agent-sandbox-api.md §1.3, §2 and §3.
 */

export const AGENT_SANDBOX_VERSIONS = ['v0.4.6', 'v0.5.0', 'v0.5.4'] as const;
export type AgentSandboxVersion = (typeof AGENT_SANDBOX_VERSIONS)[number];

export type ConditionType = 'Ready' | 'Suspended' | 'Finished';
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** What one reconcile observed, flattened so that table rows can match on it. */
export interface Observed {
  /** The spec asks for no Pod (replicas 0 / operatingMode Suspended). */
  suspended: boolean;
  /** shutdownTime has passed. */
  expired: boolean;
  /** A child object could not be reconciled; the messages go into `{errors}`. */
  error: boolean;
  /** The Pod as the status logic sees it (see AgentSandboxProfile.trackTerminatingPod). */
  pod: 'absent' | 'present';
  podPhase?: string;
  /** The Pod's own Ready condition is True. */
  podReady?: boolean;
  podIPs?: boolean;
  /** The Pod has this Sandbox as its controller. */
  podOwned?: boolean;
  /** Reconciling the Pod returned an error (read, list, delete, annotation write, ...). */
  podError: boolean;
  service: 'not-required' | 'exists' | 'missing';
}

/** A table row: the first row whose `when` fields all equal the observed ones applies. */
export interface ConditionRule {
  when: Partial<Observed>;
  status: ConditionStatus;
  reason: string;
  /** `{phase}` and `{errors}` are filled in. */
  message: string;
}

/** A row that removes the condition instead of setting it. */
export interface RemoveRule {
  when: Partial<Observed>;
  remove: true;
}

/** How the Pod part of Ready reads; `ready` says whether it counts towards DependenciesReady. */
export interface PodReadinessRule {
  when: Partial<Observed>;
  ready: boolean;
  message: string;
}

export interface AgentSandboxProfile {
  version: AgentSandboxVersion;
  /** The version the controller reads and writes Sandboxes through. */
  apiVersion: 'v1alpha1' | 'v1beta1';
  /** apiVersion in the controller ownerReferences of children. */
  ownerApiVersion: string;
  /** The spec field that says "suspended", the value that means so, and what an unset field means. */
  suspension: { field: 'replicas' | 'operatingMode'; suspendedValue: number | string; unsetValue: number | string };
  /**
   * true (v0.5.4+, PR #1150): while suspending, the still-terminating Pod is reported as it is.
   * false: the reconcile that issues the delete (and every later one) reports "no Pod".
   */
  trackTerminatingPod: boolean;
  adoption: {
    /** v0.5.0+: an unowned object is adopted only with adoptable=true or the matching name-hash label. */
    requiresLabel: boolean;
    /** v0.4.6 writes an adopted Pod only when its labels/annotations also changed, so the ownerRef can be lost. */
    persistOnlyWithMetadataChange: boolean;
    /** How ownerRef/metadata changes are written to existing Pods and PVCs. */
    write: 'update' | 'merge-patch';
  };
  templateMetadata: {
    /** v0.5.0+ (PR #894): reserved-prefix keys and the trace annotation are not copied to the Pod. */
    dropReservedKeys: boolean;
    /** v0.4.6: a template label may overwrite the name-hash label. */
    templateLabelsWin: boolean;
  };
  /** v0.5.4+ (PR #1258): headless Service ports derived from container ports. */
  servicePorts: 'none' | 'from-containers';
  /** v0.5.4: a failed Pod list is a reconcile error; before, it is only logged. */
  podListErrors: 'logged' | 'fail';
  /** v0.5.4: the Sandbox's agents.x-k8s.io/created-by label is copied to the Pod (normalised). */
  copyCreatedByLabel: boolean;
  /** The prefix of a failed PVC read's error ("PVC Get Failed" at v0.4.6). */
  pvcGetError: string;
  /** `--sandbox-concurrent-workers` default: 1 up to v0.5.0, 100 from v0.5.4 (cmd/agent-sandbox-controller/main.go). */
  defaultWorkers: number;
  status: {
    /** v1alpha1 has status.replicas (0 omitted). */
    replicas: boolean;
    /** v1beta1 has status.nodeName. */
    nodeName: boolean;
    /** Status().Update up to v0.5.3, a status merge-patch from v0.5.4 (PR #1254). */
    write: 'update' | 'merge-patch';
    /** v0.5.3+ (PR #1225): no status write when only nodeName changed and Ready is not True. */
    skipNodeNameOnlyChange: boolean;
  };
  conditions: {
    /** Types in the order one reconcile sets them; a type not yet in the list is appended (meta.SetStatusCondition). */
    order: ConditionType[];
    /** Checked first; when none applies, Ready comes from the Pod and Service readiness. */
    readyGates: ConditionRule[];
    podReadiness: PodReadinessRule[];
    serviceSuffix: { exists: string; missing: string };
    dependencies: { ready: string; notReady: string };
    /** No row matching leaves the condition as it is (v0.5.0 never clears Suspended=True). */
    suspended: ConditionRule[];
    finished: (ConditionRule | RemoveRule)[];
  };
}

const GATE_EXPIRED: ConditionRule = { when: { expired: true }, status: 'False', reason: 'SandboxExpired', message: 'Sandbox has expired' };
const GATE_ERROR: ConditionRule = { when: { error: true }, status: 'False', reason: 'ReconcilerError', message: 'Error seen: {errors}' };
const GATES_SUSPENDED: ConditionRule[] = [
  { when: { suspended: true, pod: 'present' }, status: 'False', reason: 'SandboxSuspended', message: 'Sandbox is suspending' },
  { when: { suspended: true }, status: 'False', reason: 'SandboxSuspended', message: 'Sandbox is suspended' },
];
/** v0.5.1+ (PR #990); before, a terminal Pod reads "Pod exists with phase: Succeeded". */
const GATES_TERMINAL: ConditionRule[] = [
  { when: { pod: 'present', podPhase: 'Succeeded' }, status: 'False', reason: 'PodSucceeded', message: 'Pod completed successfully' },
  { when: { pod: 'present', podPhase: 'Failed' }, status: 'False', reason: 'PodFailed', message: 'Pod failed' },
];

const POD_READINESS: PodReadinessRule[] = [
  { when: { pod: 'present', podPhase: 'Running', podReady: true, podIPs: true }, ready: true, message: 'Pod is Ready' },
  { when: { pod: 'present', podPhase: 'Running', podReady: true }, ready: false, message: 'Pod is Ready but has no podIPs yet' },
  { when: { pod: 'present', podPhase: 'Running' }, ready: false, message: 'Pod is Running but not Ready' },
  { when: { pod: 'present' }, ready: false, message: 'Pod exists with phase: {phase}' },
  { when: { pod: 'absent' }, ready: false, message: 'Pod does not exist' },
];

const FINISHED: (ConditionRule | RemoveRule)[] = [
  { when: { pod: 'present', podPhase: 'Succeeded' }, status: 'True', reason: 'PodSucceeded', message: 'Pod completed successfully' },
  { when: { pod: 'present', podPhase: 'Failed' }, status: 'True', reason: 'PodFailed', message: 'Pod failed' },
  { when: {}, remove: true },
];

const COMMON_CONDITIONS = {
  serviceSuffix: { exists: '; Service Exists', missing: '; Service does not exist' },
  dependencies: { ready: 'DependenciesReady', notReady: 'DependenciesNotReady' },
  finished: FINISHED,
};

const V0_4_6: AgentSandboxProfile = {
  version: 'v0.4.6',
  apiVersion: 'v1alpha1',
  ownerApiVersion: 'agents.x-k8s.io/v1alpha1',
  suspension: { field: 'replicas', suspendedValue: 0, unsetValue: 1 },
  trackTerminatingPod: false,
  adoption: { requiresLabel: false, persistOnlyWithMetadataChange: true, write: 'update' },
  templateMetadata: { dropReservedKeys: false, templateLabelsWin: true },
  servicePorts: 'none',
  podListErrors: 'logged',
  copyCreatedByLabel: false,
  pvcGetError: 'PVC Get Failed',
  defaultWorkers: 1,
  status: { replicas: true, nodeName: false, write: 'update', skipNodeNameOnlyChange: false },
  conditions: {
    ...COMMON_CONDITIONS,
    order: ['Ready', 'Finished'],
    readyGates: [GATE_EXPIRED, GATE_ERROR],
    // replicas 0 counts as a ready Pod: suspended reads Ready=True.
    podReadiness: [{ when: { pod: 'absent', suspended: true }, ready: true, message: 'Pod does not exist, replicas is 0' }, ...POD_READINESS],
    suspended: [],
  },
};

const V0_5_0: AgentSandboxProfile = {
  version: 'v0.5.0',
  apiVersion: 'v1beta1',
  ownerApiVersion: 'agents.x-k8s.io/v1beta1',
  suspension: { field: 'operatingMode', suspendedValue: 'Suspended', unsetValue: 'Running' },
  trackTerminatingPod: false,
  adoption: { requiresLabel: true, persistOnlyWithMetadataChange: false, write: 'merge-patch' },
  templateMetadata: { dropReservedKeys: true, templateLabelsWin: false },
  servicePorts: 'none',
  podListErrors: 'logged',
  copyCreatedByLabel: false,
  pvcGetError: 'failed to get PVC',
  defaultWorkers: 1,
  status: { replicas: false, nodeName: true, write: 'update', skipNodeNameOnlyChange: false },
  conditions: {
    ...COMMON_CONDITIONS,
    // computeConditions lists Suspended, Finished, Ready and sets them in that order; a type not yet there is appended.
    order: ['Suspended', 'Finished', 'Ready'],
    readyGates: [GATE_EXPIRED, GATE_ERROR, ...GATES_SUSPENDED],
    podReadiness: POD_READINESS,
    // Set as soon as the delete is issued; never updated again on resume (stale True).
    suspended: [{ when: { suspended: true }, status: 'True', reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is not operational.' }],
  },
};

const V0_5_4: AgentSandboxProfile = {
  ...V0_5_0,
  version: 'v0.5.4',
  trackTerminatingPod: true,
  servicePorts: 'from-containers',
  podListErrors: 'fail',
  copyCreatedByLabel: true,
  defaultWorkers: 100,
  status: { replicas: false, nodeName: true, write: 'merge-patch', skipNodeNameOnlyChange: true },
  conditions: {
    ...COMMON_CONDITIONS,
    order: ['Suspended', 'Finished', 'Ready'],
    // Only a Pod this Sandbox owns drives Finished (computeFinishedCondition at v0.5.4).
    finished: [{ when: { pod: 'present', podOwned: false }, remove: true }, ...FINISHED],
    readyGates: [GATE_EXPIRED, GATE_ERROR, ...GATES_SUSPENDED, ...GATES_TERMINAL],
    podReadiness: POD_READINESS,
    // Always present; True only once the Pod object is gone.
    suspended: [
      { when: { suspended: false }, status: 'False', reason: 'NotSuspended', message: 'Sandbox is not suspended' },
      // Only with no Pod to look at: a failed delete of a Pod it has still reads PodTerminating (v0.5.4 computeSuspendedCondition).
      { when: { pod: 'absent', podError: true }, status: 'Unknown', reason: 'PodStateUnknown', message: 'Pod state is unknown. Sandbox suspension cannot be confirmed' },
      { when: { pod: 'present', podOwned: false }, status: 'False', reason: 'PodNotOwned', message: 'Refused to delete pod because it is not owned by this sandbox' },
      { when: { pod: 'present' }, status: 'False', reason: 'PodTerminating', message: 'Pod is terminating. Sandbox is suspending' },
      { when: { pod: 'absent' }, status: 'True', reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is suspended' },
    ],
  },
};

export const AGENT_SANDBOX_PROFILES: Readonly<Record<AgentSandboxVersion, AgentSandboxProfile>> = {
  'v0.4.6': V0_4_6,
  'v0.5.0': V0_5_0,
  'v0.5.4': V0_5_4,
};

export function isAgentSandboxVersion(version: string): version is AgentSandboxVersion {
  return (AGENT_SANDBOX_VERSIONS as readonly string[]).includes(version);
}

/** The profile of a release; a clear error names the known ones. */
export function agentSandboxProfile(version: string): AgentSandboxProfile {
  if (!isAgentSandboxVersion(version)) {
    throw new Error(`unknown Agent Sandbox version "${version}"; known versions: ${AGENT_SANDBOX_VERSIONS.join(', ')}`);
  }
  return AGENT_SANDBOX_PROFILES[version];
}

/** Whether the spec asks for no Pod, read the way the profile's API version expresses it. */
export function specSuspended(profile: AgentSandboxProfile, spec: Record<string, unknown>): boolean {
  const value = spec[profile.suspension.field] ?? profile.suspension.unsetValue;
  return value === profile.suspension.suspendedValue;
}
