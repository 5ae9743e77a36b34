import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ha } from '../ha.ts';
import { sharedV1beta1 } from '../shared-v1beta1.ts';
import { describeDriver, LANE_RUN_ENV, readLaneRun, writeLaneRun, type LaneRun } from './lane-run.ts';

const run: LaneRun = {
  lane: sharedV1beta1,
  cluster: { provider: 'embedded', lane: 'shared-v1beta1', name: 'embedded-shared-v1beta1', kubeconfigPath: '/k/kubeconfig', capabilities: ['admission-policy'], lacks: [] },
  driver: { kind: 'harness', variant: 'suspend-first' },
  reportDir: '/r/shared-v1beta1',
  seed: 20260915,
};

test('the run value crosses as JSON through one environment variable, unchanged', () => {
  const path = test.info().outputPath('run.json');
  writeLaneRun(path, run);
  expect(readLaneRun({ [LANE_RUN_ENV]: path })).toEqual(run);
});

test('outside a lane there is no run value; a broken one is a clear error', () => {
  expect(readLaneRun({})).toBeUndefined();
  expect(readLaneRun({ [LANE_RUN_ENV]: '' })).toBeUndefined();
  const path = test.info().outputPath('broken.json');
  writeFileSync(path, '{');
  expect(() => readLaneRun({ [LANE_RUN_ENV]: path })).toThrow(`${LANE_RUN_ENV}=${path}: cannot read the lane run`);
  expect(() => readLaneRun({ [LANE_RUN_ENV]: '/no/such/run.json' })).toThrow('scenarios run through `npm run lane -- <lane>`, which writes it');
});

test('reports name the driver under test', () => {
  expect(describeDriver(run.driver)).toBe('suspend-first');
  expect(describeDriver({ kind: 'harness', variant: 'reference' }, { ...sharedV1beta1, driver: { ...sharedV1beta1.driver, deployment: 'external' } })).toBe('reference, as an external process');
  const socket = join(tmpdir(), 'd.sock');
  expect(describeDriver({ kind: 'socket', socket })).toBe(`external at ${socket}`);
  expect(describeDriver({ kind: 'harness', variant: 'reference' }, ha)).toBe('reference, 2 replicas as external processes');
  expect(describeDriver({ kind: 'exec', command: 'my-driver' }, ha)).toBe('external: my-driver (2 replicas)');
});
