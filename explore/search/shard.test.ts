import { expect, test } from '@playwright/test';
import { faultRunsOf, RUNS_PER_PROGRAM, shardProgram } from './explore-search.ts';

test('shards of one search run disjoint programs and runs that together are the whole search', () => {
  const planned = 31;
  const programs = Math.ceil(planned / RUNS_PER_PROGRAM);
  const shardRuns = (index: number, count: number) => {
    const runs: number[] = [];
    for (let k = 0; shardProgram(k, { index, count }) < programs; k++) runs.push(...faultRunsOf(shardProgram(k, { index, count }), planned));
    return runs;
  };
  const three = [0, 1, 2].map((i) => shardRuns(i, 3));
  expect(three.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: planned }, (_, j) => j));
  expect(new Set(three.flat()).size).toBe(planned);
  expect(shardRuns(0, 1)).toEqual(Array.from({ length: planned }, (_, j) => j));
  expect(faultRunsOf(10, planned)).toEqual([30]);
});
