import { happenedBefore, histories, type Facts, type ObjectHistory } from '../../../derive/histories.ts';
import { lifecycleSteps, type StepWindow } from '../../../derive/steps.ts';
import type { ObjectEntry, TimelineEntry } from '../../../model.ts';

/** One delete of a running sandbox: its Sandbox's deletion, the call that asked for it, and what the sandbox had. */
export interface DeleteEpisode {
  sandbox: ObjectHistory;
  /** The Sandbox's first deletion request, else its disappearance. */
  deletion: ObjectEntry;
  /** The harness step of the delete call: the last step with the word `delete` begun before the deletion. */
  call?: StepWindow;
  supervisor: ObjectHistory;
  workload?: ObjectHistory;
  /** Every object of the sandbox recorded (its Sandbox, Pods and Secrets). */
  owned: ObjectHistory[];
}

/**
 * Each deletion of a Sandbox that was running when the delete began (at the delete call's begin
 * mark, or at the deletion itself without one): its spec running and its supervisor Pod there.
 * Deleting a stopped sandbox has no supervisor to spare and is not an episode.
 */
export function deleteEpisodes(facts: Facts): DeleteEpisode[] {
  const calls = lifecycleSteps(facts, 'delete');
  const episodes: DeleteEpisode[] = [];
  for (const sandbox of histories(facts, { resource: 'sandboxes' })) {
    const deletion = sandbox.deleteRequested ?? sandbox.gone;
    if (!deletion) continue;
    const call = calls.filter((c) => c.begin.seq < deletion.seq).at(-1);
    const began: TimelineEntry = call?.begin ?? deletion;
    const before = (e: ObjectEntry) => (began.kind === 'step' ? e.seq < began.seq : happenedBefore(e, began) && e !== began);
    const state = sandbox.entries.filter(before).at(-1)?.sandbox;
    const present = (role: string) => histories(facts, { resource: 'pods', role, sandboxId: sandbox.sandboxId }).filter((p) => before(p.seen) && !(p.gone && before(p.gone))).at(-1);
    const supervisor = present('supervisor');
    if (!state || state.suspended || !supervisor) continue;
    const owned = facts.objects.filter((o) => o.uid === sandbox.uid || (o.sandboxId !== undefined && o.sandboxId === sandbox.sandboxId && o.resource !== 'sandboxes'));
    episodes.push({ sandbox, deletion, call, supervisor, workload: present('workload'), owned });
  }
  return episodes;
}
