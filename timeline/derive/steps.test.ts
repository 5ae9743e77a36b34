import { expect, test } from '@playwright/test';
import type { ObjectEntry, StepEntry, Timeline } from '../model.ts';
import { derive } from './histories.ts';
import { lifecycleSteps, namedSteps, relativeToMark, stepWindows } from './steps.ts';

const step = (seq: number, title: string, status: StepEntry['status'], clusterRevision?: string): StepEntry => ({ kind: 'step', seq, t: seq, title, status, ...(clusterRevision ? { clusterRevision } : {}) });
const change = (seq: number, resourceVersion: string): ObjectEntry => ({ kind: 'object', seq, t: seq, resource: 'pods', type: 'MODIFIED', namespace: 'n', name: 'p', uid: 'u', resourceVersion });
const facts = (entries: Timeline['entries']) => derive({ startedAt: '', entries });

test('a step window pairs a begin with the next end or failure of its title, nested ones too', () => {
  const windows = stepWindows(facts([step(0, 'stop', 'begin'), step(1, 'inner', 'begin'), step(2, 'inner', 'failed'), step(3, 'stop', 'end'), step(4, 'start', 'begin')]));
  expect(windows.map((w) => [w.title, w.begin.seq, w.end?.seq, w.end?.status])).toEqual([
    ['stop', 0, 3, 'end'],
    ['inner', 1, 2, 'failed'],
    ['start', 4, undefined, undefined],
  ]);
});

test('a call is a step with its verb as a word of the title; named steps match the name and what follows it', () => {
  const titles = ['stop', 'stop the sandbox', 'resumed stop', 'stale-call stop', 'a fresh driver stops the sandbox again', 'exec fails while stopped', 'pre-stop hook', 'create with supervisor grace 7 s', 'restart the driver', 'reconcile-window', 'reconcile-window: 20 passes', 'reconcile-windows'];
  const all = facts(titles.flatMap((title, i) => [step(2 * i, title, 'begin'), step(2 * i + 1, title, 'end')]));
  expect(lifecycleSteps(all, 'stop').map((w) => w.title)).toEqual(['stop', 'stop the sandbox', 'resumed stop', 'stale-call stop']);
  expect(lifecycleSteps(all, 'create').map((w) => w.title)).toEqual(['create with supervisor grace 7 s']);
  expect(lifecycleSteps(all, 'start').map((w) => w.title)).toEqual([]);
  expect(namedSteps(all, 'reconcile-window').map((w) => w.title)).toEqual(['reconcile-window']);
});

test('a change is placed against a step mark by receive order, else by the mark\'s cluster revision, else unknown', () => {
  const mark = step(10, 'stop', 'end', '500');
  expect(relativeToMark(change(9, '999'), mark)).toBe('before'); // received before the mark: committed before it
  expect(relativeToMark(change(11, '499'), mark)).toBe('before'); // arrived late, committed before the revision read
  expect(relativeToMark(change(11, '500'), mark)).toBe('before');
  expect(relativeToMark(change(11, '501'), mark)).toBe('after');
  expect(relativeToMark(change(11, '501'), step(10, 'stop', 'end'))).toBe('unknown');
  expect(relativeToMark(change(11, 'opaque'), mark)).toBe('unknown');
});
