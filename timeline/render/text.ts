import type { Verdict } from '../evaluate/verdict.ts';

/**
 * Verdicts as a failure message reads them: the ones that did not pass, each with its slice of
 * the timeline; or, when all passed, one line per verdict.
 */
export function verdictsAsText(verdicts: readonly Verdict[]): string {
  const bad = verdicts.filter((v) => v.status !== 'PASS');
  if (bad.length) return bad.map((v) => `${v.status === 'INCONCLUSIVE' ? 'INCONCLUSIVE ' : 'FAIL '}${v.message}`).join('\n\n');
  return verdicts.map((v) => `PASS ${v.id}: ${v.message}`).join('\n');
}
