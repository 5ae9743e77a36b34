import { verdictWord, type Verdict } from '../evaluate/verdict.ts';

/**
 * Verdicts as a failure message reads them: the ones that did not pass, each as its word and
 * its message (which starts with the rule's or assertion's id) with its slice of the timeline;
 * or, when all passed, one line per verdict.
 */
export function verdictsAsText(verdicts: readonly Verdict[]): string {
  const bad = verdicts.filter((v) => v.status !== 'PASS');
  if (bad.length) return bad.map((v) => `${verdictWord(v)} ${v.message}`).join('\n\n');
  return verdicts.map((v) => `PASS ${v.id}: ${v.message}`).join('\n');
}
