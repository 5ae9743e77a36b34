import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../types.ts';
import type { MergeKeyLookup } from '../patch/merge-keys.ts';
import { MERGE_AS_SET } from '../patch/merge-keys.ts';

/**
 * Field paths and field sets in the FieldsV1 format of metadata.managedFields: a path is a list of
 * elements, `f:<field>` for an object field, `k:{"name":"x"}` for a list item found by its merge
 * key, `v:<json>` for an item of a set-like list, `i:<n>` for any other list item. A set of paths
 * is held as a Set of JSON-encoded element arrays. This is the part of structured-merge-diff the
 * embedded server needs; no maintained JavaScript implementation of it exists, so it is written here.
 * Which lists are keyed comes from the same merge-key rules strategic merge patch uses.
 */
export type PathElement = string;
export type FieldPath = PathElement[];
export type FieldSet = Set<string>;

const SERVER_OWNED_METADATA = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'name', 'namespace', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']);

export const pathKey = (path: FieldPath): string => JSON.stringify(path);
export const pathOf = (key: string): FieldPath => JSON.parse(key) as FieldPath;

/**
 * The fields an object (or an applied configuration) sets. `part` picks what a write to the main
 * resource owns (everything but status) or to the status subresource (status only).
 */
export function fieldsOf(object: unknown, keys: MergeKeyLookup, part: 'main' | 'status'): FieldSet {
  const set: FieldSet = new Set();
  if (!isPlainObject(object)) return set;
  for (const [field, value] of Object.entries(object)) {
    if (value === undefined || field === 'apiVersion' || field === 'kind') continue;
    if ((field === 'status') !== (part === 'status')) continue;
    if (field === 'metadata' && isPlainObject(value)) {
      for (const [m, v] of Object.entries(value)) if (!SERVER_OWNED_METADATA.has(m) && v !== undefined) walk(v, [`f:metadata`, `f:${m}`], ['metadata', m], keys, set);
      continue;
    }
    walk(value, [`f:${field}`], [field], keys, set);
  }
  return set;
}

function walk(value: unknown, path: FieldPath, names: string[], keys: MergeKeyLookup, set: FieldSet): void {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [field, child] of Object.entries(value)) if (child !== undefined) walk(child, [...path, `f:${field}`], [...names, field], keys, set);
    return;
  }
  const key = Array.isArray(value) ? keys(names) : undefined;
  if (!Array.isArray(value) || !key || value.length === 0) {
    set.add(pathKey(path));
    return;
  }
  for (const item of value) {
    if (key === MERGE_AS_SET || !isPlainObject(item)) {
      set.add(pathKey([...path, `v:${JSON.stringify(item)}`]));
      continue;
    }
    if (item[key] === undefined) {
      // An item without its key cannot be told apart: the list is owned whole.
      set.add(pathKey(path));
      return;
    }
    const itemPath = [...path, `k:${JSON.stringify({ [key]: item[key] })}`];
    set.add(pathKey(itemPath));
    for (const [field, child] of Object.entries(item)) if (child !== undefined) walk(child, [...itemPath, `f:${field}`], [...names, field], keys, set);
  }
}

/** The value at a path, or undefined when the object has nothing there. */
export function valueAt(object: unknown, path: FieldPath): unknown {
  let node: unknown = object;
  for (const element of path) {
    node = step(node, element)?.value;
    if (node === undefined) return undefined;
  }
  return node;
}

function step(node: unknown, element: PathElement): { value: unknown; index?: number } | undefined {
  const body = element.slice(2);
  if (element.startsWith('f:')) return isPlainObject(node) ? { value: node[body] } : undefined;
  if (!Array.isArray(node)) return undefined;
  if (element.startsWith('i:')) return { value: node[Number(body)], index: Number(body) };
  const wanted = JSON.parse(body) as unknown;
  const index = element.startsWith('v:')
    ? node.findIndex((item) => isDeepStrictEqual(item, wanted))
    : node.findIndex((item) => isPlainObject(item) && Object.entries(wanted as Record<string, unknown>).every(([k, v]) => isDeepStrictEqual(item[k], v)));
  return index < 0 ? undefined : { value: node[index], index };
}

/** Removes what is at a path (a field, or a list item); returns whether anything was there. */
export function removeAt(object: unknown, path: FieldPath): boolean {
  if (path.length === 0) return false;
  const parent = path.length === 1 ? object : valueAt(object, path.slice(0, -1));
  const last = path[path.length - 1];
  if (last.startsWith('f:')) {
    if (!isPlainObject(parent) || !(last.slice(2) in parent)) return false;
    delete parent[last.slice(2)];
    return true;
  }
  const found = step(parent, last);
  if (!found || found.index === undefined || !Array.isArray(parent)) return false;
  parent.splice(found.index, 1);
  return true;
}

/** fieldpath's String(): `.data.a`, `.spec.containers[name="web"].image`, `.metadata.finalizers[="x"]`. */
export function describePath(path: FieldPath): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith('f:')) return `.${body}`;
      if (element.startsWith('i:')) return `[${body}]`;
      if (element.startsWith('v:')) return `[=${body}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    })
    .join('');
}

/** A field set as the FieldsV1 tree kubectl reads (`{"f:data":{"f:a":{}}}`, list items with `.`). */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of [...set].sort()) {
    const path = pathOf(key);
    let node = root;
    for (const element of path) node = (node[element] ??= {}) as Record<string, unknown>;
    if (path.at(-1)?.startsWith('k:') || path.at(-1)?.startsWith('i:')) node['.'] = {};
  }
  return root;
}

/** The paths a FieldsV1 tree holds: its leaves and the items marked with `.`. */
export function fromFieldsV1(tree: unknown, prefix: FieldPath = [], set: FieldSet = new Set()): FieldSet {
  if (!isPlainObject(tree)) return set;
  const children = Object.entries(tree).filter(([k]) => k !== '.');
  if (prefix.length && (children.length === 0 || '.' in tree)) set.add(pathKey(prefix));
  for (const [element, child] of children) fromFieldsV1(child, [...prefix, element], set);
  return set;
}

/** True when `a` is `b` or lies inside it (or the other way round). */
export function overlaps(a: FieldPath, b: FieldPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
