import { expect, test } from '@playwright/test';
import { PassThrough } from 'node:stream';
import { countTestLine, describeLaneState, LaneProgress, type LaneState } from './lane-progress.ts';

test("Playwright's list output without a terminal counts into the lane's line", () => {
  const tests: NonNullable<LaneState['tests']> = { passed: 0, failed: 0, skipped: 0 };
  const lines = [
    'Running 4 tests using 4 workers',
    '',
    '  ✓  1 [shared-v1beta1] › scenarios/sandbox-lifecycle/stop-ordering.spec.ts:9:1 › stop-ordering: … (2.1s)',
    '  ✘  2 [shared-v1beta1] › scenarios/sandbox-lifecycle/supervisor-grace.spec.ts:4:1 › supervisor-grace: … (3.0s)',
    '  -  3 [shared-v1beta1] › scenarios/sandbox-lifecycle/cleanup-permission-missing.spec.ts:4:1 › cleanup: …',
    '    Error: expect(received).toBe(expected)',
  ];
  expect(lines.map((l) => countTestLine(l, tests))).toEqual([true, false, true, true, true, false]);
  expect(tests).toEqual({ total: 4, passed: 1, failed: 1, skipped: 1 });
  expect(describeLaneState({ phase: 'scenarios', tests })).toBe('running scenarios 3/4 (1 failed, 1 skipped)');
  expect(describeLaneState({ phase: 'cluster' })).toBe('bringing the cluster up');
});

test('not on a terminal: one plain line per change of a lane, none when nothing changed', () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  let written = '';
  (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
  const progress = new LaneProgress(['managed', 'operator'], stream);
  progress.update('managed', { phase: 'cluster' });
  progress.update('managed', { phase: 'cluster' });
  progress.update('operator', { phase: 'scenarios', tests: { total: 2, passed: 0, failed: 0, skipped: 0 } });
  progress.update('operator', { phase: 'scenarios', tests: { total: 2, passed: 1, failed: 0, skipped: 0 } });
  progress.update('managed', { phase: 'failed' });
  progress.done();
  const lines = written.trimEnd().split('\n');
  expect(lines.map((l) => l.replace(/ \(\+[\d.]+s\)$/, ''))).toEqual(['[managed] bringing the cluster up', '[operator] running scenarios 0/2', '[operator] running scenarios 1/2', '[managed] FAILED']);
  expect(lines.every((l) => /\(\+\d+\.\ds\)$/.test(l)), 'each line carries the time since the run began').toBe(true);
  expect(written).not.toMatch(/\x1b/);
});
