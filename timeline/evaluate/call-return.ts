/**
 * "The call returned only after these changes": judged from the end mark of the harness step
 * that made the call, ordered against the changes by the mark's cluster revision (watch events
 * may arrive after a call returned although committed before it).
 */
import { gapsBetween, type Facts } from '../derive/histories.ts';
import { markName, relativeToMark, type StepWindow } from '../derive/steps.ts';
import type { ObjectEntry, TimelineEntry, WatchedResource } from '../model.ts';
import { slice } from './order.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from './verdict.ts';

/** A change the call must have waited for: its entry once observed. */
export interface Awaited {
  entry?: ObjectEntry;
  what: string;
}

/**
 * PASS when every awaited change was committed before the call's step ended; FAIL when one was
 * committed after it, or never happened in the recording at all; INCONCLUSIVE when there is no
 * step, the call failed, the mark has no revision to order a late event by, or a watch gap from
 * `since` on could hide what is missing.
 */
export function returnedAfterVerdict(facts: Facts, info: InvariantInfo, call: StepWindow | undefined, callName: string, awaited: Awaited[], resources: WatchedResource[], since: TimelineEntry): Verdict {
  if (!call) return inconclusive(info, `no harness step stands for the ${callName} call (a step with the call's verb as a word of its title)`);
  const end = call.end;
  if (!end) return inconclusive(info, `the ${callName} call (step "${call.title}") had not returned when the recording ended`, [call.begin]);
  if (end.status === 'failed') return inconclusive(info, `the ${callName} call failed (${end.error ?? 'no error recorded'}): it returned nothing to judge`, [end]);
  const late: string[] = [];
  const unknown: string[] = [];
  const evidence: TimelineEntry[] = [end];
  let pair: [TimelineEntry, TimelineEntry] | undefined;
  for (const a of awaited) {
    if (!a.entry) {
      late.push(`${a.what}: not observed at all (the recording ends at +${((facts.timeline.entries.at(-1)?.t ?? 0) / 1000).toFixed(2)}s)`);
      continue;
    }
    evidence.push(a.entry);
    const order = relativeToMark(a.entry, end);
    if (order === 'after') {
      late.push(`${a.what} (rv ${a.entry.resourceVersion}) was committed after it (cluster revision ${end.clusterRevision} at the return)`);
      pair ??= [a.entry, end];
    } else if (order === 'unknown') unknown.push(`${a.what} arrived after the return and the step mark carries no cluster revision to order it by`);
  }
  const gaps = gapsBetween(facts, resources, since.t, facts.timeline.entries.at(-1)?.t ?? end.t);
  if ((late.length || unknown.length) && gaps.length) {
    return inconclusive(info, `a watch gap on ${[...new Set(gaps.map((g) => g.resource))].join(', ')} (${gaps.map((g) => g.reason).join('; ')}) overlaps the ${callName} call; cannot tell whether it returned after ${awaited.map((a) => a.what).join(' and ')}`, evidence);
  }
  if (late.length) {
    const marks = new Map<number, string>([[end.seq, `the ${callName} call returned`]]);
    for (const a of awaited) if (a.entry) marks.set(a.entry.seq, a.what);
    return violation(info, `the ${callName} call returned (${markName(end)}) before ${late.join('; ')}`, evidence, { timeline: slice(facts, [since, ...evidence], marks), pair });
  }
  if (unknown.length) return inconclusive(info, unknown.join('; '), evidence);
  return pass(info, `the ${callName} call returned (${markName(end)}) after ${awaited.map((a) => a.what).join(' and ')}`, evidence);
}
