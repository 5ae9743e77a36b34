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

function toV1beta1(object: KubeObject): KubeObject {
  const result = clone(object);
  const { replicas, ...spec } = specOf(object);
  result.spec = { ...spec, operatingMode: replicas === 0 ? 'Suspended' : 'Running' };
  const status = statusOf(object);
  if (status) {
    const { replicas: _dropped, ...rest } = status;
    result.status = { ...rest, nodeName: '' };
  }
  // v1beta1 readers see the v1alpha1 snapshot, exactly as with the real webhook.
  const snapshot = clone(object);
  delete snapshot.metadata.managedFields;
  if (snapshot.metadata.annotations) delete snapshot.metadata.annotations[V1ALPHA1_STATE_ANNOTATION];
  result.metadata.annotations = { ...result.metadata.annotations, [V1ALPHA1_STATE_ANNOTATION]: JSON.stringify(snapshot) };
  return result;
}

function toV1alpha1(object: KubeObject): KubeObject {
  const result = clone(object);
  const { operatingMode, ...spec } = specOf(object);
  const suspended = operatingMode === 'Suspended';
  const annotations = { ...result.metadata.annotations };
  const raw = annotations[V1ALPHA1_STATE_ANNOTATION];
  delete annotations[V1ALPHA1_STATE_ANNOTATION];
  if (Object.keys(annotations).length) result.metadata.annotations = annotations;
  else delete result.metadata.annotations;
  let snapshot: KubeObject | undefined;
  try {
    snapshot = raw ? (JSON.parse(raw) as KubeObject) : undefined;
  } catch {
    snapshot = undefined;
  }
  const newSpec: Spec = { ...spec };
  if (snapshot) {
    const restored = specOf(snapshot).replicas;
    if (restored !== undefined && restored !== null) newSpec.replicas = restored;
  } else {
    newSpec.replicas = suspended ? 0 : 1;
  }
  result.spec = newSpec;
  const status = statusOf(object);
  if (status) {
    const { nodeName: _dropped, ...rest } = status;
    const replicas = snapshot ? statusOf(snapshot)?.replicas : suspended ? 0 : 1;
    result.status = { ...rest, ...(replicas ? { replicas } : {}) };
  }
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
