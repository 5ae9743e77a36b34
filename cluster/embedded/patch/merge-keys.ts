/**
 * Which list fields of core Kubernetes types merge by key under strategic merge patch: the
 * `patchStrategy:"merge"` / `patchMergeKey` markers of the upstream Go types, restated as a
 * lookup on field paths because this server holds objects as plain JSON, not typed structs.
 */

/**
 * `path` is the chain of object field names from the object root to the list field, list
 * indexes left out: `['spec', 'template', 'spec', 'containers']`, `['metadata', 'finalizers']`.
 * Returns the merge key, or `undefined` for a list the patch replaces atomically.
 */
export type MergeKeyLookup = (path: readonly string[]) => string | undefined;

/**
 * Returned for primitive lists that merge as a set (finalizers). Such lists have a merge
 * strategy but no key, since each value is its own identity; strategic merge ignores the key
 * for primitive elements, so any defined value would do. This one can never be a field name.
 */
export const MERGE_AS_SET = '$set';

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** Field names that mean the same thing wherever they occur in the core types. */
const KEY_BY_FIELD = new Map<string, string>([
  ['containers', 'name'],
  ['initContainers', 'name'],
  ['ephemeralContainers', 'name'],
  ['volumes', 'name'],
  ['volumeMounts', 'mountPath'],
  ['volumeDevices', 'devicePath'],
  ['env', 'name'],
  ['conditions', 'type'],
  ['imagePullSecrets', 'name'],
  ['schedulingGates', 'name'],
  ['hostAliases', 'ip'],
  // Upstream identifies a constraint by topologyKey plus whenUnsatisfiable; strategic merge
  // only ever had the single key, and that is what clients send.
  ['topologySpreadConstraints', 'topologyKey'],
]);

/** Fields whose meaning depends on where they sit, so the name alone cannot decide. */
function keyInContext(field: string, parent: string | undefined, depth: number): string | undefined {
  switch (field) {
    case 'ports':
      if (parent !== undefined && CONTAINER_LISTS.has(parent)) return 'containerPort';
      // Service spec.ports; other `ports` lists (EndpointSlice, NetworkPolicy) are atomic.
      return depth === 2 && parent === 'spec' ? 'port' : undefined;
    // Only ObjectMeta's lists merge; a Namespace's spec.finalizers, say, is replaced.
    case 'finalizers':
      return parent === 'metadata' ? MERGE_AS_SET : undefined;
    case 'ownerReferences':
      return parent === 'metadata' ? 'uid' : undefined;
    default:
      return KEY_BY_FIELD.get(field);
  }
}

/** Tolerations, args, command and every list not named here are atomic. */
export const coreMergeKeys: MergeKeyLookup = (path) => {
  const field = path.at(-1);
  return field === undefined ? undefined : keyInContext(field, path.at(-2), path.length);
};
