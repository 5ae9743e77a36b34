import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import type { MergeKeyLookup } from '../patch/merge-keys.ts';
import { type KubeObject, metaTime } from '../types.ts';
import { describePath, fieldsOf, fromFieldsV1, overlaps, pathOf, removeAt, toFieldsV1, valueAt, type FieldSet } from './managed-fields.ts';

/**
 * Field ownership in metadata.managedFields, as kube-apiserver's field manager keeps it:
 *   - an Update (create, update, any non-apply patch) gives its manager the fields it changed
 *     and takes them from every other manager;
 *   - an Apply gives its manager exactly the fields of its configuration; a field another manager
 *     owns whose value the apply would change is a conflict (409 naming managers and fields)
 *     unless forced, which moves the field to the applier; fields the manager applied before and
 *     no longer does are removed from the object unless someone else still owns them.
 * One entry per manager, operation and subresource; entries left with no fields disappear.
 */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export interface Writer {
  manager?: string;
  apiVersion: string;
  subresource: string;
  keys: MergeKeyLookup;
}

interface Owned {
  entry: ManagedFieldsEntry;
  fields: FieldSet;
}


function part(subresource: string): 'main' | 'status' {
  return subresource === 'status' ? 'status' : 'main';
}

function owners(object: KubeObject | undefined): Owned[] {
  const entries = (object?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  return entries.map((entry) => ({ entry, fields: fromFieldsV1(entry.fieldsV1) }));
}

function sameEntry(a: ManagedFieldsEntry, manager: string, operation: string, subresource: string): boolean {
  return a.manager === manager && a.operation === operation && (a.subresource ?? '') === subresource;
}

function store(object: KubeObject, list: Owned[]): void {
  const entries = list
    .filter((o) => o.fields.size > 0)
    .map((o) => ({ ...o.entry, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(o.fields) }));
  if (entries.length) object.metadata.managedFields = entries;
  else delete object.metadata.managedFields;
}

/**
 * What is compared at a path: the value of a field, but only the presence of a keyed list item
 * (its fields are paths of their own, so a changed image is not also a changed container).
 */
function comparable(object: KubeObject | undefined, path: string[]): unknown {
  const value = valueAt(object, path);
  return path.at(-1)?.startsWith('k:') ? value !== undefined : value;
}

/** The leaves whose value differs between two objects (added, changed or removed), within `fields` of either. */
function changed(before: KubeObject | undefined, after: KubeObject, writer: Writer): FieldSet {
  const result: FieldSet = new Set();
  const beforeFields = before ? fieldsOf(before, writer.keys, part(writer.subresource)) : new Set<string>();
  const afterFields = fieldsOf(after, writer.keys, part(writer.subresource));
  for (const key of new Set([...beforeFields, ...afterFields])) {
    const path = pathOf(key);
    if (!before || !isDeepStrictEqual(comparable(before, path), comparable(after, path))) result.add(key);
  }
  return result;
}

/** Records an Update by `writer` (nothing recorded without a manager, but others still lose what changed). */
export function recordUpdate(before: KubeObject | undefined, after: KubeObject, writer: Writer): void {
  const list = owners(before);
  if (!writer.manager && list.length === 0) {
    delete after.metadata.managedFields;
    return;
  }
  const touched = changed(before, after, writer);
  for (const owned of list) for (const key of touched) owned.fields.delete(key);
  if (writer.manager) {
    const afterFields = fieldsOf(after, writer.keys, part(writer.subresource));
    const present = [...touched].filter((k) => afterFields.has(k));
    let mine = list.find((o) => sameEntry(o.entry, writer.manager!, 'Update', writer.subresource));
    if (!mine) {
      mine = { entry: { manager: writer.manager, operation: 'Update', apiVersion: writer.apiVersion, ...(writer.subresource ? { subresource: writer.subresource } : {}) }, fields: new Set() };
      list.push(mine);
    }
    if (present.length) mine.entry = { ...mine.entry, apiVersion: writer.apiVersion, time: metaTime() };
    for (const key of present) mine.fields.add(key);
  }
  store(after, list);
}

/**
 * Records an Apply of `applied` (the configuration as sent) that turned `live` into `merged`;
 * throws the 409 conflict, or removes from `merged` what the manager stopped applying.
 */
export function recordApply(live: KubeObject | undefined, merged: KubeObject, applied: unknown, writer: Writer & { manager: string; force: boolean }): void {
  const list = owners(live);
  const mine = list.find((o) => sameEntry(o.entry, writer.manager, 'Apply', writer.subresource));
  const wanted = fieldsOf(applied, writer.keys, part(writer.subresource));
  const conflicts: { manager: ManagedFieldsEntry; key: string }[] = [];
  for (const owned of list) {
    if (owned === mine) continue;
    for (const key of wanted) {
      if (!owned.fields.has(key)) continue;
      const path = pathOf(key);
      if (live && !isDeepStrictEqual(comparable(live, path), comparable(merged, path))) conflicts.push({ manager: owned.entry, key });
    }
  }
  if (conflicts.length && !writer.force) throw applyConflict(conflicts);
  for (const { manager, key } of conflicts) list.find((o) => o.entry === manager)?.fields.delete(key);
  // What this manager applied before and no longer does goes, unless another manager keeps it.
  for (const key of mine?.fields ?? []) {
    if (wanted.has(key)) continue;
    const path = pathOf(key);
    const kept = list.some((o) => o !== mine && [...o.fields].some((k) => overlaps(pathOf(k), path)));
    if (!kept) removeAt(merged, path);
  }
  const entry: ManagedFieldsEntry = { manager: writer.manager, operation: 'Apply', apiVersion: writer.apiVersion, time: metaTime(), ...(writer.subresource ? { subresource: writer.subresource } : {}) };
  const others = list.filter((o) => o !== mine);
  store(merged, [...others, { entry, fields: wanted }]);
}

/** printManager: `"name"` for Apply, `"name" using v1` for Update, `with subresource "status"` when set. */
function describeManager(entry: ManagedFieldsEntry): string {
  let text = JSON.stringify(entry.manager ?? '');
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion}`;
  return text;
}

/** apimachinery's NewConflictError: one conflict on one line, several grouped by manager. */
function applyConflict(conflicts: { manager: ManagedFieldsEntry; key: string }[]): ApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeManager(c.manager)}`, field: describePath(pathOf(c.key)) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0].manager)}: ${causes[0].field}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of causes) byManager.set(c.message.slice('conflict with '.length), [...(byManager.get(c.message.slice('conflict with '.length)) ?? []), c.field]);
    const lines = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${m}:`, ...byManager.get(m)!.map((f) => `- ${f}`)]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

