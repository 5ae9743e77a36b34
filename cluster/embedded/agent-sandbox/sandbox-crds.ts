/**
 * Our own Sandbox CustomResourceDefinitions, one per simulated release, written from the API facts
 * (shared/reference/agent-sandbox-api.md §1) rather than taken from the upstream YAML. The PodSpec
 * and PVC spec are structural, as in the real CRDs (pod-spec-schema.ts), so unknown fields are
 * pruned and wrong types refused when the Sandbox is written, not later when its Pod is.
 */
import type { KubeObject } from '../types.ts';
import { AGENT_SANDBOX_WEBHOOK } from './conversion.ts';
import { GROUP, SANDBOX_CRD_NAME, SYSTEM_NAMESPACE } from './agent-sandbox-names.ts';
import { podSpecSchema, pvcSpecSchema } from './pod-spec-schema.ts';
import type { AgentSandboxVersion } from './profiles.ts';

type Schema = Record<string, unknown>;

export const V1ALPHA1_DEPRECATION_WARNING = 'agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead';

const string: Schema = { type: 'string' };
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };

function podTemplate(version: AgentSandboxVersion): Schema {
  return {
    type: 'object',
    required: ['spec'],
    properties: {
      metadata: { type: 'object', properties: { labels: stringMap, annotations: stringMap } },
      spec: podSpecSchema(version),
    },
  };
}

const volumeClaimTemplates: Schema = {
  type: 'array',
  'x-kubernetes-list-type': 'atomic',
  items: {
    type: 'object',
    required: ['spec'],
    properties: {
      metadata: { type: 'object', properties: { name: string, labels: stringMap, annotations: stringMap } },
      spec: pvcSpecSchema,
    },
  },
};

const condition: Schema = {
  type: 'object',
  required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
  properties: {
    type: string,
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: string,
    message: string,
  },
};

/** Fields both versions share; each version adds how it expresses suspension. */
function commonSpec(version: AgentSandboxVersion): Record<string, Schema> {
  return {
    podTemplate: podTemplate(version),
    volumeClaimTemplates,
    shutdownTime: { type: 'string', format: 'date-time' },
    shutdownPolicy: { type: 'string', enum: ['Retain', 'Delete'], default: 'Retain' },
    service: { type: 'boolean' },
  };
}

function commonStatus(): Record<string, Schema> {
  return {
    serviceFQDN: string,
    service: string,
    conditions: { type: 'array', items: condition },
    selector: string,
    podIPs: { type: 'array', items: string },
  };
}

function root(spec: Schema, status: Schema): Schema {
  return {
    type: 'object',
    required: ['spec'],
    properties: { apiVersion: string, kind: string, metadata: { type: 'object' }, spec, status },
  };
}

function v1alpha1Schema(version: AgentSandboxVersion): Schema {
  return root(
    {
      type: 'object',
      required: ['podTemplate'],
      properties: { ...commonSpec(version), replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 1, default: 1 } },
    },
    { type: 'object', properties: { ...commonStatus(), replicas: { type: 'integer', format: 'int32', minimum: 0 } } },
  );
}

function v1beta1Schema(version: AgentSandboxVersion, immutableClaims: boolean): Schema {
  const spec: Schema = {
    type: 'object',
    required: ['podTemplate'],
    properties: { ...commonSpec(version), operatingMode: { type: 'string', enum: ['Running', 'Suspended'], default: 'Running' } },
  };
  // v0.5.3+ (PR #858): the CEL transition rule that makes volumeClaimTemplates immutable, enforced like any CRD rule.
  if (immutableClaims) {
    spec['x-kubernetes-validations'] = [{ rule: 'has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates) || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)', message: 'volumeClaimTemplates is immutable' }];
  }
  return root(spec, { type: 'object', properties: { ...commonStatus(), nodeName: string } });
}

const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

/** v1alpha1 as every release serves it: the storage version at v0.4.6, deprecated after. */
function v1alpha1Version(version: AgentSandboxVersion, options: { storage: boolean }) {
  return { name: 'v1alpha1', served: true, storage: options.storage, schema: { openAPIV3Schema: v1alpha1Schema(version) }, subresources: { status: {}, scale } };
}

/** The Sandbox CRD as release `version` installs it. */
export function sandboxCrd(version: AgentSandboxVersion): KubeObject {
  const crd = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: SANDBOX_CRD_NAME },
    spec: {
      group: GROUP,
      names: { kind: 'Sandbox', listKind: 'SandboxList', plural: 'sandboxes', singular: 'sandbox', shortNames: ['sandbox'] },
      scope: 'Namespaced',
      ...spec,
    },
  });
  if (version === 'v0.4.6') return crd({ versions: [v1alpha1Version(version, { storage: true })] });
  const later = version !== 'v0.5.0';
  const v1beta1 = {
    name: 'v1beta1',
    served: true,
    storage: true,
    schema: { openAPIV3Schema: v1beta1Schema(version, later) },
    subresources: { status: {} },
    // Printer columns arrived in v0.5.1 (PR #990).
    ...(later
      ? {
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        }
      : {}),
  };
  const v1alpha1 = { ...v1alpha1Version(version, { storage: false }), deprecated: true, deprecationWarning: V1ALPHA1_DEPRECATION_WARNING };
  return crd({
    versions: [v1beta1, v1alpha1],
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { namespace: AGENT_SANDBOX_WEBHOOK.namespace, name: AGENT_SANDBOX_WEBHOOK.name, path: AGENT_SANDBOX_WEBHOOK.path, port: 443 } },
      },
    },
  });
}

/** The namespace the release manifests install the controller into. */
export function systemNamespace(): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } };
}
