/**
 * Whether an object's change, as a watch delivered it, is the change a trigger names: created,
 * deleted, its deletion requested, a Sandbox turning suspended or running again, or a field (a
 * JSONPath, read with jsonpath-plus) taking a value.
 */
import { JSONPath } from 'jsonpath-plus';
import type { ObjectChange } from '../schedule/schedule.ts';

/** A watched object as the recorder delivered it. */
export interface WatchedObject {
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  [key: string]: unknown;
}

/** One recorded change: the event type, the object before (undefined when first seen) and after. */
export interface ObservedChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';
  before?: WatchedObject;
  after: WatchedObject;
}

/** How a Sandbox says it is suspended in its spec, per Sandbox API version (the harness passes the driver's reading). */
export type SuspendedInSpec = (object: WatchedObject) => boolean;

export function isChange(change: ObjectChange, observed: ObservedChange, suspended: SuspendedInSpec): boolean {
  const { type, before, after } = observed;
  if (type === 'LISTED') return false; // what was there before the recording: no change seen
  switch (change) {
    case 'created':
      return type === 'ADDED';
    case 'deleted':
      return type === 'DELETED';
    case 'deletion-requested':
      return type !== 'DELETED' && !!after.metadata?.deletionTimestamp && !before?.metadata?.deletionTimestamp;
    case 'suspended':
      return type !== 'DELETED' && suspended(after) && !(before && suspended(before));
    case 'resumed':
      return type !== 'DELETED' && !!before && suspended(before) && !suspended(after);
  }
  if (type === 'DELETED') return false;
  const now = fieldValue(after, change.field);
  const was = before ? fieldValue(before, change.field) : undefined;
  if (JSON.stringify(now) === JSON.stringify(was)) return false;
  return !('to' in change) || JSON.stringify(now ?? null) === JSON.stringify(change.to);
}

/** The value at a JSONPath (the first match), or undefined. */
function fieldValue(object: WatchedObject, path: string): unknown {
  const found = JSONPath({ path, json: object as object, wrap: true }) as unknown[];
  return found[0];
}
