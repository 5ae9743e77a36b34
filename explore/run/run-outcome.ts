/**
 * What one exploration run records of itself, beside what the fixtures record (the timeline,
 * the verdicts of every invariant family): each call and its answer, what the lifecycle model
 * and the liveness checks found, and how each sandbox ended. The explore spec attaches it to the
 * test as `explore-outcome.json`; the search reads it back from Playwright's JSON report.
 */
import type { ModelState } from '../program/lifecycle-model.ts';
import type { Operation } from '../program/program.ts';

export const OUTCOME_ATTACHMENT = 'explore-outcome.json';

export interface CallRecord {
  step: number;
  op: Operation;
  sandbox?: string;
  ok: boolean;
  /** The phase answered, `deleted=…`, or the error code. */
  answer: string;
  ms: number;
}

/** One failed check of the run's own: `model/<op>-answer`, `model/settled-state`, `liveness/<op>-deadline`, `liveness/convergence`. */
export interface Finding {
  id: string;
  message: string;
}

export interface RunOutcome {
  calls: CallRecord[];
  findings: Finding[];
  /** Each sandbox after the convergence window, by name: what `get` answered (`absent` for NOT_FOUND). */
  endStates: Record<string, ModelState | string>;
}
