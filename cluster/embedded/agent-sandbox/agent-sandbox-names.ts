/** Names the Agent Sandbox API and controller share: group, resource keys, well-known labels and annotations. */

export const GROUP = 'agents.x-k8s.io';
export const SANDBOX_CRD_NAME = `sandboxes.${GROUP}`;
/** Store resource keys (see registry/resource-type.ts resourceKey). */
export const SANDBOXES_KEY = `sandboxes.${GROUP}`;
export const CRDS_KEY = 'customresourcedefinitions.apiextensions.k8s.io';

export const SYSTEM_NAMESPACE = 'agent-sandbox-system';
export const FIELD_MANAGER = 'sandbox-controller';

/** On every child and in Service selectors / status.selector. */
export const NAME_HASH_LABEL = `${GROUP}/sandbox-name-hash`;
/** v0.5.0+: lets the controller adopt an unowned object. */
export const ADOPTABLE_LABEL = `${GROUP}/adoptable`;
/** On the Sandbox: the Pod it tracks. */
export const POD_NAME_ANNOTATION = `${GROUP}/pod-name`;
/** On the Pod: which template keys were copied, so keys later dropped from the template can be removed. */
export const PROPAGATED_LABELS_ANNOTATION = `${GROUP}/propagated-labels`;
export const PROPAGATED_ANNOTATIONS_ANNOTATION = `${GROUP}/propagated-annotations`;
/** v0.5.0+: template metadata keys with these prefixes are never copied to the Pod. */
export const RESERVED_PREFIXES = [`${GROUP}/`, `extensions.${GROUP}/`];
export const TRACE_ANNOTATION = 'opentelemetry.io/trace-context';
/** v0.5.4: on the Sandbox, copied to its Pod; values outside CREATED_BY_VALUES become "unknown". */
export const CREATED_BY_LABEL = `${GROUP}/created-by`;
export const CREATED_BY_VALUES = ['go-client', 'python-client', 'controller'] as const;

/** FNV-1a 32-bit over the UTF-8 bytes, as 8 lowercase hex digits: the value of NAME_HASH_LABEL. */
export function nameHash(name: string): string {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
