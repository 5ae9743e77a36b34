/**
 * Where faults can land, read from the fault-free reference run of a program (Sieve plans from a
 * reference trace the same way): each change the recorder saw of a sandbox's objects — created,
 * its deletion requested, a Sandbox turning suspended or running again, deleted — with how many
 * times it happened, and the driver's requests those changes imply (the DELETE of the supervisor
 * Pod, each suspension write, its k-th write). A trigger drawn from these fires on something that
 * really happens when the program runs.
 */
import type { ObjectChange, ObjectRef, ObjectRole, ScheduledRequestMatch } from '../../faults/schedule/schedule.ts';
import type { ObjectEntry, Timeline } from '../../timeline/model.ts';
import { roleOfEntry } from '../oracle/object-churn.ts';

export interface EventPoint {
  object: ObjectRef;
  change: Exclude<ObjectChange, { field: string }>;
  occurrence: number;
}

export interface RequestPoint {
  match: ScheduledRequestMatch;
  occurrence: number;
  /** A write (a crash `answered` right after it leaves it landed and unseen). */
  write: boolean;
}

export interface ReferencePoints {
  /** The sandboxes the program made, by the names it gave them. */
  sandboxes: string[];
  events: EventPoint[];
  requests: RequestPoint[];
}

/** The name the test created a sandbox with: the Sandbox object's name is `<workspace>--<name>`. */
function sandboxName(objectName: string): string {
  const at = objectName.indexOf('--');
  return at < 0 ? objectName : objectName.slice(at + 2);
}

export function referencePoints(timeline: Timeline): ReferencePoints {
  const objects = timeline.entries.filter((e): e is ObjectEntry => e.kind === 'object' && e.type !== 'LISTED');
  const names = new Map<string, string>();
  for (const e of objects) if (e.resource === 'sandboxes' && e.sandboxId) names.set(e.sandboxId, sandboxName(e.name));
  const counts = new Map<string, EventPoint>();
  const count = (role: ObjectRole, sandbox: string, change: EventPoint['change']) => {
    const key = `${role}/${sandbox}/${change}`;
    const point = counts.get(key) ?? { object: { role, sandbox }, change, occurrence: 0 };
    point.occurrence++;
    counts.set(key, point);
  };
  const last = new Map<string, ObjectEntry>();
  for (const e of objects) {
    const role = roleOfEntry(e.resource, e.role) as ObjectRole | undefined;
    const sandbox = e.sandboxId ? names.get(e.sandboxId) : undefined;
    if (!role || !sandbox) continue;
    const before = last.get(e.uid);
    last.set(e.uid, e);
    if (e.type === 'ADDED') count(role, sandbox, 'created');
    if (e.type === 'DELETED') {
      count(role, sandbox, 'deleted');
      continue;
    }
    if (e.deletionTimestamp && !before?.deletionTimestamp) count(role, sandbox, 'deletion-requested');
    if (e.sandbox?.suspended && !before?.sandbox?.suspended) count(role, sandbox, 'suspended');
    if (before?.sandbox?.suspended && e.sandbox && !e.sandbox.suspended) count(role, sandbox, 'resumed');
  }
  // Every occurrence up to the count is a point of its own.
  const events = [...counts.values()].flatMap((p) => Array.from({ length: p.occurrence }, (_, i) => ({ ...p, occurrence: i + 1 })));
  const requests: RequestPoint[] = [];
  let writes = 0;
  for (const p of events) {
    const { role, sandbox } = p.object;
    if (role === 'supervisorPod' && p.change === 'deletion-requested') requests.push({ match: { verb: 'delete', object: { role, sandbox } }, occurrence: p.occurrence, write: true });
    if (role === 'sandbox' && p.change === 'suspended') requests.push({ match: { object: { role, sandbox }, suspends: true }, occurrence: p.occurrence, write: true });
    // What the driver writes itself: the Sandbox and its Secrets, the suspensions and resumptions, the deletions it asks for.
    if ((role === 'sandbox' || role === 'generationSecrets') && p.change === 'created') writes++;
    if (p.change === 'suspended' || p.change === 'resumed' || (p.change === 'deletion-requested' && role !== 'workloadPod')) writes++;
  }
  for (let k = 1; k <= writes; k++) requests.push({ match: { writes: true }, occurrence: k, write: true });
  return { sandboxes: [...new Set(names.values())], events, requests };
}
