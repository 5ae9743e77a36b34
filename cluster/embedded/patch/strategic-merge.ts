/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), as kubectl and client-go
 * send it: JSON merge patch, except that lists with a merge key merge element by element, and
 * `$`-prefixed directives steer deletion, replacement, ordering and pruning.
 */

import { errors, jsonType } from '../errors.ts';
import { clone, isPlainObject } from '../types.ts';
import type { MergeKeyLookup } from './merge-keys.ts';

type JsonMap = Record<string, unknown>;

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

/** Returns a new value; neither input is mutated. Malformed patches throw a 400 ApiError. */
export function strategicMergePatch(original: unknown, patch: unknown, mergeKeyFor: MergeKeyLookup): unknown {
  if (!isPlainObject(patch)) throw errors.badRequest(`strategic merge patch must be a JSON object, got ${jsonType(patch)}`);
  // One deep copy up front: from here on the original side is ours to modify in place, while
  // the patch side is only read, and its values reach the result only as fresh copies.
  const target = isPlainObject(original) ? clone(original) : {};
  return new Merger(mergeKeyFor).mergeMap(target, patch, []);
}

class Merger {
  constructor(private readonly mergeKeyFor: MergeKeyLookup) {}

  /** `path` names the map itself: the field chain from the root, list indexes left out. */
  mergeMap(target: JsonMap, patch: JsonMap, path: readonly string[]): JsonMap {
    const directive = own(patch, PATCH);
    if (directive === 'replace') return this.applyFields({}, patch, path);
    if (directive === 'delete') return {};
    if (directive !== undefined && directive !== 'merge') throw unknownPatchDirective(directive, path);
    return this.applyFields(target, patch, path);
  }

  private applyFields(target: JsonMap, patch: JsonMap, path: readonly string[]): JsonMap {
    // Deletions go first, against the original list, so that the same patch may add a value back.
    for (const [key, values] of Object.entries(patch)) {
      if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      const doomed = listDirective(key, values, path);
      const list = own(target, field);
      if (Array.isArray(list)) setOwn(target, field, list.filter((v) => !doomed.includes(v)));
    }

    for (const [key, value] of Object.entries(patch)) {
      if (isDirective(key)) continue;
      if (value === null) delete target[key];
      else setOwn(target, key, this.mergeValue(own(target, key), value, [...path, key]));
    }

    for (const [key, order] of Object.entries(patch)) {
      if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
      const field = key.slice(SET_ELEMENT_ORDER.length);
      const entries = listDirective(key, order, path);
      const list = own(target, field);
      if (Array.isArray(list)) setOwn(target, field, reorder(list, entries, this.mergeKeyFor([...path, field])));
    }

    if (Object.hasOwn(patch, RETAIN_KEYS)) {
      const keep = listDirective(RETAIN_KEYS, patch[RETAIN_KEYS], path);
      if (!keep.every((k) => typeof k === 'string')) throw malformed(`${RETAIN_KEYS} must list field names`, path);
      for (const key of Object.keys(target)) if (!keep.includes(key)) delete target[key];
    }
    return target;
  }

  /** A value of the wrong type on the original side counts as absent: the patch value replaces it. */
  private mergeValue(current: unknown, value: unknown, path: readonly string[]): unknown {
    if (isPlainObject(value)) return this.mergeMap(isPlainObject(current) ? current : {}, value, path);
    if (Array.isArray(value)) return this.mergeList(Array.isArray(current) ? current : [], value, path);
    return value;
  }

  private mergeList(current: unknown[], patch: unknown[], path: readonly string[]): unknown[] {
    const mergeKey = this.mergeKeyFor(path);
    let replace = false;
    const deleted: unknown[] = [];
    const items: unknown[] = [];
    for (const item of patch) {
      const directive = isPlainObject(item) ? own(item, PATCH) : undefined;
      if (directive === 'replace') replace = true;
      else if (directive === 'delete') deleted.push(deletedKey(item as JsonMap, mergeKey, path));
      else items.push(item); // `$patch: merge`, if present, is stripped when the element is merged
    }
    // An atomic list, or one the patch replaces, is the patch's own elements, freshly copied
    // (merging against nothing drops directives and nulls inside them).
    if (mergeKey === undefined || replace) return items.map((item) => this.mergeValue(undefined, item, path));

    const kept = current.filter((el) => !(isPlainObject(el) && deleted.some((key) => own(el, mergeKey) === key)));
    if (items.every((item) => !isPlainObject(item))) return [...new Set([...kept, ...items])];
    if (!items.every(isPlainObject)) throw malformed('list mixes objects and plain values', path);

    for (const item of items) {
      if (!Object.hasOwn(item, mergeKey)) throw malformed(`list element does not contain merge key "${mergeKey}"`, path);
      const at = kept.findIndex((el) => isPlainObject(el) && own(el, mergeKey) === item[mergeKey]);
      if (at >= 0) kept[at] = this.mergeMap(kept[at] as JsonMap, item, path);
      else kept.push(this.mergeMap({}, item, path));
    }
    return kept;
  }
}

/** Directives are only the names strategic merge defines; other `$` names (a schema's `$ref`) are data. */
function isDirective(key: string): boolean {
  return (
    key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

function deletedKey(item: JsonMap, mergeKey: string | undefined, path: readonly string[]): unknown {
  if (mergeKey === undefined) throw malformed('"$patch": "delete" needs a list that merges by key', path);
  if (!Object.hasOwn(item, mergeKey)) throw malformed(`"$patch": "delete" element lacks merge key "${mergeKey}"`, path);
  return item[mergeKey];
}

/**
 * Listed elements first, in the listed order; the rest keep their relative order after them.
 * Entries name object elements by merge key (`{"name": "web"}`) and primitive elements by value.
 */
function reorder(list: unknown[], entries: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (v: unknown) => (isPlainObject(v) ? (mergeKey === undefined ? undefined : own(v, mergeKey)) : v);
  const rest = [...list];
  const ordered: unknown[] = [];
  for (const entry of entries) {
    const id = identity(entry);
    if (id === undefined) continue;
    const at = rest.findIndex((el) => identity(el) === id);
    if (at >= 0) ordered.push(...rest.splice(at, 1));
  }
  return [...ordered, ...rest];
}

function listDirective(name: string, value: unknown, path: readonly string[]): unknown[] {
  if (!Array.isArray(value)) throw malformed(`${name} must be a list, got ${jsonType(value)}`, path);
  return value;
}

function unknownPatchDirective(value: unknown, path: readonly string[]) {
  return malformed(`unknown "$patch" value ${JSON.stringify(value)}: want "merge", "replace" or "delete"`, path);
}

function malformed(message: string, path: readonly string[]) {
  return errors.badRequest(`invalid strategic merge patch at ${path.length ? path.join('.') : '<root>'}: ${message}`);
}

/** Own members only: reading `__proto__` from a JSON map must not reach Object.prototype. */
function own(map: JsonMap, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** Plain assignment would treat a JSON member named `__proto__` as the prototype instead of data. */
function setOwn(map: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}
