import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { checkSchedule } from '../../faults/schedule/parse-schedule.ts';
import type { Timeline } from '../../timeline/model.ts';
import { seededRandom, partSeed } from '../program/seeded-random.ts';
import { generateSchedule, MAX_ITEMS } from './generate-schedule.ts';
import { referencePoints } from './reference-points.ts';
import { drawSwarm, SIEVE_KINDS } from './swarm.ts';

/** A recorded fault-free create + stop of the reference driver (timeline/testdata/README.md). */
const recorded = JSON.parse(readFileSync(new URL('../../timeline/testdata/recorded-reference.json', import.meta.url), 'utf8')) as Timeline;
const points = referencePoints(recorded);

test('the reference run gives the points a stop really passes: the supervisor Pod deletion, the suspension, and the requests they imply', () => {
  expect(points.sandboxes).toEqual(['ordering']);
  expect(points.events).toContainEqual({ object: { role: 'supervisorPod', sandbox: 'ordering' }, change: 'deletion-requested', occurrence: 1 });
  expect(points.events).toContainEqual({ object: { role: 'supervisorPod', sandbox: 'ordering' }, change: 'deleted', occurrence: 1 });
  expect(points.events).toContainEqual({ object: { role: 'sandbox', sandbox: 'ordering' }, change: 'created', occurrence: 1 });
  expect(points.events.filter((p) => p.object.role === 'sandbox' && p.change === 'suspended').length).toBeGreaterThanOrEqual(2); // created suspended, then the stop's
  expect(points.requests).toContainEqual({ match: { verb: 'delete', object: { role: 'supervisorPod', sandbox: 'ordering' } }, occurrence: 1, write: true });
  expect(points.requests).toContainEqual({ match: { object: { role: 'sandbox', sandbox: 'ordering' }, suspends: true }, occurrence: 2, write: true });
  expect(points.requests.some((p) => 'writes' in p.match && p.occurrence > 3)).toBe(true);
});

test('schedules: one seed one schedule, valid against the format, at most ten items, triggers only from the reference points', () => {
  const schedules = Array.from({ length: 200 }, (_, i) => generateSchedule(partSeed(5, `schedule ${i}`), points, { sieveOnly: i < 50 }));
  expect(generateSchedule(partSeed(5, 'schedule 70'), points, { sieveOnly: false })).toEqual(schedules[70]);
  const kinds = new Set<string>();
  for (const schedule of schedules) {
    expect(() => checkSchedule(schedule)).not.toThrow();
    expect(schedule.items.length).toBeGreaterThanOrEqual(1);
    expect(schedule.items.length).toBeLessThanOrEqual(MAX_ITEMS);
    expect(new Set(schedule.items.map((i) => i.id)).size).toBe(schedule.items.length);
    for (const { trigger, fault } of schedule.items) {
      kinds.add(fault.kind);
      if (trigger.on === 'event') expect(points.events).toContainEqual({ object: trigger.object, change: trigger.change, occurrence: trigger.occurrence });
      if (trigger.on === 'request') expect(points.requests.map((p) => [p.match, p.occurrence])).toContainEqual([trigger.match, trigger.occurrence]);
    }
  }
  expect([...kinds].sort()).toEqual(['conflict', 'crash', 'deny', 'error', 'latency', 'replica-start', 'stale-reads', 'watch-close', 'watch-expire', 'watch-hold']);
  // The first part of a search: Sieve's perturbations alone.
  expect(schedules.slice(0, 50).flatMap((s) => s.items).every((i) => SIEVE_KINDS.includes(i.fault.kind))).toBe(true);
  // A crash mostly right after a write landed.
  const crashes = schedules.flatMap((s) => s.items).filter((i) => i.fault.kind === 'crash');
  expect(crashes.filter((i) => i.trigger.on === 'request' && i.trigger.at === 'answered').length).toBeGreaterThan(crashes.length / 2);
});

test('swarm selection: each run switches on a few kinds with weights of their own; Sieve\'s weigh double', () => {
  const swarms = Array.from({ length: 100 }, (_, i) => drawSwarm(seededRandom(i), false));
  expect(swarms.every((s) => s.length >= 1)).toBe(true);
  expect(new Set(swarms.map((s) => s.map(([k]) => k).join())).size).toBeGreaterThan(50);
  for (const s of swarms) for (const [kind, weight] of s) expect(weight % (SIEVE_KINDS.includes(kind) ? 2 : 1)).toBe(0);
  expect(drawSwarm(seededRandom(9), true).every(([k]) => SIEVE_KINDS.includes(k))).toBe(true);
});
