/**
 * The stop family: the ordering OpenShell#3421 got wrong and #3424 fixed, judged over every
 * stop in the timeline. The supervisor cleans up through the workload's boundary, so it must be
 * gone before the workload is deleted or suspended, exit cleanly, within its deadline; the
 * generation Secrets go only after the Pods that mount them.
 */
import { suspensionField } from '../../../../driver/agent-sandbox-api.ts';
import { gapsBetween, happenedBefore, type Facts } from '../../../derive/histories.ts';
import type { ObjectEntry } from '../../../model.ts';
import { defineFamily, type Rule } from '../../family.ts';
import { orderVerdict, slice } from '../../order.ts';
import { verdict, type InvariantInfo, type Verdict } from '../../verdict.ts';
import { label, stopEpisodes, type StopEpisode } from './stop-episodes.ts';

const SOURCE = 'OpenShell#3421, fixed by #3424: the supervisor cleans up through the workload boundary, so it must go first';

/** The stop-ordering invariants, with stable IDs for reports, `--list` and CI summaries. */
export const STOP_INVARIANTS = {
  supervisorBeforeWorkload: { id: 'stop/supervisor-gone-before-workload-delete', title: "the supervisor Pod is gone before the workload Pod's deletion is requested", source: SOURCE },
  suspendAfterSupervisor: { id: 'stop/suspend-after-supervisor-gone', title: 'the suspension appears on the Sandbox only after the supervisor Pod is gone', source: SOURCE },
  supervisorExitsClean: { id: 'stop/supervisor-exit-clean', title: 'the supervisor container exits 0 (cleaned up), not 137 (SIGKILLed at its grace period)', source: SOURCE },
  supervisorWithinDeadline: { id: 'stop/supervisor-gone-within-deadline', title: 'the supervisor Pod is gone within its grace period plus API headroom', source: 'OpenShell#3424: deletion deadline = terminationGracePeriodSeconds + 30 s API headroom' },
  secretsAfterWorkload: {
    id: 'stop/secrets-after-workload-gone',
    title: "generation Secrets are deleted only after the Pod that mounts them is gone or going: the workload's after the workload Pod is gone, the supervisor's not before the supervisor's deletion",
    source: 'OpenShell#3424: generation Secret cleanup happens after suspension completes, separately from it',
  },
} satisfies Record<string, InvariantInfo>;

const rule = (info: InvariantInfo, judge: Rule<StopEpisode>['judge']): Rule<StopEpisode> => ({ ...info, judge });

const supervisorGone = (e: StopEpisode) => ({ entry: e.supervisor?.gone, what: `${label(e.supervisor, 'the supervisor Pod')} gone` });

function supervisorExitVerdict(facts: Facts, e: StopEpisode): Verdict {
  const info = STOP_INVARIANTS.supervisorExitsClean;
  const exit = e.supervisor?.exits.find((x) => x.container === 'supervisor') ?? e.supervisor?.exits[0];
  if (!e.supervisor || !exit) return verdict(info, 'INCONCLUSIVE', `INCONCLUSIVE: did not observe the supervisor container's exit${e.supervisor ? ` (Pod ${e.supervisor.name})` : ''}`, []);
  if (exit.exitCode === 0) return verdict(info, 'PASS', `supervisor container exited 0 (${exit.reason ?? 'Completed'})`, [exit.entry]);
  const killed = exit.exitCode === 137 ? ' — SIGKILLed at the end of its grace period: it could not clean up through the boundary' : '';
  return verdict(info, 'FAIL', `${info.id}: ${info.title}\n  violated: supervisor Pod ${e.supervisor.name} container exited ${exit.exitCode} (${exit.reason ?? 'Error'})${killed}\n  why it matters: ${info.source}\n  timeline:\n${slice(facts, [e.suspension, exit.entry], new Map([[exit.entry.seq, `exit ${exit.exitCode}`], [e.suspension.seq, 'Sandbox suspended']]))}`, [exit.entry]);
}

function deadlineVerdict(facts: Facts, e: StopEpisode, headroom: number): Verdict {
  const info = STOP_INVARIANTS.supervisorWithinDeadline;
  const requested = e.supervisor?.deleteRequested;
  const gone = e.supervisor?.gone;
  if (!requested || !gone) return verdict(info, 'INCONCLUSIVE', 'INCONCLUSIVE: did not observe both the supervisor deletion request and its disappearance', [requested, gone].filter((x): x is ObjectEntry => !!x));
  const grace = requested.deletionGracePeriodSeconds ?? 30;
  const took = (gone.t - requested.t) / 1000;
  const deadline = grace + headroom;
  if (gapsBetween(facts, ['pods'], requested.t, gone.t).length) return verdict(info, 'INCONCLUSIVE', 'INCONCLUSIVE: a watch gap on pods overlaps the supervisor deletion', [requested, gone]);
  if (took <= deadline) return verdict(info, 'PASS', `supervisor gone ${took.toFixed(1)} s after its deletion was requested (deadline ${deadline} s = grace ${grace} s + headroom ${headroom} s)`, [requested, gone]);
  return verdict(info, 'FAIL', `${info.id}: ${info.title}\n  violated: supervisor Pod ${e.supervisor!.name} took ${took.toFixed(1)} s to go; deadline ${deadline} s = grace ${grace} s + headroom ${headroom} s`, [requested, gone], [requested, gone]);
}

/**
 * The workload's bootstrap Secret (os-sandbox-*) must outlive the workload Pod. The supervisor's
 * (os-supervisor-*) is owned by the supervisor Pod, so garbage collection may take it as soon
 * as the supervisor's deletion starts — but not before.
 */
function secretVerdicts(facts: Facts, e: StopEpisode): Verdict[] {
  const info = STOP_INVARIANTS.secretsAfterWorkload;
  const inThisStop = e.secrets.filter((s) => s.gone && !happenedBefore(s.gone, e.sandbox.seen));
  if (inThisStop.length === 0) return [verdict(info, 'INCONCLUSIVE', 'INCONCLUSIVE: no generation Secret deletion was observed during this stop', [])];
  return inThisStop.map((s) =>
    s.name.startsWith('os-supervisor-')
      ? orderVerdict(facts, info, { entry: e.supervisor?.deleteRequested, what: `${label(e.supervisor, 'the supervisor Pod')} deletion requested` }, { entry: s.gone, what: `Secret ${s.name} deleted` }, ['pods', 'secrets'])
      : orderVerdict(facts, info, { entry: e.workload?.gone, what: `${label(e.workload, 'the workload Pod')} gone` }, { entry: s.gone, what: `Secret ${s.name} deleted` }, ['pods', 'secrets']),
  );
}

export const stopFamily = defineFamily<StopEpisode>({
  prefix: 'stop/',
  episodes: stopEpisodes,
  noEpisode: 'no stop was observed (no Sandbox spec turned suspended while recording)',
  rules: [
    rule(STOP_INVARIANTS.supervisorBeforeWorkload, (e, facts) => [
      orderVerdict(facts, STOP_INVARIANTS.supervisorBeforeWorkload, supervisorGone(e), { entry: e.workload?.deleteRequested, what: `${label(e.workload, 'the workload Pod')} deletion requested` }, ['pods']),
    ]),
    rule(STOP_INVARIANTS.suspendAfterSupervisor, (e, facts) => [
      orderVerdict(facts, STOP_INVARIANTS.suspendAfterSupervisor, supervisorGone(e), { entry: e.suspension, what: `Sandbox ${e.sandbox.name} suspended (${suspensionField(e.suspension.sandbox!.apiVersion)})` }, ['pods', 'sandboxes']),
    ]),
    rule(STOP_INVARIANTS.supervisorExitsClean, (e, facts) => [supervisorExitVerdict(facts, e)]),
    rule(STOP_INVARIANTS.supervisorWithinDeadline, (e, facts, settings) => [deadlineVerdict(facts, e, settings.apiHeadroomSeconds)]),
    rule(STOP_INVARIANTS.secretsAfterWorkload, (e, facts) => secretVerdicts(facts, e)),
  ],
});
