import type { ObjectEntry } from '../model.ts';

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
  /** One-look explanation, quoting the relevant slice of the timeline. */
  message: string;
  /** `seq` numbers of the entries the verdict rests on. */
  evidence: number[];
  /** For ordering rules: the pair that should have been [earlier, later]; highlighted when violated. */
  pair?: [number, number];
}

/** What rules need beyond the timeline: the driver settings the lane ran with. */
export interface EvaluationSettings {
  /** Seconds of API headroom the driver adds to grace periods in its deadlines. */
  apiHeadroomSeconds: number;
}

/** A verdict resting on these entries (and, for ordering rules, on this pair). */
export function verdict(info: InvariantInfo, status: VerdictStatus, message: string, evidence: ObjectEntry[], pair?: [ObjectEntry, ObjectEntry]): Verdict {
  return { ...info, status, message, evidence: evidence.map((e) => e.seq), pair: pair ? [pair[0].seq, pair[1].seq] : undefined };
}
