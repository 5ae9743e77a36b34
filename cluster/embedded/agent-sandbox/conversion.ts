import { clone, isPlainObject, type KubeObject } from '../types.ts';
import type { WebhookService } from '../registry/conversion-webhooks.ts';

/** The Service the Agent Sandbox CRDs name for conversion (controller binary, port 9443 behind 443). */
export const AGENT_SANDBOX_WEBHOOK: WebhookService = { namespace: 'agent-sandbox-system', name: 'agent-sandbox-webhook-service', path: '/convert' };

/** Where v0.5.x keeps the v1alpha1 view of an object written through v1alpha1. */
export const V1ALPHA1_STATE_ANNOTATION = 'api.agents.x-k8s.io/v1alpha1-sandbox-state';

type Spec = Record<string, unknown> & { replicas?: number | null; operatingMode?: string };
type Status = Record<string, unknown> & { replicas?: number; nodeName?: string };

function specOf(object: KubeObject): Spec {
  return (isPlainObject(object.spec) ? object.spec : {}) as Spec;
}

function statusOf(object: KubeObject): Status | undefined {
  return isPlainObject(object.status) ? (object.status as Status) : undefined;
}

/** v1alpha1 -> v1beta1 (upstream v0.5.x `ConvertTo`): replicas 0 means Suspended, anything else Running. */
function toV1beta1(object: KubeObject): KubeObject {
  const result = clone(object);
  const { replicas, ...spec } = specOf(object);
  result.spec = { ...spec, operatingMode: replicas === 0 ? 'Suspended' : 'Running' };
  const status = statusOf(object);
  if (status) {
    // status.replicas has no v1beta1 field; nodeName is new there and empty (omitted, as omitempty does).
    const { replicas: _dropped, nodeName: _none, ...rest } = status;
    result.status = rest;
  }
  // v1beta1 readers see the v1alpha1 snapshot, exactly as with the real webhook.
  const snapshot = clone(object);
  delete snapshot.metadata.managedFields;
  if (snapshot.metadata.annotations) delete snapshot.metadata.annotations[V1ALPHA1_STATE_ANNOTATION];
  result.metadata.annotations = { ...result.metadata.annotations, [V1ALPHA1_STATE_ANNOTATION]: JSON.stringify(snapshot) };
  return result;
}

function parseSnapshot(raw: string | undefined): KubeObject | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return isPlainObject(parsed) ? (parsed as KubeObject) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * spec.replicas of the v1alpha1 view (upstream v0.5.0 and v0.5.4, api/v1alpha1/sandbox_conversion.go,
 * `ConvertFrom`): operatingMode decides first. Suspended is 0 whatever the snapshot says; Running
 * restores the snapshot's replicas (so an unset one stays unset) except that a snapshot 0 becomes 1.
 * Without a snapshot, 0 for Suspended and 1 otherwise. So a Sandbox written through v1alpha1 and
 * then suspended through v1beta1 reads back suspended, and a later v1alpha1 write keeps it so.
 */
function alphaReplicas(operatingMode: string | undefined, snapshot: KubeObject | undefined): number | undefined {
  if (operatingMode === 'Suspended') return 0;
  if (!snapshot || operatingMode !== 'Running') return 1;
  const restored = specOf(snapshot).replicas;
  if (restored === undefined || restored === null) return undefined;
  return restored === 0 ? 1 : restored;
}

/** v1beta1 -> v1alpha1 (upstream v0.5.x `ConvertFrom`); the snapshot annotation never reaches v1alpha1 readers. */
function toV1alpha1(object: KubeObject): KubeObject {
  const result = clone(object);
  const { operatingMode, ...spec } = specOf(object);
  const annotations = { ...result.metadata.annotations };
  const snapshot = parseSnapshot(annotations[V1ALPHA1_STATE_ANNOTATION]);
  delete annotations[V1ALPHA1_STATE_ANNOTATION];
  if (Object.keys(annotations).length) result.metadata.annotations = annotations;
  else delete result.metadata.annotations;
  const replicas = alphaReplicas(operatingMode, snapshot);
  result.spec = replicas === undefined ? spec : { ...spec, replicas };
  const { nodeName: _dropped, ...rest } = statusOf(object) ?? {};
  // From the snapshot when there is one (a controller status write never refreshes it), else by operatingMode.
  const statusReplicas = snapshot ? statusOf(snapshot)?.replicas : operatingMode === 'Suspended' ? 0 : 1;
  const status = { ...rest, ...(statusReplicas ? { replicas: statusReplicas } : {}) };
  // An all-empty status is omitted (omitzero), as the webhook's JSON has it.
  if (Object.keys(status).length) result.status = status;
  else delete result.status;
  return result;
}

/**
 * The Agent Sandbox conversion webhook's mapping (v1beta1 is the hub): v1alpha1
 * `spec.replicas` 0/1 <-> v1beta1 `spec.operatingMode` Suspended/Running; status.replicas
 * exists only in v1alpha1, status.nodeName only in v1beta1.
 */
export function convertSandbox(object: KubeObject, toVersion: string): KubeObject {
  const from = String(object.apiVersion).split('/')[1];
  if (from === toVersion) return object;
  if (object.kind !== 'Sandbox') return { ...object, apiVersion: `agents.x-k8s.io/${toVersion}` };
  if (from === 'v1alpha1' && toVersion === 'v1beta1') return toV1beta1(object);
  if (from === 'v1beta1' && toVersion === 'v1alpha1') return toV1alpha1(object);
  return { ...object, apiVersion: `agents.x-k8s.io/${toVersion}` };
}
