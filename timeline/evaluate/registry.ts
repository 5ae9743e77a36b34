/** The registered invariants, generic over the families: what `toHold(id)`, `--list` and the reports read. */
import type { Facts } from '../derive/histories.ts';
import { FAMILIES } from './families/index.ts';
import type { EvaluationSettings, InvariantInfo, Verdict } from './verdict.ts';

/** Every registered invariant, family by family. */
export const INVARIANTS: readonly InvariantInfo[] = FAMILIES.flatMap((f) => f.invariants);

/** A registered invariant by id; a clear error naming the known ones otherwise. */
export function findInvariant(id: string): InvariantInfo {
  const found = INVARIANTS.find((i) => i.id === id);
  if (!found) throw new Error(`unknown invariant "${id}"; known: ${INVARIANTS.map((i) => i.id).join(', ')}`);
  return found;
}

/** The registered invariants whose id starts with `prefix` (all of them without one). */
export function invariantsIn(prefix = ''): InvariantInfo[] {
  return INVARIANTS.filter((i) => i.id.startsWith(prefix));
}

/** Every family over the facts: the verdicts a report shows. */
export function evaluateFamilies(facts: Facts, settings: EvaluationSettings): Verdict[] {
  return FAMILIES.flatMap((f) => f.evaluate(facts, settings));
}

/** One registered invariant over the facts (one verdict per episode it judged). */
export function evaluateInvariant(id: string, facts: Facts, settings: EvaluationSettings): Verdict[] {
  const { id: known } = findInvariant(id);
  const family = FAMILIES.find((f) => f.invariants.some((i) => i.id === known))!;
  return family.evaluate(facts, settings).filter((v) => v.id === known);
}
