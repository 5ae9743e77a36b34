/**
 * Structural pruning, as apiextensions does it when it decodes a custom resource (request
 * bodies and reads from storage alike): members the schema does not declare are dropped,
 * except below `x-kubernetes-preserve-unknown-fields: true`. The paths dropped are returned so
 * the server can answer `fieldValidation=Strict` / `Warn` with `unknown field "spec.foo"`.
 *
 * The same decode pass then drops nulls the schema does not allow and cannot default (a
 * non-nullable null with a default is left for applyDefaults to replace); those are not
 * unknown fields, so they are not reported.
 */

import { isPlainObject } from '../types.ts';
import { additionalSchema, childPath, indexPath, type JSONSchemaProps } from './structural-schema.ts';

/** Always kept on the resource root and on `x-kubernetes-embedded-resource` objects. */
const TYPE_AND_OBJECT_META = new Set(['apiVersion', 'kind', 'metadata']);

/** metav1.ObjectMeta's own JSON fields: what an embedded object's metadata may keep. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/**
 * Mutates `obj`; returns the dotted paths removed, in document order. With `isRoot` the object is
 * a whole custom resource: its apiVersion, kind and metadata are left alone (the server handles
 * root metadata as ObjectMeta, outside the schema).
 */
export function prune(obj: unknown, schema: JSONSchemaProps, options: { isRoot?: boolean } = {}): string[] {
  const removed: string[] = [];
  pruneValue(obj, schema, '', removed, { isRoot: options.isRoot === true, preserve: false });
  dropNullsWithoutDefaults(obj, schema);
  return removed;
}

interface Context {
  isRoot: boolean;
  /** An array under preserve-unknown-fields keeps its items' unknown members too. */
  preserve: boolean;
}

function pruneValue(value: unknown, schema: JSONSchemaProps | undefined, path: string, removed: string[], ctx: Context): void {
  const preserve = ctx.preserve || schema?.['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value)) {
    value.forEach((item, i) => pruneValue(item, schema?.items, indexPath(path, i), removed, { isRoot: false, preserve }));
    return;
  }
  if (!isPlainObject(value)) return;
  const embedded = ctx.isRoot || schema?.['x-kubernetes-embedded-resource'] === true;
  const extra = additionalSchema(schema);
  for (const key of Object.keys(value)) {
    const memberPath = childPath(path, key);
    if (embedded && TYPE_AND_OBJECT_META.has(key)) {
      if (key === 'metadata' && !ctx.isRoot) pruneObjectMeta(value.metadata, memberPath, removed);
      continue;
    }
    const member = schema?.properties?.[key] ?? extra;
    if (member) {
      pruneValue(value[key], member, memberPath, removed, { isRoot: false, preserve: false });
    } else if (!preserve && schema?.additionalProperties !== true) {
      // `additionalProperties: true` carries no schema but still admits any member.
      delete value[key];
      removed.push(memberPath);
    }
  }
}

/** An embedded object's metadata keeps only what ObjectMeta can hold. */
function pruneObjectMeta(metadata: unknown, path: string, removed: string[]): void {
  if (!isPlainObject(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (OBJECT_META_FIELDS.has(key)) continue;
    delete metadata[key];
    removed.push(childPath(path, key));
  }
}

/** Null where the schema neither allows null nor has a default to put in its place. */
function dropNullsWithoutDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) dropNullsWithoutDefaults(item, schema?.items);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const member = schema?.properties?.[key] ?? additionalSchema(schema);
    const defaultable = member?.default !== undefined && member?.default !== null;
    if (value[key] === null && member && !member.nullable && !defaultable) delete value[key];
    else dropNullsWithoutDefaults(value[key], member);
  }
}
