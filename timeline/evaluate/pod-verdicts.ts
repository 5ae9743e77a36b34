/**
 * Judgements of one Pod that several families make (the supervisor on stop and on delete): its
 * container exited cleanly, and its deletion carried the Pod's full grace period.
 */
import { objectLabel } from '../derive/format.ts';
import { happenedBefore, type Facts, type ObjectHistory } from '../derive/histories.ts';
import type { ObjectEntry } from '../model.ts';
import { gapVerdict, slice } from './order.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from './verdict.ts';

/**
 * The Pod's `container` (else its first) exited 0. Exit 137 is SIGKILL at the end of the grace
 * period: the process could not finish its clean-up. `around` is quoted with the exit. With
 * `boundary` (the workload Pod the supervisor cleans up through): when that Pod had already
 * finished by itself (Succeeded or Failed: its main process ended, OpenShell#3308) before the
 * supervisor's deletion was requested, there was no boundary left to clean up through, whatever
 * the order, and the exit code says nothing about the driver: the rule holds, saying why.
 */
export function cleanExitVerdict(facts: Facts, info: InvariantInfo, pod: ObjectHistory | undefined, container: string, around: { entry: ObjectEntry; what: string }, boundary?: ObjectHistory): Verdict {
  const asked = pod?.deleteRequested ?? pod?.gone;
  // By itself: finished before anyone asked for its deletion (a suspended workload finishes too, as the defect's doing).
  const byItself = (e: ObjectEntry) => !boundary?.deleteRequested || happenedBefore(e, boundary.deleteRequested);
  const ended = asked && boundary?.entries.find((e) => (e.phase === 'Succeeded' || e.phase === 'Failed') && happenedBefore(e, asked) && byItself(e));
  if (ended) return pass(info, `${objectLabel(boundary, 'the workload Pod')} had finished by itself (phase ${ended.phase}, rv ${ended.resourceVersion}) before ${objectLabel(pod, 'the Pod')}'s deletion: no boundary to clean up through, its exit code says nothing of the order`, [ended, asked]);
  const exit = pod?.exits.find((x) => x.container === container) ?? pod?.exits[0];
  // Never Ready before its deletion came (a stop or delete during the create): it had not reached
  // the boundary, so there was nothing to clean up through it — killed while still starting, a
  // program exits 143, whatever the order of the rest.
  const readyBefore = !!asked && pod!.entries.some((e) => e.ready && happenedBefore(e, asked));
  if (pod && asked && exit && exit.exitCode !== 0 && !readyBefore) {
    return pass(info, `${objectLabel(pod, 'the Pod')} was never Ready before its deletion was requested: it had not reached the boundary and had nothing to clean up through it; its exit code (${exit.exitCode}) says nothing of the order`, [asked, exit.entry]);
  }
  if (!pod || !exit) {
    // An observed exit code stands whatever gaps there were; an unobserved one may have been missed in one.
    const from = pod?.deleteRequested ?? pod?.seen;
    const gap = from && gapVerdict(facts, info, ['pods'], from.t, pod?.gone?.t ?? facts.timeline.entries.at(-1)?.t ?? from.t, `the end of ${objectLabel(pod, 'the Pod')}`, [from]);
    return gap || inconclusive(info, `did not observe the ${container} container's exit${pod ? ` (Pod ${pod.name})` : ''}`);
  }
  if (exit.exitCode === 0) return pass(info, `${container} container exited 0 (${exit.reason ?? 'Completed'})`, [exit.entry]);
  const killed = exit.exitCode === 137 ? ' — SIGKILLed at the end of its grace period: it could not clean up through the boundary' : '';
  const marks = new Map([[exit.entry.seq, `exit ${exit.exitCode}`], [around.entry.seq, around.what]]);
  return violation(info, `${objectLabel(pod, 'Pod')} container exited ${exit.exitCode} (${exit.reason ?? 'Error'})${killed}`, [exit.entry], { timeline: slice(facts, [around.entry, exit.entry], marks) });
}

/**
 * The Pod's deletion carried its full grace period: the first deletion request shows a
 * `deletionGracePeriodSeconds` no shorter than the Pod's `terminationGracePeriodSeconds`, and
 * the Pod went through a terminating state. A Pod that disappears without one was deleted at
 * once (`gracePeriodSeconds: 0`, a force deletion). A Pod that never ran, or had finished, has
 * nothing to stop: the API server deletes it at once whatever grace is asked.
 */
export function fullGraceVerdict(facts: Facts, info: InvariantInfo, pod: ObjectHistory | undefined, fallback: string): Verdict {
  const name = objectLabel(pod, fallback);
  const first = pod?.deleteRequested ?? pod?.gone;
  if (!pod || !first) return inconclusive(info, `did not observe the deletion of ${name}`);
  const before = pod.entries.filter((e) => e !== first && happenedBefore(e, first));
  const last = before.at(-1);
  const finished = last?.phase === 'Succeeded' || last?.phase === 'Failed';
  const ran = before.some((e) => e.phase === 'Running' || (e.containers ?? []).some((c) => c.state !== 'waiting'));
  if (!ran || finished) return pass(info, `${name} had ${finished ? 'finished' : 'never run'} when its deletion came: nothing to stop, no grace to carry`, [first]);
  const spec = [...pod.entries].reverse().find((e) => e.terminationGracePeriodSeconds !== undefined)?.terminationGracePeriodSeconds;
  if (spec === undefined) return inconclusive(info, `the recording carries no terminationGracePeriodSeconds for ${name}`, [first]);
  const marks = new Map([[first.seq, first.type === 'DELETED' ? 'gone' : 'deletion requested']]);
  const terminating = first.type !== 'DELETED';
  if (!terminating) {
    const gap = gapVerdict(facts, info, ['pods'], last?.t ?? first.t, first.t, `the deletion of ${name}`, [first]);
    if (gap) return gap;
    return violation(info, `${name} disappeared (rv ${first.resourceVersion}) without a terminating state — deleted at once, as by gracePeriodSeconds: 0, not with its ${spec} s grace period`, [first], {
      timeline: slice(facts, last ? [last, first] : [first], marks),
    });
  }
  const grace = first.deletionGracePeriodSeconds;
  if (grace === undefined) return inconclusive(info, `the deletion of ${name} carries no deletionGracePeriodSeconds`, [first]);
  if (grace < spec) {
    return violation(info, `${name} deletion requested with deletionGracePeriodSeconds ${grace} (rv ${first.resourceVersion}), shorter than its terminationGracePeriodSeconds ${spec}`, [first], { timeline: slice(facts, [first], marks) });
  }
  return pass(info, `${name} deletion requested with its full grace period (${grace} s of ${spec} s)`, [first]);
}
