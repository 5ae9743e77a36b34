/**
 * How many objects of each role a run created and deleted, read from its timeline: Sieve's
 * differential oracle compares these counts with the fault-free reference run of the same program
 * (it caught 17 of Sieve's 46 bugs: a controller that, under a fault, makes or removes objects a
 * healthy run does not).
 */
import type { Timeline } from '../../timeline/model.ts';

/** The schedule's names for the roles the recorder files objects under. */
export function roleOfEntry(resource: string, role: string | undefined): string | undefined {
  if (resource === 'sandboxes') return 'sandbox';
  if (resource === 'secrets') return 'generationSecrets';
  if (resource === 'pods' && role === 'supervisor') return 'supervisorPod';
  if (resource === 'pods' && role === 'workload') return 'workloadPod';
  return undefined;
}

export type Churn = Record<string, { created: number; deleted: number }>;

export function objectChurn(timeline: Timeline): Churn {
  const churn: Churn = {};
  for (const entry of timeline.entries) {
    if (entry.kind !== 'object' || (entry.type !== 'ADDED' && entry.type !== 'DELETED')) continue;
    const role = roleOfEntry(entry.resource, entry.role);
    if (!role) continue;
    const counts = (churn[role] ??= { created: 0, deleted: 0 });
    if (entry.type === 'ADDED') counts.created++;
    else counts.deleted++;
  }
  return churn;
}
