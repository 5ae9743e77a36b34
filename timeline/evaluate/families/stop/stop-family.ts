/**
 * The stop family: the ordering OpenShell#3421 got wrong and #3424 fixed, judged over every
 * stop in the timeline. The supervisor cleans up through the workload's boundary, so it must be
 * gone before the workload is deleted or suspended, exit cleanly, within its deadline, and be
 * deleted with its full grace period; the generation Secrets go only after the Pods that mount
 * them, and all of them are gone, the workload Pod too, by the time the stop call returns.
 *
 * The stop call is the harness step whose title has the word `stop` (`stop`, `stop the
 * sandbox`, `resumed stop`) that ended after the Sandbox's spec turned suspended; "the stop
 * returned" is that step's end mark, ordered against the cluster's changes by its revision.
 */
import { suspensionField } from '../../../../driver/agent-sandbox-api.ts';
import { objectLabel } from '../../../derive/format.ts';
import { happenedBefore, type Facts } from '../../../derive/histories.ts';
import type { ObjectEntry } from '../../../model.ts';
import { returnedAfterVerdict } from '../../call-return.ts';
import { defineFamily, joinFamilies, rule } from '../../family.ts';
import { gapVerdict, orderVerdict } from '../../order.ts';
import { cleanExitVerdict, fullGraceVerdict } from '../../pod-verdicts.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from '../../verdict.ts';
import { stopEpisodes, type StopEpisode } from './stop-episodes.ts';
import { repeatedStopFamily } from './repeated-stop.ts';

const SOURCE = 'OpenShell#3421, fixed by #3424: the supervisor cleans up through the workload boundary, so it must go first';

/** The stop invariants, with stable IDs for reports, `--list` and CI summaries. */
export const STOP_INVARIANTS = {
  supervisorBeforeWorkload: { id: 'stop/supervisor-gone-before-workload-delete', title: "the supervisor Pod is gone before the workload Pod's deletion is requested", source: SOURCE },
  suspendAfterSupervisor: { id: 'stop/suspend-after-supervisor-gone', title: 'the suspension appears on the Sandbox only after the supervisor Pod is gone', source: SOURCE },
  supervisorExitsClean: { id: 'stop/supervisor-exit-clean', title: 'the supervisor container exits 0 (cleaned up), not 137 (SIGKILLed at its grace period)', source: SOURCE },
  supervisorWithinDeadline: { id: 'stop/supervisor-gone-within-deadline', title: 'the supervisor Pod is gone within its grace period plus API headroom', source: 'OpenShell#3424: deletion deadline = terminationGracePeriodSeconds + 30 s API headroom' },
  supervisorFullGrace: {
    id: 'stop/supervisor-deleted-with-full-grace',
    title: "the supervisor Pod's deletion carries its full grace period: a terminating state, deletionGracePeriodSeconds not shorter than its terminationGracePeriodSeconds",
    source: 'OpenShell#3424: SUPERVISOR_TERMINATION_GRACE_PERIOD_SECONDS is the time the supervisor has to clean up; a force deletion (gracePeriodSeconds: 0) SIGKILLs it at once',
  },
  secretsAfterWorkload: {
    id: 'stop/secrets-after-workload-gone',
    title: "generation Secrets are deleted only after the Pod that mounts them is gone or going: the workload's after the workload Pod is gone, the supervisor's not before the supervisor's deletion",
    source: 'OpenShell#3424: generation Secret cleanup happens after suspension completes, separately from it',
  },
  secretsGoneOnReturn: {
    id: 'stop/generation-secrets-gone-on-return',
    title: "none of the stopped generation's Secrets remains when the stop call returns",
    source: 'OpenShell#3424 stop step 5: the generation Secrets are deleted by exact name before the completion patch (credentials must not outlive the generation; garbage collection through the Pods only races the return)',
  },
  returnsWhenStopped: {
    id: 'stop/returns-after-workload-gone-and-suspended',
    title: 'the stop call returns only after the workload Pod is gone and the Sandbox reports suspended',
    source: 'OpenShell#3424 stop step 4: complete when the workload Pod is gone and (v1beta1) a current-generation Suspended=True',
  },
} satisfies Record<string, InvariantInfo>;

function deadlineVerdict(facts: Facts, e: StopEpisode, headroom: number): Verdict {
  const info = STOP_INVARIANTS.supervisorWithinDeadline;
  const requested = e.supervisor?.deleteRequested;
  const gone = e.supervisor?.gone;
  if (!requested || !gone) return inconclusive(info, 'did not observe both the supervisor deletion request and its disappearance', [requested, gone].filter((x): x is ObjectEntry => !!x));
  const grace = requested.deletionGracePeriodSeconds ?? 30;
  const took = (gone.t - requested.t) / 1000;
  const deadline = grace + headroom;
  const gap = gapVerdict(facts, info, ['pods'], requested.t, gone.t, 'the supervisor deletion', [requested, gone]);
  if (gap) return gap;
  if (took <= deadline) return pass(info, `supervisor gone ${took.toFixed(1)} s after its deletion was requested (deadline ${deadline} s = grace ${grace} s + headroom ${headroom} s)`, [requested, gone]);
  return violation(info, `supervisor Pod ${e.supervisor!.name} took ${took.toFixed(1)} s to go; deadline ${deadline} s = grace ${grace} s + headroom ${headroom} s`, [requested, gone], { pair: [requested, gone] });
}

/**
 * The workload's bootstrap Secret (os-sandbox-*) must outlive the workload Pod. The supervisor's
 * (os-supervisor-*) is owned by the supervisor Pod, so garbage collection may take it as soon
 * as the supervisor's deletion starts — but not before.
 */
function secretOrderVerdicts(facts: Facts, e: StopEpisode): Verdict[] {
  const info = STOP_INVARIANTS.secretsAfterWorkload;
  const inThisStop = e.secrets.filter((s) => s.gone && !happenedBefore(s.gone, e.sandbox.seen));
  if (inThisStop.length === 0) return [inconclusive(info, 'no generation Secret deletion was observed during this stop')];
  return inThisStop.map((s) =>
    s.name.startsWith('os-supervisor-')
      ? orderVerdict(facts, info, { entry: e.supervisor?.deleteRequested, what: `${objectLabel(e.supervisor, 'the supervisor Pod')} deletion requested` }, { entry: s.gone, what: `Secret ${s.name} deleted` }, ['pods', 'secrets'])
      : orderVerdict(facts, info, { entry: e.workload?.gone, what: `${objectLabel(e.workload, 'the workload Pod')} gone` }, { entry: s.gone, what: `Secret ${s.name} deleted` }, ['pods', 'secrets']),
  );
}

function secretsGoneVerdict(facts: Facts, e: StopEpisode): Verdict {
  const info = STOP_INVARIANTS.secretsGoneOnReturn;
  if (e.generationSecrets.length === 0) return inconclusive(info, `no Secret of sandbox ${e.sandbox.sandboxId ?? e.sandbox.name} was observed before the stop`, [e.suspension]);
  const awaited = e.generationSecrets.map((s) => ({ entry: s.gone, what: `Secret ${s.name} deleted` }));
  return returnedAfterVerdict(facts, info, e.call, 'stop', awaited, ['secrets'], e.suspension);
}

function returnsWhenStoppedVerdict(facts: Facts, e: StopEpisode): Verdict {
  const info = STOP_INVARIANTS.returnsWhenStopped;
  if (!e.workload) return inconclusive(info, 'did not observe the workload Pod of the stopped generation', [e.suspension]);
  const awaited = [
    { entry: e.workload.gone, what: `${objectLabel(e.workload, 'the workload Pod')} gone` },
    { entry: e.reportedSuspended, what: `Sandbox ${e.sandbox.name} reporting suspended` },
  ];
  return returnedAfterVerdict(facts, info, e.call, 'stop', awaited, ['pods', 'sandboxes'], e.suspension);
}

const supervisorGone = (e: StopEpisode) => ({ entry: e.supervisor?.gone, what: `${objectLabel(e.supervisor, 'the supervisor Pod')} gone` });
const I = STOP_INVARIANTS;

const stopRules = defineFamily<StopEpisode>({
  prefix: 'stop/',
  episodes: stopEpisodes,
  noEpisode: 'no stop was observed (no Sandbox spec turned suspended while recording)',
  rules: [
    rule(I.supervisorBeforeWorkload, (e, facts) => [
      // A workload Pod that had finished by itself is deleted at once: its disappearance is the request.
      orderVerdict(facts, I.supervisorBeforeWorkload, supervisorGone(e), { entry: e.workload?.deleteRequested ?? e.workload?.gone, what: `${objectLabel(e.workload, 'the workload Pod')} deletion requested` }, ['pods']),
    ]),
    rule(I.suspendAfterSupervisor, (e, facts) => [
      orderVerdict(facts, I.suspendAfterSupervisor, supervisorGone(e), { entry: e.suspension, what: `Sandbox ${e.sandbox.name} suspended (${suspensionField(e.suspension.sandbox!.apiVersion)})` }, ['pods', 'sandboxes']),
    ]),
    rule(I.supervisorExitsClean, (e, facts) => [cleanExitVerdict(facts, I.supervisorExitsClean, e.supervisor, 'supervisor', { entry: e.suspension, what: 'Sandbox suspended' }, e.workload)]),
    rule(I.supervisorWithinDeadline, (e, facts, settings) => [deadlineVerdict(facts, e, settings.apiHeadroomSeconds)]),
    rule(I.supervisorFullGrace, (e, facts) => [fullGraceVerdict(facts, I.supervisorFullGrace, e.supervisor, 'the supervisor Pod')]),
    rule(I.secretsAfterWorkload, (e, facts) => secretOrderVerdicts(facts, e)),
    rule(I.secretsGoneOnReturn, (e, facts) => [secretsGoneVerdict(facts, e)]),
    rule(I.returnsWhenStopped, (e, facts) => [returnsWhenStoppedVerdict(facts, e)]),
  ],
});

/** The family as registered: the rules over its episodes, and the rule over its repeated calls (repeated-stop.ts). */
export const stopFamily = joinFamilies(stopRules, repeatedStopFamily);
