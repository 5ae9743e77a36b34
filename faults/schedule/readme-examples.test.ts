import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { checkSchedule } from './parse-schedule.ts';
import { faultSchedule, FAULT_NEEDS, type FaultKind, type ScheduleItem } from './schedule.ts';

/** docs/faults.md's "Fault schedules" section: one example item per fault kind, each a valid item. */
const section = (() => {
  const readme = readFileSync(new URL('../../docs/faults.md', import.meta.url), 'utf8');
  const start = readme.indexOf('\n## Fault schedules\n');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
})();
const examples = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]) as ScheduleItem);

test('docs/faults.md shows one valid example item for every fault kind', () => {
  expect([...new Set(examples.map((e) => e.fault.kind))].sort()).toEqual((Object.keys(FAULT_NEEDS) as FaultKind[]).sort());
  for (const example of examples) expect(() => checkSchedule(faultSchedule([example]), `docs/faults.md example "${example.id}"`)).not.toThrow();
});

test('docs/faults.md names every trigger the schema knows', () => {
  for (const on of ['start', 'request', 'event', 'after']) expect(section).toContain(`"on": "${on}"`);
});
