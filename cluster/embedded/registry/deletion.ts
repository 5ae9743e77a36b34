/**
 * What a DELETE makes of an object, as the generic registry decides it: the finalizer a
 * propagation policy adds, graceful deletion (deletionTimestamp and the grace period, which a
 * later delete may only shorten), or removal at once when nothing holds the object.
 */
import { clone, type KubeObject, metaTime } from '../types.ts';
import type { DeleteOptions } from './object-api-options.ts';
import type { ResourceType } from './resource-type.ts';

/** Finalizers the API server itself acts on. */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** The object marked as being deleted, or 'remove' when no finalizer, grace period or kind holds it. */
export function markedForDeletion(type: ResourceType, current: KubeObject, options: DeleteOptions): KubeObject | 'remove' {
  const next = clone(current);
  const meta = next.metadata;
  const finalizers = new Set(meta.finalizers ?? []);
  const policy = options.propagationPolicy ?? (options.orphanDependents ? 'Orphan' : undefined);
  if (!meta.deletionTimestamp) {
    if (policy === 'Orphan') finalizers.add(ORPHAN_FINALIZER);
    if (policy === 'Foreground') finalizers.add(FOREGROUND_FINALIZER);
  }
  const grace = type.strategy.gracePeriodSeconds?.(current, options.gracePeriodSeconds) ?? 0;
  if (finalizers.size === 0 && grace === 0 && !type.strategy.holdsDeletion?.(current)) return 'remove';
  const deadline = metaTime(new Date(Date.now() + grace * 1000));
  const shortens = meta.deletionGracePeriodSeconds === undefined || grace < meta.deletionGracePeriodSeconds;
  if (!meta.deletionTimestamp || shortens) {
    meta.deletionTimestamp = deadline;
    meta.deletionGracePeriodSeconds = grace;
  }
  if (finalizers.size) meta.finalizers = [...finalizers];
  type.strategy.markDeleting?.(next);
  return next;
}
