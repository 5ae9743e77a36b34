/**
 * What a scenario asserts over its timeline, as pure evaluations: a registered invariant holds,
 * one fact happens before another, never, a number of times, or within a time. The Playwright
 * matchers (fixtures/matchers.ts) settle and format these; the judgement is here.
 */
import type { Fact } from '../derive/facts.ts';
import { gapsBetween, happenedBefore, type Facts } from '../derive/histories.ts';
import type { ObjectEntry } from '../model.ts';
import { orderVerdict } from './order.ts';
import { evaluateInvariant, findInvariant } from './registry.ts';
import type { EvaluationSettings, Verdict } from './verdict.ts';

export interface Assertion {
  evaluate(facts: Facts, settings: EvaluationSettings): Verdict[];
  /**
   * Whether waiting can turn an INCONCLUSIVE verdict into a verdict: true when it may lack
   * events still in flight, false when only a watch gap (which waiting cannot close) makes it so.
   */
  settles: boolean;
}

const ANY_RESOURCE = ['pods', 'sandboxes', 'secrets'] as const;
const scenario = (id: string, title: string) => ({ id, title, source: 'scenario assertion' });
const inCommitOrder = (entries: ObjectEntry[]) => [...entries].sort((x, y) => (happenedBefore(x, y) ? -1 : 1));

/** A registered invariant (see `npm run lane -- --list`) holds over every episode in the timeline. */
export function holds(id: string): Assertion {
  findInvariant(id);
  return { settles: true, evaluate: (facts, settings) => evaluateInvariant(id, facts, settings) };
}

/** Every occurrence of `a` happened before every occurrence of `b`. */
export function happensBefore(a: Fact, b: Fact): Assertion {
  const info = scenario(`order/${a.what} before ${b.what}`, `${a.what} happens before ${b.what}`);
  return {
    settles: true,
    evaluate: (facts) => [orderVerdict(facts, info, { entry: inCommitOrder(a.find(facts)).at(-1), what: a.what }, { entry: inCommitOrder(b.find(facts))[0], what: b.what }, [...ANY_RESOURCE])],
  };
}

/** `fact` never happened; INCONCLUSIVE when the recording has gaps. */
export function neverHappens(fact: Fact): Assertion {
  const info = scenario(`never/${fact.what}`, `${fact.what} never happens`);
  return {
    settles: false,
    evaluate: (facts) => {
      const seen = fact.find(facts);
      const gaps = gapsBetween(facts, [...ANY_RESOURCE], 0, facts.timeline.entries.at(-1)?.t ?? 0);
      if (seen.length) return [{ ...info, status: 'FAIL', message: `${fact.what} happened ${seen.length} time(s): first at rv ${seen[0].resourceVersion}`, evidence: seen.map((e) => e.seq) }];
      if (gaps.length) return [{ ...info, status: 'INCONCLUSIVE', message: `INCONCLUSIVE: not seen, but the recording has watch gaps (${gaps.map((g) => g.reason).join('; ')})`, evidence: [] }];
      return [{ ...info, status: 'PASS', message: `${fact.what} never happened`, evidence: [] }];
    },
  };
}

/** `fact` happened exactly `count` times (INCONCLUSIVE while fewer were seen). */
export function happensTimes(fact: Fact, count: number): Assertion {
  const info = scenario(`count/${fact.what}`, `${fact.what} happens ${count} time(s)`);
  return {
    settles: true,
    evaluate: (facts) => {
      const seen = fact.find(facts);
      const evidence = seen.map((e) => e.seq);
      if (seen.length === count) return [{ ...info, status: 'PASS', message: `${fact.what}: ${count} time(s)`, evidence }];
      if (seen.length < count) return [{ ...info, status: 'INCONCLUSIVE', message: `INCONCLUSIVE: ${fact.what} seen ${seen.length} of ${count} time(s)`, evidence }];
      return [{ ...info, status: 'FAIL', message: `${fact.what} happened ${seen.length} times, expected ${count}`, evidence }];
    },
  };
}

/** `b` happened within `ms` after `a` (recorder time). */
export function happensWithin(a: Fact, b: Fact, ms: number): Assertion {
  const info = scenario(`within/${a.what} .. ${b.what}`, `${b.what} within ${ms} ms of ${a.what}`);
  return {
    settles: true,
    evaluate: (facts) => {
      const first = a.find(facts)[0];
      const then = b.find(facts)[0];
      if (!first || !then) return [{ ...info, status: 'INCONCLUSIVE', message: `INCONCLUSIVE: did not observe ${!first ? a.what : b.what}`, evidence: [] }];
      const took = then.t - first.t;
      return [{ ...info, status: took <= ms ? 'PASS' : 'FAIL', message: `${b.what} came ${Math.round(took)} ms after ${a.what} (limit ${ms} ms)`, evidence: [first.seq, then.seq], pair: [first.seq, then.seq] }];
    },
  };
}
