import { happenedBefore, histories, supervisorOf, type Facts, type ObjectHistory } from '../../../derive/histories.ts';
import { lifecycleSteps, relativeToMark, type StepWindow } from '../../../derive/steps.ts';
import type { ObjectEntry } from '../../../model.ts';

/** One stop: the moment a Sandbox's spec turned suspended, with the Pods and Secrets of the generation it stopped. */
export interface StopEpisode {
  sandbox: ObjectHistory;
  /** The entry where the Sandbox spec turned suspended. */
  suspension: ObjectEntry;
  /** The stopped generation's supervisor Pod (see `supervisorOf`). */
  supervisor?: ObjectHistory;
  workload?: ObjectHistory;
  /** The generation's Secrets deleted while recording (what the ordering rule judges). */
  secrets: ObjectHistory[];
  /** Every Secret of the sandbox that existed when the stop suspended it: the stopped generation's. */
  generationSecrets: ObjectHistory[];
  /** The first entry from the suspension on where the Sandbox reports itself suspended. */
  reportedSuspended?: ObjectEntry;
  /** The harness step of the stop call: the first step with the word `stop` that ended after the suspension. */
  call?: StepWindow;
}

/** Each time a Sandbox's spec turned suspended, with the Pods of the generation it stopped. */
export function stopEpisodes(facts: Facts): StopEpisode[] {
  const episodes: StopEpisode[] = [];
  const stopCalls = lifecycleSteps(facts, 'stop');
  for (const sandbox of histories(facts, { resource: 'sandboxes' })) {
    for (const [k, suspension] of sandbox.suspensions.entries()) {
      const before = (h: ObjectHistory) => happenedBefore(h.seen, suspension);
      // A generation's Secrets are made after the previous stop: an earlier generation's are that stop's.
      const previous = sandbox.suspensions[k - 1];
      const ofThisGeneration = (h: ObjectHistory) => before(h) && !(previous && happenedBefore(h.seen, previous));
      const latest = (list: ObjectHistory[]) => list.filter(before).sort((a, b) => (happenedBefore(a.seen, b.seen) ? -1 : 1)).at(-1);
      const workload = latest(histories(facts, { resource: 'pods', role: 'workload', sandboxId: sandbox.sandboxId }));
      // The stopped generation's supervisor, not one someone else created under its name since (OpenShell#3556).
      const supervisors = histories(facts, { resource: 'pods', role: 'supervisor', sandboxId: sandbox.sandboxId });
      const supervisor = (workload && supervisorOf(supervisors.filter(before), workload.seen)) ?? latest(supervisors);
      const alive = histories(facts, { resource: 'secrets', sandboxId: sandbox.sandboxId }).filter((s) => ofThisGeneration(s) && !(s.gone && happenedBefore(s.gone, suspension)));
      episodes.push({
        sandbox,
        suspension,
        supervisor,
        workload,
        secrets: histories(facts, { resource: 'secrets', sandboxId: sandbox.sandboxId }).filter((s) => ofThisGeneration(s) && s.gone),
        generationSecrets: alive,
        reportedSuspended: reportedSuspended(sandbox, suspension),
        call: stopCallOf(stopCalls, suspension),
      });
    }
  }
  return episodes;
}

/**
 * The stop call of a suspension: the first stop step that ended after it was committed; failing
 * that (its marks unstamped, the suspension arriving late), the first whose end cannot be placed.
 */
function stopCallOf(calls: StepWindow[], suspension: ObjectEntry): StepWindow | undefined {
  const ended = (order: string) => calls.find((w) => w.end && relativeToMark(suspension, w.end) === order);
  return ended('before') ?? ended('unknown');
}

/**
 * Where the Sandbox reports the suspension: a Suspended=True condition at its current
 * generation (Agent Sandbox v0.5.x). A release that has no Suspended condition at all (v0.4.6)
 * reports nothing beyond the suspended spec, so there the suspension itself counts.
 */
function reportedSuspended(sandbox: ObjectHistory, suspension: ObjectEntry): ObjectEntry | undefined {
  const hasCondition = sandbox.entries.some((e) => e.sandbox?.conditions.some((c) => c.type === 'Suspended'));
  if (!hasCondition) return suspension;
  for (const e of sandbox.entries) {
    if (happenedBefore(e, suspension) || !e.sandbox) continue;
    if (!e.sandbox.suspended) return undefined; // running again: this stop was never reported
    const { conditions, generation } = e.sandbox;
    if (conditions.some((c) => c.type === 'Suspended' && c.status === 'True' && (c.observedGeneration === undefined || generation === undefined || c.observedGeneration === generation))) return e;
  }
  return undefined;
}
