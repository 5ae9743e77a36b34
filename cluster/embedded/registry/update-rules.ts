/**
 * What a write may change of an object that exists, as kube-apiserver's generic registry rules
 * it: each subresource its own part, the metadata the server owns kept, no finalizer added while
 * the object is being deleted, generation following the spec, and a write that changes nothing
 * no change.
 */
import { isDeepStrictEqual } from 'node:util';
import { causes, errors } from '../errors.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';
import type { ResourceType } from './resource-type.ts';

/**
 * The object a write of `incoming` through `subresource` makes of `current`: /status changes only
 * the status, a Namespace's /finalize only spec.finalizers (the namespace controller's last step),
 * the main resource all but the status when the version has a status subresource.
 */
export function writtenThrough(subresource: string, current: KubeObject, incoming: KubeObject, statusSubresource: boolean): KubeObject {
  if (subresource === 'status') {
    const next = { ...clone(current), status: clone(incoming.status) };
    if (next.status === undefined) delete next.status;
    return next;
  }
  if (subresource === 'finalize') {
    const spec = isPlainObject(incoming.spec) ? incoming.spec : {};
    const next = clone(current);
    next.spec = { ...(next.spec as object), finalizers: clone(spec.finalizers ?? []) };
    return next;
  }
  const next = incoming;
  if (statusSubresource) {
    if (current.status === undefined) delete next.status;
    else next.status = clone(current.status);
  }
  return next;
}

/** Fields of metadata the client cannot change through a write: copied from `current` onto `next`. */
export function keepServerOwnedMetadata(next: KubeObject, current: KubeObject): void {
  const meta = next.metadata;
  for (const field of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (current.metadata[field] === undefined) delete meta[field];
    else meta[field] = current.metadata[field] as never;
  }
}

/** ValidateNoNewFinalizers: 422 when `next` adds a finalizer to an object that is being deleted. */
export function refuseNewFinalizersWhileDeleting(type: ResourceType, next: KubeObject, current: KubeObject): void {
  if (!current.metadata.deletionTimestamp) return;
  const added = (next.metadata.finalizers ?? []).filter((f) => !(current.metadata.finalizers ?? []).includes(f));
  if (!added.length) return;
  throw errors.invalid(type.kind, type.group, current.metadata.name!, [
    // Go's %#v of the sorted set, as ValidateNoNewFinalizers prints it: []string{"a", "b"}.
    causes.forbidden(
      'metadata.finalizers',
      `no new finalizers can be added if the object is being deleted, found new finalizers []string{${[...new Set(added)].sort().map((f) => JSON.stringify(f)).join(', ')}}`,
    ),
  ]);
}

/** Whether anything but metadata and status changed: what moves `metadata.generation`. */
export function specChanged(next: KubeObject, current: KubeObject): boolean {
  return !isDeepStrictEqual(specOf(next), specOf(current));
}

/** Whether `next` is `current` again: equal but for resourceVersion, and the same field ownership but for its times. */
export function unchanged(next: KubeObject, current: KubeObject): boolean {
  return isDeepStrictEqual(withoutVolatile(next), withoutVolatile(current)) && isDeepStrictEqual(ownership(next), ownership(current));
}

/** Everything but metadata and status. */
function specOf(object: KubeObject): unknown {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
}

/** managedFields without their times: what decides whether ownership changed. */
function ownership(object: KubeObject): unknown {
  return ((object.metadata.managedFields ?? []) as { time?: string }[]).map(({ time: _t, ...entry }) => entry);
}

function withoutVolatile(object: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = object.metadata;
  return { ...object, metadata: meta };
}
