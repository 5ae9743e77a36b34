/**
 * "a before b", the ordering judgement every family and the order matchers share, and the
 * slice of the timeline a failure message quotes.
 */
import { formatEntries } from '../derive/format.ts';
import { gapsBetween, happenedBefore, type Facts } from '../derive/histories.ts';
import type { ObjectEntry, TimelineEntry, WatchedResource } from '../model.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from './verdict.ts';

/** The timeline lines around the entries a verdict rests on, for the failure message. */
export function slice(facts: Facts, entries: TimelineEntry[], marks: Map<number, string> = new Map()): string {
  const seqs = entries.map((e) => e.seq);
  const from = Math.min(...seqs);
  const to = Math.max(...seqs);
  const relevant = new Set(facts.objects.filter((o) => o.sandboxId).map((o) => o.uid));
  const shown = facts.timeline.entries
    .filter((e) => e.seq >= from && e.seq <= to && (e.kind !== 'object' || relevant.has(e.uid)))
    .filter((e) => e.kind !== 'object' || e.type !== 'MODIFIED' || marks.has(e.seq) || e.deletionTimestamp !== undefined);
  // Long windows keep their first and last lines: the two ends of the rule are what matter.
  const kept = shown.length > 40 ? [...shown.slice(0, 20), ...shown.slice(-20)] : shown;
  const lines = formatEntries(kept).split('\n');
  return kept.map((e, i) => `    ${lines[i]}${marks.has(e.seq) ? `   <- ${marks.get(e.seq)}` : ''}`).join('\n');
}

/**
 * "a before b", judged from the timeline: PASS when seen in that order, FAIL when seen the other
 * way round, INCONCLUSIVE when either was not seen or a watch gap overlaps the window — never a
 * pass on evidence that was not seen.
 */
export function orderVerdict(
  facts: Facts,
  info: InvariantInfo,
  a: { entry?: ObjectEntry; what: string },
  b: { entry?: ObjectEntry; what: string },
  resources: WatchedResource[],
): Verdict {
  if (!a.entry || !b.entry) {
    const missing = [!a.entry ? a.what : undefined, !b.entry ? b.what : undefined].filter(Boolean).join(' and ');
    return inconclusive(info, `did not observe ${missing}; cannot tell whether ${a.what} came before ${b.what}`, [a.entry, b.entry].filter((e): e is ObjectEntry => !!e));
  }
  const [first, second] = happenedBefore(a.entry, b.entry) ? [a.entry, b.entry] : [b.entry, a.entry];
  const marks = new Map([[a.entry.seq, a.what], [b.entry.seq, b.what]]);
  const gap = gapVerdict(facts, info, resources, first.t, second.t, `the window between ${a.what} and ${b.what}`, [a.entry, b.entry], [a.entry, b.entry], marks);
  if (gap) return gap;
  if (happenedBefore(a.entry, b.entry)) return pass(info, `${a.what} came before ${b.what}`, [a.entry, b.entry], [a.entry, b.entry]);
  return violation(info, `${b.what} (rv ${b.entry.resourceVersion}) came BEFORE ${a.what} (rv ${a.entry.resourceVersion})`, [a.entry, b.entry], { timeline: slice(facts, [b.entry, a.entry], marks), pair: [a.entry, b.entry] });
}

/**
 * INCONCLUSIVE when a watch gap on these resources overlaps the stretch from `fromT` to `toT`
 * (what the rule rests on may have happened unseen in it); undefined when none does.
 */
export function gapVerdict(
  facts: Facts,
  info: InvariantInfo,
  resources: WatchedResource[],
  fromT: number,
  toT: number,
  window: string,
  evidence: TimelineEntry[],
  pair?: [TimelineEntry, TimelineEntry],
  marks: Map<number, string> = new Map(),
): Verdict | undefined {
  const gaps = gapsBetween(facts, resources, fromT, toT);
  if (!gaps.length) return undefined;
  const quoted = evidence.length ? `\n${slice(facts, evidence, marks)}` : '';
  return inconclusive(info, `a watch gap on ${[...new Set(gaps.map((g) => g.resource))].join(', ')} (${gaps.map((g) => g.reason).join('; ')}) overlaps ${window}${quoted}`, evidence, pair);
}
