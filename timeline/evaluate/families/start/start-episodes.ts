import { happenedBefore, histories, inCommitOrder, supervisorOf, type Facts, type ObjectHistory } from '../../../derive/histories.ts';
import { lifecycleSteps, type StepWindow } from '../../../derive/steps.ts';
import type { ObjectEntry } from '../../../model.ts';

/**
 * One start: a stretch in which a Sandbox's spec says running — from its creation running, or
 * the entry where it turned running, to the next suspension — with the Pods of that generation.
 */
export interface StartEpisode {
  sandbox: ObjectHistory;
  /** The entry where the spec turned running (or the first sighting, when it was born running). */
  running: ObjectEntry;
  /** The next suspension, if one came while recording. */
  until?: ObjectEntry;
  /** The workload Pods first seen in the stretch, in commit order: one per generation. */
  workloads: ObjectHistory[];
  /** The generation's supervisor Pod (see `supervisorOf`). */
  supervisor?: ObjectHistory;
  /** The harness step of the create or start call that began it. */
  call?: StepWindow;
}

/** Every stretch of running spec of every Sandbox, in the order they began. */
export function startEpisodes(facts: Facts): StartEpisode[] {
  const calls = [...lifecycleSteps(facts, 'create'), ...lifecycleSteps(facts, 'start')].sort((a, b) => a.begin.seq - b.begin.seq);
  const episodes: StartEpisode[] = [];
  for (const sandbox of histories(facts, { resource: 'sandboxes' })) {
    const pods = (role: string) => inCommitOrder(histories(facts, { resource: 'pods', role, sandboxId: sandbox.sandboxId }));
    let was: boolean | undefined;
    for (const entry of sandbox.entries) {
      if (!entry.sandbox || entry.type === 'DELETED') continue;
      const running = !entry.sandbox.suspended;
      if (running && was !== true) {
        const until = sandbox.suspensions.find((s) => happenedBefore(entry, s));
        const workloads = pods('workload').filter((w) => !happenedBefore(w.seen, entry) && (!until || happenedBefore(w.seen, until)));
        episodes.push({
          sandbox,
          running: entry,
          until,
          workloads,
          supervisor: supervisorOf(pods('supervisor'), workloads[0]?.seen ?? entry),
          // The call began before the spec turned running: the last create or start step begun before it.
          call: calls.filter((c) => c.begin.seq < entry.seq).at(-1),
        });
      }
      was = running;
    }
  }
  return episodes;
}
