/**
 * A run's failure signature: what a finding is grouped by and what a shrink candidate must
 * reproduce. The invariants that failed (every family judges every run), sorted; where none
 * failed, the run's own checks (the lifecycle model, liveness: the stage a call was stuck in, the
 * convergence window); where those held, the differential check against the reference run.
 * Undefined: the run passed.
 */
import type { RunResult } from '../run/run-batch.ts';
import { objectChurn } from './object-churn.ts';

export function failedInvariants(result: RunResult): string[] {
  return [...new Set(result.verdicts.filter((v) => v.status === 'FAIL' && !v.expectedByTest).map((v) => v.id))].sort();
}

export function signatureOf(result: RunResult, reference?: RunResult): string | undefined {
  if (result.status === 'skipped') return undefined;
  const invariants = failedInvariants(result);
  if (invariants.length) return invariants.join('+');
  const own = [...new Set(result.outcome?.findings.map((f) => f.id) ?? [])].sort();
  if (own.length) return own.join('+');
  if (result.status !== 'passed') return harnessFailure(result);
  const differences = reference ? differential(result, reference) : [];
  return differences.length ? differences.join('+') : undefined;
}

/** A run that failed outside the checks above: the convergence window of the schedule fixture, the test's own time, the harness. */
function harnessFailure(result: RunResult): string {
  const text = result.errors.join('\n');
  if (/did not settle within/.test(text)) return 'liveness/convergence';
  if (result.status === 'timedOut') return 'liveness/test-timeout';
  if (result.status === 'missing') return 'harness/not-run';
  return 'harness/error';
}

/**
 * Where a run answered every call as the reference run of its program did (the faults changed
 * nothing a caller saw), it must also end the same and make and remove as many objects of each
 * role: `differential/end-state`, `differential/<role>-created`, `differential/<role>-deleted`.
 */
export function differential(result: RunResult, reference: RunResult): string[] {
  if (!result.outcome || !reference.outcome || !result.timeline || !reference.timeline) return [];
  const answers = (r: RunResult) => JSON.stringify(r.outcome!.calls.map((c) => [c.step, c.op, c.sandbox, c.answer]));
  if (answers(result) !== answers(reference)) return [];
  const found: string[] = [];
  if (JSON.stringify(result.outcome.endStates) !== JSON.stringify(reference.outcome.endStates)) found.push('differential/end-state');
  const [mine, theirs] = [objectChurn(result.timeline), objectChurn(reference.timeline)];
  for (const role of [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].sort()) {
    for (const what of ['created', 'deleted'] as const) if ((mine[role]?.[what] ?? 0) !== (theirs[role]?.[what] ?? 0)) found.push(`differential/${role}-${what}`);
  }
  return found;
}
