import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSchedule, readSchedule, ScheduleError } from './parse-schedule.ts';
import { faultSchedule } from './schedule.ts';

const header = { apiVersion: 'sandbox-conformance.io/v1alpha1', kind: 'FaultSchedule' };
const item = (over: Record<string, unknown>): unknown => ({ id: 'f1', trigger: { on: 'start' }, fault: { kind: 'latency', ms: 10 }, ...over });
const problem = (value: unknown): string => {
  try {
    parseSchedule(typeof value === 'string' ? value : JSON.stringify(value), 's.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    const lines = (error as Error).message.split('\n');
    expect(lines[0]).toBe('s.json: not a valid fault schedule:');
    expect(lines.at(-1)).toBe('See docs/faults.md, "Fault schedules", for the format.');
    return lines.slice(1, -1).join('\n');
  }
  throw new Error('accepted');
};

test('a schedule in JSON or YAML is read whole, as written', () => {
  const schedule = faultSchedule([{ id: 'stale', trigger: { on: 'request', match: { verb: 'delete', object: { role: 'supervisorPod' } }, at: 'received' }, fault: { kind: 'stale-reads', view: 'start' }, heal: { afterMs: 2000 } }], 'x');
  expect(parseSchedule(JSON.stringify(schedule))).toEqual(schedule);
  const yaml = ['apiVersion: sandbox-conformance.io/v1alpha1', 'kind: FaultSchedule', 'items:', '  - id: crash', '    trigger: { on: request, match: { suspends: true }, at: answered }', '    fault: { kind: crash }'].join('\n');
  expect(parseSchedule(yaml).items[0]).toEqual({ id: 'crash', trigger: { on: 'request', match: { suspends: true }, at: 'answered' }, fault: { kind: 'crash' } });
});

test('bad input: each error names the item and the field, and says what to write', () => {
  expect(problem('x: [')).toMatch(/^ {2}- not JSON or YAML: /);
  expect(problem({})).toBe('  - (the document): missing field "apiVersion"');
  expect(problem({ ...header, apiVersion: 'v2', items: [] })).toBe('  - apiVersion: must be "sandbox-conformance.io/v1alpha1", got "v2"');
  expect(problem({ ...header, items: [item({ fault: { kind: 'meteor' } })] })).toBe(
    '  - items[0] (id "f1").fault.kind: unknown fault kind "meteor"; known: latency, error, reset, conflict, stale-reads, watch-close, watch-hold, watch-expire, crash, replica-start, deny, controller-conflicts, controller-cache-lag, container-stop',
  );
  expect(problem({ ...header, items: [item({ trigger: { on: 'whenever' } })] })).toBe('  - items[0] (id "f1").trigger.on: unknown trigger "whenever"; known: start, request, event, after');
  expect(problem({ ...header, items: [item({ trigger: { on: 'request', match: { verb: 'fetch' } } })] })).toBe(
    '  - items[0] (id "f1").trigger.match.verb: "fetch" is not one of "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "connect"',
  );
  expect(problem({ ...header, items: [item({ fault: { kind: 'latency' } })] })).toBe('  - items[0] (id "f1").fault: missing field "ms"');
  expect(problem({ ...header, items: [item({ fault: { kind: 'latency', ms: 5, jitter: 1 } })] })).toBe('  - items[0] (id "f1").fault: unknown field "jitter"');
  expect(problem({ ...header, items: [item({ heal: 'never' })] })).toBe('  - items[0] (id "f1").heal: must be "end", {"afterMs": N} or {"afterRequests": N}, got "never"');
  expect(problem({ ...header, items: [item({ heal: { afterMs: -1 } })] })).toBe('  - items[0] (id "f1").heal.afterMs: must be >= 0');
});

test('a trigger or heal that could never happen is refused before anything runs', () => {
  const never = (items: unknown[]) => problem({ ...header, items });
  expect(never([item({}), item({})])).toBe('  - items[1] (id "f1").id: "f1" is used by items[0] too; ids must be unique');
  expect(never([item({ trigger: { on: 'after', item: 'f9' } })])).toBe('  - items[0] (id "f1").trigger.item: no item "f9"; known: f1');
  expect(never([item({ id: 'a', trigger: { on: 'after', item: 'b' } }), item({ id: 'b', trigger: { on: 'after', item: 'a' } })])).toBe('  - items "a" -> "b" -> "a": their "after" triggers wait on each other, so none could ever fire');
  expect(never([item({ trigger: { on: 'event', object: { role: 'supervisorPod' }, change: 'suspended' } })])).toBe(
    '  - items[0] (id "f1").trigger.change: only a Sandbox is suspended; this trigger names a supervisorPod and could never fire (use role "sandbox")',
  );
  expect(never([item({ trigger: { on: 'request', match: { verb: 'watch' }, at: 'answered' } })])).toBe('  - items[0] (id "f1").trigger.at: a watch is never "answered" (it streams); use "received"');
  expect(never([item({ trigger: { on: 'request', match: { verb: ['get', 'list'], writes: true } } })])).toBe('  - items[0] (id "f1").trigger.match: "writes": true with only read verbs (get, list) matches nothing');
  expect(never([item({ fault: { kind: 'conflict', match: { resource: 'secrets', object: { role: 'sandbox' } } } })])).toBe(
    '  - items[0] (id "f1").fault.match.resource: a sandbox is one of the sandboxes, not "secrets"; drop "resource" or fix it',
  );
  expect(never([item({ fault: { kind: 'watch-hold', match: { verb: 'get' }, release: 'deliver' } })])).toBe('  - items[0] (id "f1").fault.match.verb: a watch-hold acts on watch streams; its match must allow the verb "watch"');
  expect(never([item({ fault: { kind: 'crash' }, heal: { afterMs: 5 } })])).toBe('  - items[0] (id "f1").heal: a crash happens at once and has nothing to heal; leave "heal" out');
  expect(never([item({ fault: { kind: 'deny', operations: ['DELETE'], object: { role: 'sandbox' } }, heal: { afterRequests: 2 } })])).toBe(
    '  - items[0] (id "f1").heal.afterRequests: a deny does not act on requests, so it would never heal that way; use "afterMs" or "end"',
  );
  expect(never([item({ fault: { kind: 'container-stop', object: { role: 'sandbox' }, delayMs: 5 } })])).toBe('  - items[0] (id "f1").fault.object.role: containers stop in Pods; name "supervisorPod" or "workloadPod", not "sandbox"');
  expect(never([item({ fault: { kind: 'stale-reads', view: { item: 'gone' } } })])).toBe('  - items[0] (id "f1").fault.view.item: no item "gone"; known: f1');
  expect(never([item({ trigger: { on: 'request', match: { verb: 'delete' } }, fault: { kind: 'crash', replica: 1 } })])).toBe(
    '  - items[0] (id "f1").fault.replica: with a request trigger the replica that sent the request is crashed; leave "replica" out, or use another trigger',
  );
});

test('a file that cannot be read is named with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'schedule-'));
  try {
    expect(() => readSchedule(join(dir, 'missing.json'))).toThrow(/missing\.json: not a valid fault schedule:\n {2}- cannot read it \(ENOENT/);
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(faultSchedule([{ id: 'x', trigger: { on: 'start' }, fault: { kind: 'replica-start' } }])));
    expect(readSchedule(join(dir, 'ok.json')).items).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
