import { happenedBefore, type Facts, type ObjectHistory } from '../../../derive/histories.ts';
import type { ObjectEntry } from '../../../model.ts';

/** An object re-created under the name of one that was deleted: what a stale request aimed at the old one must not touch. */
export interface Replacement {
  object: ObjectHistory;
  /** The object whose name it took (gone before it appeared). */
  replaced?: ObjectHistory;
  /** For objects of a replacement Sandbox: that Sandbox. */
  via?: ObjectHistory;
}

/**
 * Every replacement in the recording: an object whose resource, namespace and name an earlier
 * object (another uid) held until it was gone, and every later object carrying the sandbox id
 * of a replacement Sandbox (its Pods and Secrets, whatever their names).
 */
export function replacements(facts: Facts): Replacement[] {
  const found: Replacement[] = [];
  const key = (o: ObjectHistory) => `${o.resource}/${o.namespace}/${o.name}`;
  for (const object of facts.objects) {
    const replaced = facts.objects.filter((o) => o !== object && key(o) === key(object) && o.gone && happenedBefore(o.gone, object.seen)).at(-1);
    if (replaced) found.push({ object, replaced });
  }
  for (const { object: sandbox } of found.filter((r) => r.object.resource === 'sandboxes')) {
    for (const object of facts.objects) {
      if (object.resource === 'sandboxes' || !sandbox.sandboxId || object.sandboxId !== sandbox.sandboxId || happenedBefore(object.seen, sandbox.seen)) continue;
      if (!found.some((r) => r.object === object)) found.push({ object, via: sandbox });
    }
  }
  return found;
}

/** What a stale request would have done to an object: its deletion requested, its disappearance, or (a Sandbox) its spec or stop phase changed. */
export function touches(object: ObjectHistory): { entry: ObjectEntry; what: string }[] {
  const found: { entry: ObjectEntry; what: string }[] = [];
  let previous: ObjectEntry | undefined;
  for (const entry of object.entries) {
    if (entry === object.deleteRequested && entry.type !== 'DELETED') found.push({ entry, what: 'deletion requested' });
    if (entry.type === 'DELETED') found.push({ entry, what: 'deleted' });
    const [was, now] = [previous?.sandbox, entry.sandbox];
    if (was && now && entry.type === 'MODIFIED') {
      if (was.suspended !== now.suspended) found.push({ entry, what: now.suspended ? 'suspended' : 'resumed' });
      else if (was.bootstrapPhase !== now.bootstrapPhase) found.push({ entry, what: `bootstrap phase ${was.bootstrapPhase ?? 'none'} → ${now.bootstrapPhase ?? 'none'}` });
    }
    previous = entry;
  }
  return found;
}
