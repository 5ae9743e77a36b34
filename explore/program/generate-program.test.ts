import { expect, test } from '@playwright/test';
import { generateProgram } from './generate-program.ts';
import { describeProgram } from './program.ts';
import { partSeed } from './seeded-random.ts';

const options = { replicas: 1, apiHeadroomSeconds: 5 };
const programs = (seed: number, count: number, o = options) => Array.from({ length: count }, (_, i) => generateProgram(partSeed(seed, `program ${i}`), o));

test('one seed, one program: the same seed draws the same programs, another seed others', () => {
  expect(programs(42, 20)).toEqual(programs(42, 20));
  expect(programs(42, 20).map(describeProgram)).not.toEqual(programs(43, 20).map(describeProgram));
});

test('every program creates each of its one to three sandboxes before anything else touches it', () => {
  for (const program of programs(1, 200)) {
    expect(program.sandboxes.length).toBeGreaterThanOrEqual(1);
    expect(program.sandboxes.length).toBeLessThanOrEqual(3);
    program.sandboxes.forEach((_, i) => {
      const calls = program.steps.flatMap((s) => s.calls).filter((c) => c.sandbox === i);
      expect(calls[0]?.op).toBe('create');
      expect(calls.filter((c) => c.op === 'create')).toHaveLength(1);
    });
  }
});

test('calls at once: two lifecycle calls on two sandboxes, or the same call twice on one; reads stay alone', () => {
  const concurrent = programs(2, 300).flatMap((p) => p.steps.filter((s) => s.calls.length > 1 && s.calls.every((c) => c.op !== 'create')));
  expect(concurrent.length).toBeGreaterThan(10);
  for (const { calls } of concurrent) {
    expect(calls).toHaveLength(2);
    expect(calls.every((c) => ['stop', 'start', 'delete'].includes(c.op))).toBe(true);
    if (calls[0].sandbox === calls[1].sandbox) expect(calls[0].op).toBe(calls[1].op);
  }
});

test("the scripted scenarios' lifecycles are among the seeds, single-sandbox programs the most common, and some supervisors clean up longer than the API headroom", () => {
  const all = programs(3, 300);
  const shapes = new Set(all.map(describeProgram));
  for (const lifecycle of ['xa:create; xa:stop', 'xa:create; xa:stop; xa:start', 'xa:create; xa:stop; xa:stop', 'xa:create; xa:stop; xa:start ‖ xa:start', 'xa:create; xa:delete; xa:delete']) expect(shapes).toContain(lifecycle);
  expect(all.filter((p) => p.sandboxes.length === 1).length).toBeGreaterThan(all.length / 2);
  expect(all.some((p) => p.sandboxes.some((s) => s.cleanupMs > 5_000))).toBe(true);
});

test('with two replicas some calls go to one by index; with one, none names a replica', () => {
  expect(programs(4, 50).flatMap((p) => p.steps.flatMap((s) => s.calls)).some((c) => c.replica !== undefined)).toBe(false);
  const routed = programs(4, 50, { ...options, replicas: 2 }).flatMap((p) => p.steps.flatMap((s) => s.calls));
  expect(new Set(routed.map((c) => c.replica))).toEqual(new Set([undefined, 0, 1]));
});
