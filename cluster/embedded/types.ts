/** The shapes every part of the embedded cluster shares: objects as plain JSON. */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of JSON data: what a caller takes before it changes an object it read (reads are frozen, see deepFreeze). */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Freezes a JSON value and everything in it; returns it. The store freezes what it stores, so
 * reads, lists, watch events and the revision log can all share one object without copying:
 * a caller that changes an object it read must `clone` it first, and one that forgets gets a
 * TypeError where it writes (ESM is strict) instead of silently changing the store's state.
 * The whole value is walked even below frozen parts: a value frozen elsewhere may be frozen
 * only at its top.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}

/** A time as metav1.Time serialises it: RFC 3339 in UTC, whole seconds (`2026-01-01T00:00:00Z`). */
export function metaTime(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
