import { isPlainObject } from '../types.ts';

const SERVER_OWNED_METADATA = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'name', 'namespace', 'deletionTimestamp', 'deletionGracePeriodSeconds']);
const LIST_KEYS = ['name', 'uid', 'type', 'containerPort', 'port', 'mountPath'];

/**
 * The FieldsV1 set of the fields present in `value`: `f:<field>` for map fields, `k:{...}` for
 * list items with a key, `v:<value>` for primitive set items. kubectl reads these sets (it
 * crashes on a managedFields entry without one); ownership is approximated by presence,
 * which is all the embedded server's create-or-merge apply needs.
 */
export function fieldSet(value: unknown, atRoot = true): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (!isPlainObject(value)) return result;
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    if (atRoot && (key === 'apiVersion' || key === 'kind')) continue;
    if (atRoot && key === 'metadata' && isPlainObject(child)) {
      const meta = Object.fromEntries(Object.entries(child).filter(([k]) => !SERVER_OWNED_METADATA.has(k)));
      if (Object.keys(meta).length) result['f:metadata'] = fieldSet(meta, false);
      continue;
    }
    result[`f:${key}`] = Array.isArray(child) ? listSet(child) : isPlainObject(child) ? fieldSet(child, false) : {};
  }
  return result;
}

function listSet(items: unknown[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const item of items) {
    if (isPlainObject(item)) {
      const key = LIST_KEYS.find((k) => item[k] !== undefined);
      if (!key) return {};
      result[`k:${JSON.stringify({ [key]: item[key] })}`] = { '.': {}, ...fieldSet(item, false) };
    } else {
      result[`v:${JSON.stringify(item)}`] = {};
    }
  }
  return result;
}
