/**
 * Shrinks one failure to a minimal reproducer, in the order: delta debugging over the
 * schedule's items (after one try with none: many failures need no fault at all; ddmin's first
 * round runs in the same batch), then each remaining item simplified, then the call program made smaller. Whether a candidate still fails
 * with the same signature is the tester's to say (the search runs each candidate up to k times:
 * an external driver's timing is not deterministic); each phase hands it a batch at a time.
 */
import { faultSchedule, type Schedule, type ScheduleItem } from '../../faults/schedule/schedule.ts';
import { callCount, type Program } from '../program/program.ts';
import { ddmin, split } from './ddmin.ts';
import { programVariants } from './shrink-program.ts';
import { simplifications } from './simplify-item.ts';

export interface Candidate {
  program: Program;
  schedule: Schedule;
}

/** Which candidates still fail with the signature being shrunk; `phase` names the shrink step for progress lines. */
export type CandidateTester = (candidates: Candidate[], phase: string) => Promise<boolean[]>;

export interface ShrinkStats {
  /** Candidates handed to the tester, and batches. */
  candidates: number;
  rounds: number;
  itemsBefore: number;
  itemsAfter: number;
  callsBefore: number;
  callsAfter: number;
  /** What each accepted step changed, in order. */
  accepted: string[];
}

export interface ShrinkOptions {
  /** At most this many rounds of program shrinking (each a batch). */
  programRounds?: number;
}

export async function shrinkFailure(original: Candidate, tester: CandidateTester, options: ShrinkOptions = {}): Promise<{ minimal: Candidate; stats: ShrinkStats }> {
  const stats: ShrinkStats = { candidates: 0, rounds: 0, itemsBefore: original.schedule.items.length, itemsAfter: 0, callsBefore: callCount(original.program), callsAfter: 0, accepted: [] };
  const test = async (candidates: Candidate[], phase: string) => {
    stats.candidates += candidates.length;
    stats.rounds++;
    return tester(candidates, phase);
  };
  const withItems = (items: ScheduleItem[], program = original.program): Candidate => ({ program, schedule: faultSchedule(items, original.schedule.description) });
  let program = original.program;
  let items = original.schedule.items;

  // 1. The schedule's items: none at all, else ddmin. ddmin's first round (the two halves) rides
  //    in the batch of the try with none, so a failure that needs a fault costs one batch fewer;
  //    ddmin then finds those answers known and does not run them again.
  if (items.length) {
    const halves = items.length > 1 ? split(items, 2).filter((half) => selfContained(half)) : [];
    const [bare, ...halfAnswers] = await test([withItems([]), ...halves.map((half) => withItems(half))], halves.length ? "without any fault, and each half of the faults (ddmin's first round)" : 'without any fault');
    if (bare) {
      stats.accepted.push(`every fault item dropped (${items.length} → 0)`);
      items = [];
    } else if (items.length > 1) {
      const known = new Map(halves.map((half, i) => [subsetKey(half), halfAnswers[i]]));
      const result = await ddmin(items, async (subsets) => {
        const runnable = subsets.map((s) => selfContained(s));
        const unknown = runnable.filter((s): s is ScheduleItem[] => !!s && !known.has(subsetKey(s)));
        const answers = unknown.length ? await test(unknown.map((s) => withItems(s)), `ddmin over ${items.length} items`) : [];
        unknown.forEach((s, i) => known.set(subsetKey(s), answers[i]));
        return runnable.map((s) => (s ? known.get(subsetKey(s))! : false));
      });
      if (result.items.length < items.length) stats.accepted.push(`ddmin: ${items.length} → ${result.items.length} items (${result.items.map((i) => i.id).join(', ')})`);
      items = result.items;
    }
  }

  // 2. Each item simplified: one batch of every single change; the ones that keep the failure combined, when they still do.
  const variants = items.flatMap((item, at) => simplifications(item).map((s) => ({ ...s, at })));
  if (variants.length) {
    const answers = await test(
      variants.map((v) => withItems(items.map((item, i) => (i === v.at ? v.item : item)), program)),
      'simplifying items',
    );
    const kept = new Map<number, (typeof variants)[number]>();
    variants.forEach((v, i) => answers[i] && !kept.has(v.at) && kept.set(v.at, v));
    const chosen = [...kept.values()];
    if (chosen.length > 1) {
      const [together] = await test([withItems(items.map((item, i) => kept.get(i)?.item ?? item), program)], 'simplified items together');
      if (!together) chosen.splice(1);
    }
    for (const v of chosen) items = items.map((item, i) => (i === v.at ? v.item : item));
    stats.accepted.push(...chosen.map((v) => v.what));
  }

  // 3. The program: the first smaller variant that still fails, again from there.
  for (let round = 0; round < (options.programRounds ?? 4); round++) {
    const smaller = programVariants(program);
    if (!smaller.length) break;
    const answers = await test(
      smaller.map((v) => withItems(items, v.program)),
      `shrinking the program (${callCount(program)} calls)`,
    );
    const first = answers.findIndex(Boolean);
    if (first < 0) break;
    program = smaller[first].program;
    stats.accepted.push(smaller[first].what);
  }
  stats.itemsAfter = items.length;
  stats.callsAfter = callCount(program);
  return { minimal: withItems(items, program), stats };
}

/** A subset of the schedule by its items' ids (unique within a schedule): ddmin's answers are looked up by it. */
function subsetKey(items: readonly ScheduleItem[]): string {
  return items.map((i) => i.id).join('\n');
}

/** The subset, when every item it keeps that fires after another item (or views from its firing) keeps that item too; else undefined (it cannot run). */
function selfContained(items: ScheduleItem[]): ScheduleItem[] | undefined {
  const ids = new Set(items.map((i) => i.id));
  const needs = (item: ScheduleItem) => [item.trigger.on === 'after' ? item.trigger.item : undefined, item.fault.kind === 'stale-reads' && typeof item.fault.view === 'object' ? item.fault.view.item : undefined].filter((x): x is string => x !== undefined);
  return items.every((item) => needs(item).every((id) => ids.has(id))) ? items : undefined;
}
