import { happenedBefore, histories, type Facts, type ObjectHistory } from '../../../derive/histories.ts';
import type { ObjectEntry } from '../../../model.ts';

/** One stop: the moment a Sandbox's spec turned suspended, with the Pods and Secrets of the generation it stopped. */
export interface StopEpisode {
  sandbox: ObjectHistory;
  /** The entry where the Sandbox spec turned suspended. */
  suspension: ObjectEntry;
  supervisor?: ObjectHistory;
  workload?: ObjectHistory;
  secrets: ObjectHistory[];
}

/** Each time a Sandbox's spec turned suspended, with the Pods of the generation it stopped. */
export function stopEpisodes(facts: Facts): StopEpisode[] {
  const episodes: StopEpisode[] = [];
  for (const sandbox of histories(facts, { resource: 'sandboxes' })) {
    for (const suspension of sandbox.suspensions) {
      const before = (h: ObjectHistory) => happenedBefore(h.seen, suspension);
      const latest = (list: ObjectHistory[]) => list.filter(before).sort((a, b) => (happenedBefore(a.seen, b.seen) ? -1 : 1)).at(-1);
      const supervisor = latest(histories(facts, { resource: 'pods', role: 'supervisor', sandboxId: sandbox.sandboxId }));
      const workload = latest(histories(facts, { resource: 'pods', role: 'workload', sandboxId: sandbox.sandboxId }));
      const secrets = histories(facts, { resource: 'secrets', sandboxId: sandbox.sandboxId }).filter((s) => before(s) && s.gone);
      episodes.push({ sandbox, suspension, supervisor, workload, secrets });
    }
  }
  return episodes;
}

/** `supervisor Pod os-supervisor-…`, or the fallback when the object was not seen. */
export function label(h: ObjectHistory | undefined, fallback: string): string {
  if (!h) return fallback;
  const kind = h.resource === 'pods' ? 'Pod' : h.resource === 'sandboxes' ? 'Sandbox' : 'Secret';
  return `${h.role ? `${h.role} ` : ''}${kind} ${h.name}`;
}
