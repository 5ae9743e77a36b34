/**
 * The delete family: deleting a running sandbox must not SIGKILL its supervisor. Garbage
 * collection of the Sandbox takes both Pods at once (the #3421 defect on the delete path), so
 * the supervisor must be gone, cleanly, before the workload's deletion is requested — the
 * ordered stop first — and afterwards nothing of the sandbox may remain or come back.
 *
 * The delete call is the harness step with `delete` as a word of its title begun last before
 * the Sandbox's deletion; "running" is judged at that step's begin (spec running, supervisor
 * Pod present). A stopped sandbox's delete is not an episode.
 */
import { objectLabel, KIND } from '../../../derive/format.ts';
import { happenedBefore, type Facts } from '../../../derive/histories.ts';
import { defineFamily, joinFamilies, rule } from '../../family.ts';
import { gapVerdict, orderVerdict, slice } from '../../order.ts';
import { cleanExitVerdict } from '../../pod-verdicts.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from '../../verdict.ts';
import { deleteEpisodes, type DeleteEpisode } from './delete-episodes.ts';
import { repeatedDeleteFamily } from './repeated-delete.ts';

const SOURCE = 'OpenShell#3421 on the delete path: a Ready sandbox deleted by garbage collection loses both Pods at once; delete must run the ordered stop first';

export const DELETE_INVARIANTS = {
  supervisorExitsClean: { id: 'delete/supervisor-exit-clean', title: 'deleting a running sandbox lets its supervisor exit 0, not 137 (SIGKILLed at its grace period)', source: SOURCE },
  supervisorBeforeWorkload: { id: 'delete/supervisor-gone-before-workload-delete', title: "deleting a running sandbox: the supervisor Pod is gone before the workload Pod's deletion is requested", source: SOURCE },
  ownedGone: {
    id: 'delete/owned-objects-gone',
    title: 'after the delete every object of the sandbox (Sandbox, Pods, Secrets) is gone within its grace period plus API headroom, and none comes back',
    source: 'OpenShell delete flow: the Sandbox, its Pods, Service and Secrets go (by owner references); nothing is left in the namespace',
  },
} satisfies Record<string, InvariantInfo>;

const I = DELETE_INVARIANTS;

/**
 * Everything of the sandbox is gone and stays gone. An object may take its own time: a Pod its
 * grace period, anything else none, plus the API headroom, counted from the Sandbox's deletion;
 * one still there past that while the recording went on is left behind (FAIL), one the
 * recording ended too soon to judge is INCONCLUSIVE.
 */
function ownedGoneVerdict(facts: Facts, e: DeleteEpisode, headroom: number): Verdict {
  const info = I.ownedGone;
  const name = (o: (typeof e.owned)[number]) => `${KIND[o.resource]} ${o.name}`;
  const sandboxGone = e.sandbox.gone;
  const reborn = sandboxGone ? e.owned.filter((o) => o.uid !== e.sandbox.uid && happenedBefore(sandboxGone, o.seen)) : [];
  if (reborn.length) {
    return violation(info, `${reborn.map(name).join(', ')} created after Sandbox ${e.sandbox.name} was deleted (rv ${sandboxGone!.resourceVersion})`, [sandboxGone!, ...reborn.map((o) => o.seen)], {
      timeline: slice(facts, [sandboxGone!, ...reborn.map((o) => o.seen)], new Map([[sandboxGone!.seq, 'Sandbox gone']])),
    });
  }
  const left = e.owned.filter((o) => !o.gone);
  if (left.length === 0) return pass(info, `all ${e.owned.length} objects of the sandbox are gone: ${e.owned.map(name).join(', ')}`, e.owned.map((o) => o.gone!));
  const recordedUntil = facts.timeline.entries.at(-1)?.t ?? e.deletion.t;
  const gap = gapVerdict(facts, info, ['pods', 'sandboxes', 'secrets'], e.deletion.t, recordedUntil, 'the delete', [e.deletion]);
  if (gap) return gap;
  const deadline = (o: (typeof e.owned)[number]) => (o.resource === 'pods' ? ([...o.entries].reverse().find((x) => x.terminationGracePeriodSeconds !== undefined)?.terminationGracePeriodSeconds ?? 30) : 0) + headroom;
  const overdue = left.filter((o) => recordedUntil - e.deletion.t > deadline(o) * 1000);
  if (overdue.length) {
    const listed = overdue.map((o) => `${name(o)} (deadline ${deadline(o)} s)`).join(', ');
    return violation(info, `still there ${((recordedUntil - e.deletion.t) / 1000).toFixed(1)} s after Sandbox ${e.sandbox.name}'s deletion (rv ${e.deletion.resourceVersion}), past its grace period plus ${headroom} s API headroom: ${listed}`, [e.deletion, ...overdue.map((o) => o.entries.at(-1)!)]);
  }
  return inconclusive(info, `not yet seen gone when the recording ended, ${((recordedUntil - e.deletion.t) / 1000).toFixed(1)} s after the deletion, inside their deadlines: ${left.map(name).join(', ')}`, [e.deletion]);
}

const deleteRules = defineFamily<DeleteEpisode>({
  prefix: 'delete/',
  episodes: deleteEpisodes,
  noEpisode: 'no delete of a running sandbox was observed',
  rules: [
    rule(I.supervisorExitsClean, (e, facts) => [cleanExitVerdict(facts, I.supervisorExitsClean, e.supervisor, 'supervisor', { entry: e.deletion, what: 'Sandbox deletion' })]),
    rule(I.supervisorBeforeWorkload, (e, facts) => [
      orderVerdict(facts, I.supervisorBeforeWorkload, { entry: e.supervisor.gone, what: `${objectLabel(e.supervisor, 'the supervisor Pod')} gone` }, { entry: e.workload?.deleteRequested, what: `${objectLabel(e.workload, 'the workload Pod')} deletion requested` }, ['pods']),
    ]),
    rule(I.ownedGone, (e, facts, settings) => [ownedGoneVerdict(facts, e, settings.apiHeadroomSeconds)]),
  ],
});

/** The family as registered: the rules over its episodes, and the rule over its repeated calls (repeated-delete.ts). */
export const deleteFamily = joinFamilies(deleteRules, repeatedDeleteFamily);
