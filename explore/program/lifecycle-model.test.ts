import { expect, test } from '@playwright/test';
import { judgeCall, settledAs, type ModelState } from './lifecycle-model.ts';

const states = (...s: ModelState[]) => new Set(s);
const ok = (phase?: string) => ({ ok: true as const, phase });
const refused = (code: string) => ({ ok: false as const, code, message: code });

test('a fault-free lifecycle: create, stop, start, delete move the sandbox as the calls say', () => {
  expect(judgeCall('create', states('absent'), ok('Ready'), false)).toEqual({ next: states('Ready') });
  expect(judgeCall('stop', states('Ready'), ok('Stopped'), false)).toEqual({ next: states('Stopped') });
  expect(judgeCall('start', states('Stopped'), ok('Ready'), false)).toEqual({ next: states('Ready') });
  expect(judgeCall('delete', states('Stopped'), { ok: true, deleted: true }, false)).toEqual({ next: states('absent') });
});

test('repeated calls answer as scenarios/sandbox-lifecycle/README.md says', () => {
  expect(judgeCall('stop', states('Stopped'), ok('Stopped'), false).violation).toBeUndefined();
  expect(judgeCall('start', states('Ready'), refused('FAILED_PRECONDITION'), false)).toEqual({ next: states('Ready') });
  expect(judgeCall('delete', states('absent'), { ok: true, deleted: false }, false)).toEqual({ next: states('absent') });
  expect(judgeCall('delete', states('absent'), refused('NOT_FOUND'), false)).toEqual({ next: states('absent') });
  expect(judgeCall('stop', states('absent'), refused('NOT_FOUND'), false).violation).toBeUndefined();
  expect(judgeCall('delete', states('absent'), { ok: true, deleted: true }, false).violation).toContain('delete answered deleted=true');
});

test('get must answer the phase the calls imply', () => {
  expect(judgeCall('get', states('Stopped'), ok('Stopped'), false).violation).toBeUndefined();
  expect(judgeCall('get', states('Stopped'), ok('Ready'), false).violation).toBe('get answered Ready, where the calls before imply Stopped');
  expect(judgeCall('get', states('absent'), refused('NOT_FOUND'), false).violation).toBeUndefined();
});

test('a failure: forbidden without faults; under faults the sandbox may be on either side of the call; a call past its deadline never excused', () => {
  expect(judgeCall('stop', states('Ready'), refused('UNAVAILABLE'), false).violation).toContain('no fault was scheduled');
  expect(judgeCall('stop', states('Ready'), refused('UNAVAILABLE'), true)).toEqual({ next: states('Ready', 'Stopped') });
  expect(judgeCall('stop', states('Ready'), refused('DEADLINE_EXCEEDED'), true).violation).toContain('did not return within its deadline');
  expect(settledAs(states('Ready', 'Stopped'), 'Stopped')).toBe(true);
  expect(settledAs(states('Ready', 'Stopped'), 'Provisioning')).toBe(false);
});

test('racing calls: the start that finds another under way may refuse; the delete that loses finds nothing', () => {
  expect(judgeCall('start', states('Stopped'), refused('FAILED_PRECONDITION'), false, true)).toEqual({ next: states('Ready') });
  expect(judgeCall('start', states('Stopped'), refused('FAILED_PRECONDITION'), false).violation).toBeDefined();
  expect(judgeCall('delete', states('Ready'), { ok: true, deleted: false }, false, true)).toEqual({ next: states('absent') });
});

test('a delete under faults may stop the sandbox first and then fail, or find it changed and leave it (deleted=false)', () => {
  expect(judgeCall('delete', states('Ready'), refused('FAILED_PRECONDITION'), true)).toEqual({ next: states('Ready', 'Stopped', 'absent') });
  expect(judgeCall('delete', states('Ready'), { ok: true, deleted: false }, true)).toEqual({ next: states('Ready', 'Stopped', 'absent') });
  expect(judgeCall('delete', states('Ready'), { ok: true, deleted: false }, false).violation).toContain('delete answered deleted=false');
});

test('under faults a refusal\'s code is no proof of a refusal: a start that fails FAILED_PRECONDITION may have found the sandbox stopped', () => {
  // The stop failed (its supervisor deletion denied); the start finishes that stop first and fails on the same denial.
  expect(judgeCall('start', states('Ready', 'Stopped'), refused('FAILED_PRECONDITION'), true)).toEqual({ next: states('Ready', 'Stopped') });
  expect(judgeCall('start', states('Ready', 'Stopped'), refused('FAILED_PRECONDITION'), false)).toEqual({ next: states('Ready') });
});

test('racing starts under faults: the one refused does not prove the other started (both may have failed on the fault)', () => {
  expect(judgeCall('start', states('Ready', 'Stopped'), refused('FAILED_PRECONDITION'), true, true)).toEqual({ next: states('Ready', 'Stopped') });
});
