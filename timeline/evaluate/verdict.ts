import type { TimelineEntry } from '../model.ts';

/** The outcome of one invariant over one timeline. */
export type VerdictStatus = 'PASS' | 'FAIL' | 'INCONCLUSIVE';

/** What names a rule in reports, `--list` and the CI job summary. */
export interface InvariantInfo {
  /** Stable ID, `<family>/<rule>`: `stop/supervisor-gone-before-workload-delete`. */
  id: string;
  title: string;
  /** Where the rule comes from, e.g. `OpenShell#3421 acceptance criterion`. */
  source: string;
}

export interface Verdict extends InvariantInfo {
  status: VerdictStatus;
  /** One-look explanation, quoting the relevant slice of the timeline; a FAIL or INCONCLUSIVE one starts with the rule's id. */
  message: string;
  /** `seq` numbers of the entries the verdict rests on. */
  evidence: number[];
  /** For ordering rules: the pair that should have been [earlier, later]; highlighted when violated. */
  pair?: [number, number];
  /**
   * NOT SEEN: INCONCLUSIVE only because the rule found nothing of its kind to judge (no stop, no
   * delete; or a call step it could not judge, which the message names): not an evaluation, so
   * violation rates leave it out.
   */
  noEpisode?: true;
  /**
   * A FAIL the test provoked on purpose and asserted (`expect(timeline).not.toHold(id)`): the
   * scenario denies what the rule needs. Reports show it apart, and violation rates leave it out.
   */
  expectedByTest?: true;
}

/** What rules need beyond the timeline: the driver settings the lane ran with. */
export interface EvaluationSettings {
  /** Seconds of API headroom the driver adds to grace periods in its deadlines. */
  apiHeadroomSeconds: number;
}

/** A verdict resting on these entries (and, for ordering rules, on this pair). */
export function verdict(info: InvariantInfo, status: VerdictStatus, message: string, evidence: TimelineEntry[], pair?: [TimelineEntry, TimelineEntry]): Verdict {
  return { ...info, status, message, evidence: evidence.map((e) => e.seq), pair: pair ? [pair[0].seq, pair[1].seq] : undefined };
}

/** PASS, saying what was seen. */
export function pass(info: InvariantInfo, message: string, evidence: TimelineEntry[], pair?: [TimelineEntry, TimelineEntry]): Verdict {
  return verdict(info, 'PASS', message, evidence, pair);
}

/** NOT SEEN: `<id>: what there was nothing of`, an INCONCLUSIVE verdict that is no evaluation. */
export function notSeen(info: InvariantInfo, why: string, evidence: TimelineEntry[] = []): Verdict {
  return { ...inconclusive(info, why, evidence), noEpisode: true };
}

/** The one word (or two) a report gives a verdict: PASS, FAIL, INCONCLUSIVE, or NOT SEEN when there was nothing to judge. */
export function verdictWord(v: Verdict): string {
  return v.noEpisode ? 'NOT SEEN' : v.status;
}

/** INCONCLUSIVE: `<id>: why the recording cannot tell`. */
export function inconclusive(info: InvariantInfo, why: string, evidence: TimelineEntry[] = [], pair?: [TimelineEntry, TimelineEntry]): Verdict {
  return verdict(info, 'INCONCLUSIVE', `${info.id}: ${why}`, evidence, pair);
}

/** The source of a scenario's own assertion (`toHappenTimes` …): it says why it matters itself. */
export const SCENARIO_ASSERTION = 'scenario assertion';

/**
 * FAIL, as every rule words it: `<id>: <title>`, what was violated, why it matters (the rule's
 * source; a scenario's own assertion has none but itself) and, when given, the slice of the
 * timeline around it.
 */
export function violation(info: InvariantInfo, violated: string, evidence: TimelineEntry[], options: { timeline?: string; pair?: [TimelineEntry, TimelineEntry] } = {}): Verdict {
  const quoted = options.timeline ? `\n  timeline:\n${options.timeline}` : '';
  const why = info.source === SCENARIO_ASSERTION ? '' : `\n  why it matters: ${info.source}`;
  return verdict(info, 'FAIL', `${info.id}: ${info.title}\n  violated: ${violated}${why}${quoted}`, evidence, options.pair);
}
