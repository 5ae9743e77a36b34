/**
 * The Agent Sandbox `Sandbox` API as everything outside the cluster reads it: the API group, and
 * one reading of "suspended in spec" per served version (v1alpha1 `spec.replicas: 0`, v1beta1
 * `spec.operatingMode: Suspended`). The timeline recorder, the stop rules, the benches and the
 * scenarios read suspension here, so a new API version is one more row below.
 */
const AGENT_SANDBOX_GROUP = 'agents.x-k8s.io';

type SandboxApiVersion = 'v1alpha1' | 'v1beta1';

interface Suspension {
  /** How the field reads in messages: `spec.replicas: 0`. */
  text: string;
  read(spec: Record<string, unknown>): boolean;
}

const SUSPENSION: Record<SandboxApiVersion, Suspension> = {
  v1alpha1: { text: 'spec.replicas: 0', read: (spec) => spec.replicas === 0 },
  v1beta1: { text: 'spec.operatingMode: Suspended', read: (spec) => spec.operatingMode === 'Suspended' },
};

/** `agents.x-k8s.io/v1beta1` for a version. */
export function sandboxApiVersion(version: SandboxApiVersion): string {
  return `${AGENT_SANDBOX_GROUP}/${version}`;
}

/** The version of `agents.x-k8s.io/v1beta1` (or of a bare `v1beta1`); a clear error for anything else. */
function versionOf(apiVersion: string): SandboxApiVersion {
  const version = apiVersion.startsWith(`${AGENT_SANDBOX_GROUP}/`) ? apiVersion.slice(AGENT_SANDBOX_GROUP.length + 1) : apiVersion;
  if (Object.hasOwn(SUSPENSION, version)) return version as SandboxApiVersion;
  throw new Error(`unknown Agent Sandbox API version "${apiVersion}"; known: ${(Object.keys(SUSPENSION) as SandboxApiVersion[]).map(sandboxApiVersion).join(', ')}`);
}

/** Whether a Sandbox of this API version is suspended in its spec. */
export function isSuspendedInSpec(apiVersion: string, spec: unknown): boolean {
  return SUSPENSION[versionOf(apiVersion)].read((spec ?? {}) as Record<string, unknown>);
}

/** The spec field that says "suspended" in this API version, as messages quote it. */
export function suspensionField(apiVersion: string): string {
  return SUSPENSION[versionOf(apiVersion)].text;
}
