import { expect, test } from '@playwright/test';
import { faultSchedule, type ScheduleItem } from '../../faults/schedule/schedule.ts';
import type { Program } from '../program/program.ts';
import { ddmin, split } from './ddmin.ts';
import { shrinkFailure, type Candidate } from './shrink-failure.ts';
import { programVariants } from './shrink-program.ts';
import { simplifications } from './simplify-item.ts';

/** A synthetic failure: the list fails when it holds every one of `needed`. */
const failsWith = (needed: string[]) => async (candidates: string[][]) => candidates.map((c) => needed.every((n) => c.includes(n)));

test('ddmin finds the 1-minimal failing subset, one batch of candidates per round', async () => {
  const items = 'abcdefghij'.split('');
  expect((await ddmin(items, failsWith(['c', 'g']))).items).toEqual(['c', 'g']);
  expect((await ddmin(items, failsWith(['j']))).items).toEqual(['j']);
  expect((await ddmin(items, failsWith(['a', 'e', 'i']))).items).toEqual(['a', 'e', 'i']);
  const all = await ddmin(items, failsWith(items));
  expect(all.items).toEqual(items);
  const one = await ddmin(items, failsWith(['d']));
  expect(one.rounds).toBeLessThan(10);
  expect(one.tests).toBeLessThan(40);
});

test('ddmin on a flaky predicate keeps what failed: a candidate that fails is never undone', async () => {
  let calls = 0;
  // Fails only every other time it is asked: the shrinker's tries are the answer to this.
  const flaky = async (candidates: string[][]) => candidates.map((c) => c.includes('b') && calls++ % 2 === 0);
  const result = await ddmin(['a', 'b', 'c', 'd'], flaky);
  expect(result.items).toContain('b');
});

test('split: contiguous parts of near-equal size', () => {
  expect(split([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4, 5]]);
  expect(split([1, 2, 3], 3)).toEqual([[1], [2], [3]]);
});

const item = (id: string, extra: Partial<ScheduleItem> = {}): ScheduleItem => ({ id, trigger: { on: 'start' }, fault: { kind: 'conflict', match: { writes: true } }, ...extra });

test('an item simplified: an earlier occurrence, no delay, a shorter fault — one change per variant', () => {
  const variants = simplifications({
    id: 'slow',
    trigger: { on: 'event', object: { role: 'supervisorPod' }, change: 'deletion-requested', occurrence: 3 },
    fault: { kind: 'latency', ms: 800 },
    heal: { afterMs: 3000 },
  });
  expect(variants.map((v) => v.what)).toEqual(['slow: the first occurrence of its trigger', 'slow: an earlier occurrence of its trigger', 'slow: heals in half the time', 'slow: half the latency']);
  expect(variants[0].item.trigger).toEqual({ on: 'event', object: { role: 'supervisorPod' }, change: 'deletion-requested', occurrence: 1 });
  expect(variants[2].item.heal).toEqual({ afterMs: 1500 });
  expect(variants[3].item.fault).toEqual({ kind: 'latency', ms: 400 });
  expect(simplifications(item('plain'))).toEqual([]);
  expect(simplifications(item('late', { trigger: { on: 'start', delayMs: 500 }, heal: { afterRequests: 3 } })).map((v) => v.what)).toEqual(['late: no delay', 'late: acts on one request']);
});

const program: Program = {
  sandboxes: [
    { name: 'xa', cleanupMs: 0, slowMainStopMs: 0 },
    { name: 'xb', cleanupMs: 0, slowMainStopMs: 0 },
  ],
  steps: [{ calls: [{ op: 'create', sandbox: 0 }, { op: 'create', sandbox: 1 }] }, { calls: [{ op: 'stop', sandbox: 1 }] }, { calls: [{ op: 'get', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }, { op: 'stop', sandbox: 1 }] }],
};

test('program variants: a sandbox left out (later ones renumbered), a step left out, one call of a step of several left out', () => {
  const variants = programVariants(program);
  expect(variants.map((v) => v.what)).toEqual([
    'without sandbox xa',
    'without sandbox xb',
    'without step 1',
    'without step 2',
    'without step 3',
    'without step 4',
    'step 1 without its call 1',
    'step 1 without its call 2',
    'step 4 without its call 1',
    'step 4 without its call 2',
  ]);
  expect(variants[0].program).toEqual({ sandboxes: [program.sandboxes[1]], steps: [{ calls: [{ op: 'create', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }] }] });
});

test('shrinking a synthetic failure: ddmin over the items, each item simplified, the program made smaller', async () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => item(id, id === 'd' ? { trigger: { on: 'start', delayMs: 400 } } : {}));
  // Fails when items b and d are in it and sandbox xb is created and stopped.
  const fails = (c: Candidate) => {
    const ids = c.schedule.items.map((i) => i.id);
    const xb = c.program.sandboxes.findIndex((s) => s.name === 'xb');
    const calls = c.program.steps.flatMap((s) => s.calls).filter((call) => call.sandbox === xb);
    return ids.includes('b') && ids.includes('d') && calls.some((x) => x.op === 'create') && calls.some((x) => x.op === 'stop');
  };
  const phases: string[] = [];
  const tried: string[] = [];
  const { minimal, stats } = await shrinkFailure({ program, schedule: faultSchedule(items) }, async (candidates, phase) => {
    phases.push(phase);
    if (!phase.startsWith('simplif') && !phase.startsWith('shrinking')) tried.push(...candidates.map((c) => c.schedule.items.map((i) => i.id).join('')));
    return candidates.map(fails);
  });
  expect(minimal.schedule.items.map((i) => i.id)).toEqual(['b', 'd']);
  expect(minimal.schedule.items[1].trigger).toEqual({ on: 'start', delayMs: 0 });
  expect(minimal.program).toEqual({ sandboxes: [program.sandboxes[1]], steps: [{ calls: [{ op: 'create', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }] }] });
  expect(stats).toMatchObject({ itemsBefore: 6, itemsAfter: 2, callsBefore: 6, callsAfter: 2 });
  // The try without faults and ddmin's first round (the two halves) in one batch; no subset tried twice.
  expect(phases[0]).toBe("without any fault, and each half of the faults (ddmin's first round)");
  expect(tried.slice(0, 3)).toEqual(['', 'abc', 'def']);
  expect(new Set(tried).size).toBe(tried.length);
  expect(phases[1]).toBe('ddmin over 6 items');
  expect(stats.accepted).toContain('d: no delay');
});

test('a failure that needs no fault at all is shrunk to no item in one try', async () => {
  const phases: string[] = [];
  const { minimal, stats } = await shrinkFailure({ program, schedule: faultSchedule([item('a'), item('b')]) }, async (candidates, phase) => (phases.push(phase), candidates.map(() => true)));
  expect(minimal.schedule.items).toEqual([]);
  expect(stats.accepted[0]).toBe('every fault item dropped (2 → 0)');
  expect(phases.filter((p) => p.includes('fault') || p.startsWith('ddmin'))).toHaveLength(1);
});
