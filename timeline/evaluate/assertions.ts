/**
 * What a scenario asserts over its timeline, as pure evaluations: a registered invariant holds,
 * one fact happens before another, happens (at all, never, a number of times) over the whole
 * recording or during one step, or within a time. The Playwright matchers (fixtures/matchers.ts)
 * settle and format these; the judgement is here. A scenario's own verdict reads like a rule's:
 * its message starts with what was asserted (`count/supervisor Pod created during "stop again":
 * supervisor Pod created happens 0 time(s) during step "stop again"`) and quotes the timeline.
 */
import type { Fact } from '../derive/facts.ts';
import { gapsBetween, happenedBefore, type Facts } from '../derive/histories.ts';
import { placeInStep, stepsTitled, stepWindows } from '../derive/steps.ts';
import type { ObjectEntry, TimelineEntry } from '../model.ts';
import { orderVerdict, slice } from './order.ts';
import { evaluateInvariant, findInvariant } from './registry.ts';
import { SCENARIO_ASSERTION, pass, verdict, violation, type EvaluationSettings, type InvariantInfo, type Verdict } from './verdict.ts';

export interface Assertion {
  evaluate(facts: Facts, settings: EvaluationSettings): Verdict[];
  /**
   * Whether waiting can turn an INCONCLUSIVE verdict into a verdict: true when it may lack
   * changes still to come (a Pod not yet gone), false when only a watch gap or a recording not
   * brought up to date (which waiting cannot mend) makes it so.
   */
  settles: boolean;
}

/** Where a fact is counted: the whole recording, or `during` the step of that title (every step of it, if it ran more than once). */
export interface StepScope {
  during?: string;
}

const ANY_RESOURCE = ['pods', 'sandboxes', 'secrets'] as const;
const scenario = (id: string, title: string): InvariantInfo => ({ id, title, source: SCENARIO_ASSERTION });
const inCommitOrder = (entries: ObjectEntry[]) => [...entries].sort((x, y) => (happenedBefore(x, y) ? -1 : 1));
const stepPhrase = (scope: StepScope) => (scope.during === undefined ? '' : ` during step "${scope.during}"`);
const stepSuffix = (scope: StepScope) => (scope.during === undefined ? '' : ` during "${scope.during}"`);

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

/**
 * A fact's occurrences in a scope, as far as the recording can tell: those inside it, those it
 * cannot place (a step mark without a cluster revision), why a count of them may be short (a
 * watch gap; the recording not brought up to date past the scope's end), and the timeline
 * around the scope for a message. `missing`: no step has the title.
 */
interface Counted {
  seen: ObjectEntry[];
  unplaced: ObjectEntry[];
  /** Why what was not seen may still have happened; undefined when the recording is complete over the scope. */
  incomplete?: string;
  excerpt: (marks: Map<number, string>) => string;
  missing?: string;
}

function count(fact: Fact, facts: Facts, scope: StepScope): Counted {
  const all = inCommitOrder(fact.find(facts));
  const last = facts.timeline.entries.at(-1);
  if (scope.during === undefined) {
    const gaps = gapsBetween(facts, [...ANY_RESOURCE], 0, last?.t ?? 0);
    return { seen: all, unplaced: [], incomplete: incompleteness(facts, gaps, -1), excerpt: (marks) => (all.length ? slice(facts, all, marks) : '') };
  }
  const windows = stepsTitled(facts, scope.during);
  if (windows.length === 0) {
    const titles = [...new Set(stepWindows(facts).map((w) => `"${w.title}"`))];
    return { seen: [], unplaced: [], excerpt: () => '', missing: `no step is titled "${scope.during}" in the recording (its steps: ${titles.join(', ') || 'none'})` };
  }
  const seen: ObjectEntry[] = [];
  const unplaced: ObjectEntry[] = [];
  for (const e of all) {
    const places = windows.map((w) => placeInStep(e, w));
    if (places.includes('inside')) seen.push(e);
    else if (places.includes('unknown')) unplaced.push(e);
  }
  const ends = windows.map((w) => w.end ?? last ?? w.begin);
  const gaps = windows.flatMap((w, i) => gapsBetween(facts, [...ANY_RESOURCE], w.begin.t, ends[i].t));
  const marks: TimelineEntry[] = windows.flatMap((w) => (w.end ? [w.begin, w.end] : [w.begin]));
  return {
    seen,
    unplaced,
    // An open step counts what it has done so far: a catch-up after its begin covers that.
    incomplete: incompleteness(facts, gaps, Math.max(...windows.map((w) => (w.end ?? w.begin).seq))),
    excerpt: (named) => slice(facts, [...marks, ...seen], named),
  };
}

/**
 * Why a recording cannot say a change did not happen up to entry `after`: a watch gap, or no
 * catch-up with the cluster after that entry (watch events trail the writes, so a change
 * committed just before may not have arrived); undefined when it can.
 */
function incompleteness(facts: Facts, gaps: ReturnType<typeof gapsBetween>, after: number): string | undefined {
  if (gaps.length) return `a watch gap on ${[...new Set(gaps.map((g) => g.resource))].join(', ')} (${gaps.map((g) => g.reason).join('; ')}) overlaps it`;
  const caughtUp = facts.timeline.caughtUp;
  if (!caughtUp || caughtUp.afterSeq <= after) return 'the recording was not brought up to date with the cluster after it (changes committed then may not have arrived)';
  return undefined;
}

/** The verdict when no step has the asserted title: nothing to count, INCONCLUSIVE naming the steps there are. */
function noSuchStep(info: InvariantInfo, counted: Counted): Verdict[] {
  return [verdict(info, 'INCONCLUSIVE', `${info.id}: ${info.title}\n  cannot tell: ${counted.missing}`, [])];
}

/** An INCONCLUSIVE verdict of a scenario assertion: what was asserted, why the recording cannot tell, and the timeline. */
function cannotTell(info: InvariantInfo, why: string, evidence: ObjectEntry[], excerpt: string): Verdict {
  return verdict(info, 'INCONCLUSIVE', `${info.id}: ${info.title}\n  cannot tell: ${why}${excerpt ? `\n  timeline:\n${excerpt}` : ''}`, evidence);
}

/** `at rv 812, rv 840`: where the occurrences are. */
const where = (seen: ObjectEntry[]) => seen.map((e) => `rv ${e.resourceVersion}`).join(', ');
const namedMarks = (seen: ObjectEntry[], what: string) => new Map(seen.map((e): [number, string] => [e.seq, what]));

/**
 * An assertion over a fact's occurrences in a scope: `seen` judges them when there are some,
 * `none` when the recording is complete over the scope and holds none; a change that cannot be
 * placed, or a recording that could have missed one, is INCONCLUSIVE.
 */
function occurrences(info: InvariantInfo, fact: Fact, scope: StepScope, judge: { seen: (seen: ObjectEntry[], excerpt: string) => Verdict; none: (excerpt: string) => Verdict }): Assertion {
  return {
    settles: false,
    evaluate: (facts) => {
      const counted = count(fact, facts, scope);
      if (counted.missing) return noSuchStep(info, counted);
      const { seen, unplaced, incomplete } = counted;
      const excerpt = counted.excerpt(namedMarks(seen, fact.what));
      if (seen.length) return [judge.seen(seen, excerpt)];
      if (unplaced.length) return [cannotTell(info, `${fact.what} at ${where(unplaced)} cannot be placed against the step's marks (no cluster revision on them)`, unplaced, excerpt)];
      if (incomplete) return [cannotTell(info, `not seen, but ${incomplete}`, [], excerpt)];
      return [judge.none(excerpt)];
    },
  };
}

/** `fact` happened at least once (in the scope). */
export function happens(fact: Fact, scope: StepScope = {}): Assertion {
  const info = scenario(`happens/${fact.what}${stepSuffix(scope)}`, `${fact.what} happens${stepPhrase(scope)}`);
  return occurrences(info, fact, scope, {
    seen: (seen) => pass(info, `${fact.what}${stepPhrase(scope)}: ${seen.length} time(s), at ${where(seen)}`, seen),
    none: (excerpt) => violation(info, `${fact.what} did not happen${stepPhrase(scope)}`, [], { timeline: excerpt }),
  });
}

/** `fact` never happened (in the scope); INCONCLUSIVE when a watch gap, or a recording not up to date, could hide it. */
export function neverHappens(fact: Fact, scope: StepScope = {}): Assertion {
  const info = scenario(`never/${fact.what}${stepSuffix(scope)}`, `${fact.what} never happens${stepPhrase(scope)}`);
  return occurrences(info, fact, scope, {
    seen: (seen, excerpt) => violation(info, `${fact.what} happened ${seen.length} time(s)${stepPhrase(scope)}, at ${where(seen)}`, seen, { timeline: excerpt }),
    none: () => pass(info, `${fact.what} never happened${stepPhrase(scope)}`, []),
  });
}

/**
 * `fact` happened exactly `times` times (in the scope). More is a FAIL whatever the recording
 * missed; fewer is a FAIL when the recording is complete over the scope (no watch gap, brought up
 * to date after it), else INCONCLUSIVE.
 */
export function happensTimes(fact: Fact, times: number, scope: StepScope = {}): Assertion {
  const info = scenario(`count/${fact.what}${stepSuffix(scope)}`, `${fact.what} happens ${times} time(s)${stepPhrase(scope)}`);
  return {
    settles: false,
    evaluate: (facts) => {
      const counted = count(fact, facts, scope);
      if (counted.missing) return noSuchStep(info, counted);
      const { seen, unplaced, incomplete } = counted;
      const excerpt = counted.excerpt(namedMarks(seen, fact.what));
      const seenText = `seen ${seen.length} time(s)${seen.length ? `, at ${where(seen)}` : ''}`;
      if (seen.length > times) return [violation(info, `${fact.what} happened ${seen.length} time(s)${stepPhrase(scope)}, expected ${times}: at ${where(seen)}`, seen, { timeline: excerpt })];
      if (seen.length + unplaced.length > times || (seen.length < times && unplaced.length)) {
        return [cannotTell(info, `${seenText}; ${unplaced.length} more at ${where(unplaced)} cannot be placed against the step's marks (no cluster revision on them)`, [...seen, ...unplaced], excerpt)];
      }
      if (incomplete) return [cannotTell(info, `${seenText}, and ${incomplete}`, seen, excerpt)];
      if (seen.length < times) return [violation(info, `${fact.what} happened ${seen.length} time(s)${stepPhrase(scope)}, expected ${times}${seen.length ? `: at ${where(seen)}` : ''}`, seen, { timeline: excerpt })];
      return [pass(info, `${fact.what}${stepPhrase(scope)}: ${times} time(s)${times ? `, at ${where(seen)}` : ''}`, seen)];
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
      if (!first || !then) return [cannotTell(info, `did not observe ${!first ? a.what : b.what}`, [first, then].filter((e): e is ObjectEntry => !!e), '')];
      const took = then.t - first.t;
      if (took <= ms) return [pass(info, `${b.what} came ${Math.round(took)} ms after ${a.what} (limit ${ms} ms)`, [first, then], [first, then])];
      return [violation(info, `${b.what} came ${Math.round(took)} ms after ${a.what} (limit ${ms} ms)`, [first, then], { timeline: slice(facts, [first, then], new Map([[first.seq, a.what], [then.seq, b.what]])), pair: [first, then] })];
    },
  };
}
