/**
 * Repeated and no-op lifecycle calls: a call the contract says must change nothing — a stop of
 * a stopped sandbox, a delete of a deleted one, a start of a running one — judged from its step:
 * what it answered (its end mark, or the code its failed mark carries) and what of its sandbox
 * was created, deleted or moved inside it. Which sandbox a step's call was about comes from the
 * calls its end mark records (the gateway's routing); the families decide which call steps are
 * repeated ones (families/<family>/repeated-*.ts).
 */
import { KIND } from '../derive/format.ts';
import { gapsBetween, histories, type Facts, type ObjectHistory } from '../derive/histories.ts';
import { lifecycleSteps, markName, placeInStep, sandboxesCalled, type LifecycleVerb, type StepWindow } from '../derive/steps.ts';
import type { ObjectEntry, TimelineEntry } from '../model.ts';
import { slice } from './order.ts';
import { inconclusive, notSeen, pass, violation, type InvariantInfo, type Verdict } from './verdict.ts';

/** One sandbox a step's call was about; `sandboxId` undefined when the recording cannot tell which. */
export interface CallStep {
  window: StepWindow;
  verb: LifecycleVerb;
  sandboxId?: string;
}

/**
 * Every step that sent a `verb` call, once per sandbox it named. A mark that records no calls
 * (recorded before marks carried them) stands for the recording's one sandbox when it has one;
 * with several, which one is unknown.
 */
export function callSteps(facts: Facts, verb: LifecycleVerb): CallStep[] {
  const sandboxes = [...new Set(histories(facts, { resource: 'sandboxes' }).flatMap((h) => (h.sandboxId ? [h.sandboxId] : [])))];
  return lifecycleSteps(facts, verb).flatMap((window): CallStep[] => {
    const called = sandboxesCalled(window, verb);
    if (called) return called.map((sandboxId) => ({ window, verb, sandboxId }));
    return [{ window, verb, sandboxId: sandboxes.length === 1 ? sandboxes[0] : undefined }];
  });
}

/** A call step that repeats a call which returned (`previous`), or one the rule cannot judge (`unjudged`: why). */
export type RepeatedCall = { step: CallStep; previous: CallStep } | { step: CallStep; unjudged: string };

const VERBS: LifecycleVerb[] = ['create', 'start', 'stop', 'delete'];

/**
 * The `verb` call steps that repeat a call which returned: the last lifecycle call about the same
 * sandbox begun before each was one of `after` and ended without error before it began. One
 * whose sandbox cannot be told, or that began while another call about the sandbox of `after`'s
 * verbs was still running (racing it: `racing` says what the rule makes of that), is unjudged.
 */
export function repeatedCalls(facts: Facts, verb: LifecycleVerb, after: LifecycleVerb[], racing: string): RepeatedCall[] {
  const steps = VERBS.flatMap((v) => callSteps(facts, v)).sort((a, b) => a.window.begin.seq - b.window.begin.seq);
  return steps.flatMap((step): RepeatedCall[] => {
    if (step.verb !== verb) return [];
    if (!step.sandboxId) return [{ step, unjudged: `cannot tell which sandbox its ${verb} call was about (its end mark records no calls, and the recording has several sandboxes)` }];
    const begin = step.window.begin;
    const before = steps.filter((c) => c.sandboxId === step.sandboxId && c.window.begin.seq < begin.seq);
    const running = before.find((c) => after.includes(c.verb) && !(c.window.end && c.window.end.seq < begin.seq));
    if (running) return [{ step, unjudged: `it races step "${running.window.title}", a ${running.verb} of the same sandbox: ${racing}` }];
    const previous = before.at(-1);
    return previous && after.includes(previous.verb) && previous.window.end?.status === 'end' ? [{ step, previous }] : [];
  });
}

/** The objects of a sandbox recorded (its Sandbox, Pods and Secrets). */
export function objectsOf(facts: Facts, sandboxId: string): ObjectHistory[] {
  return facts.objects.filter((o) => o.sandboxId === sandboxId);
}

/** A change the call must not have made: where it is, and what it is in words. */
export interface Change {
  entry: ObjectEntry;
  what: string;
}

/** Every object of the sandbox created while recording (its ADDED event). */
export function creations(objects: ObjectHistory[]): Change[] {
  return objects.flatMap((o) => (o.seen.type === 'ADDED' ? [{ entry: o.seen, what: `${KIND[o.resource]} ${o.name} created` }] : []));
}

/** Every deletion of the sandbox's objects: the request, or the disappearance of one deleted at once. */
export function deletions(objects: ObjectHistory[]): Change[] {
  return objects.flatMap((o) => {
    const entry = o.deleteRequested ?? o.gone;
    return entry ? [{ entry, what: `${KIND[o.resource]} ${o.name} ${o.deleteRequested ? 'deletion requested' : 'deleted'}` }] : [];
  });
}

/**
 * What a call answered: `OK`, its error's code, or undefined while it had not returned. Its own
 * answer where the mark records one (of calls made at once, a failed step carries only the error
 * of one of them); else the step's.
 */
function answerOf(step: CallStep): string | undefined {
  const { window } = step;
  if (!window.end) return undefined;
  const own = window.end.calls?.find((c) => c.operation === step.verb && c.sandboxId === step.sandboxId && c.answer !== undefined)?.answer;
  if (own !== undefined) return own;
  return window.end.status === 'failed' ? (window.end.errorCode ?? 'an error without a code') : 'OK';
}

/** The NOT SEEN verdict of a call step this rule cannot judge, saying why. */
export function notJudged(info: InvariantInfo, step: CallStep, why: string): Verdict {
  return notSeen(info, `step "${step.window.title}": ${why}`, [step.window.begin]);
}

/** A rule over repeated calls: NOT SEEN for a call it cannot judge, else `judge`'s verdict. */
export function judgedRepeated(info: InvariantInfo, judge: (call: Extract<RepeatedCall, { previous: CallStep }>, facts: Facts) => Verdict) {
  return (call: RepeatedCall, facts: Facts): Verdict[] => ['unjudged' in call ? notJudged(info, call.step, call.unjudged) : judge(call, facts)];
}

/**
 * PASS when the call answered one of `answers` (`OK` for success) and none of `changes` was
 * committed inside its step, with the recording complete over it (no watch gap, caught up with
 * the cluster after its end); FAIL on another answer or on a change inside; INCONCLUSIVE when the
 * call had not returned, a change cannot be placed against its marks, or the recording is not
 * complete over it. `repeated` says why the call is a repeated one (it opens every message).
 */
export function unchangedVerdict(facts: Facts, info: InvariantInfo, step: CallStep, repeated: string, answers: string[], changes: Change[], kinds: string): Verdict {
  const { window } = step;
  const call = `step "${window.title}" (${repeated})`;
  const answer = answerOf(step);
  if (answer === undefined) return inconclusive(info, `${call} had not returned when the recording ended`, [window.begin]);
  const marks = new Map<number, string>([[window.begin.seq, `${step.verb} begins`]]);
  if (window.end) marks.set(window.end.seq, `${step.verb} returns: ${answer}`);
  const stepMarks: TimelineEntry[] = window.end ? [window.begin, window.end] : [window.begin];
  if (!answers.includes(answer)) {
    const error = window.end?.error && window.end.errorCode === answer ? ` (${window.end.error})` : '';
    return violation(info, `${call} answered ${answer}${error}; the contract's answers: ${answers.join(' or ')}`, stepMarks, { timeline: slice(facts, stepMarks, marks) });
  }
  const inside = changes.filter((c) => placeInStep(c.entry, window) === 'inside');
  if (inside.length) {
    for (const c of inside) marks.set(c.entry.seq, c.what);
    const evidence = [...stepMarks, ...inside.map((c) => c.entry)];
    return violation(info, `${call} answered ${answer} but ${inside.map((c) => `${c.what} (rv ${c.entry.resourceVersion})`).join('; ')} inside it`, evidence, {
      timeline: slice(facts, evidence, marks),
      pair: [window.begin, inside[0].entry],
    });
  }
  const unplaced = changes.filter((c) => placeInStep(c.entry, window) === 'unknown');
  if (unplaced.length) return inconclusive(info, `${call}: ${unplaced.map((c) => c.what).join('; ')} cannot be placed against its marks (no cluster revision on them)`, [...stepMarks, ...unplaced.map((c) => c.entry)]);
  const end = window.end!;
  const gaps = gapsBetween(facts, ['pods', 'sandboxes', 'secrets'], window.begin.t, end.t);
  if (gaps.length) return inconclusive(info, `a watch gap on ${[...new Set(gaps.map((g) => g.resource))].join(', ')} (${gaps.map((g) => g.reason).join('; ')}) overlaps ${call}: ${kinds} may have happened unseen`, stepMarks);
  const caughtUp = facts.timeline.caughtUp;
  if (!caughtUp || caughtUp.afterSeq <= end.seq) return inconclusive(info, `the recording was not brought up to date with the cluster after ${markName(end)}: ${kinds} committed inside ${call} may not have arrived`, stepMarks);
  return pass(info, `${call} answered ${answer}; no ${kinds} inside it`, stepMarks);
}
