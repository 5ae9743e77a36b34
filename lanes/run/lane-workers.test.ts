import { expect, test } from '@playwright/test';
import { availableParallelism } from 'node:os';
import { laneWorkers } from './lane-job.ts';

test('embedded lanes share a budget of 3 x cores scenarios at once, at least two per lane; kind and existing clusters run two', () => {
  const budget = 3 * availableParallelism();
  expect(laneWorkers('embedded')).toBe(Math.max(2, budget));
  expect(laneWorkers('embedded', 2)).toBe(Math.max(2, Math.floor(budget / 2)));
  expect(laneWorkers('embedded', budget), 'a lane beside many others still runs two tests at once').toBe(2);
  expect(laneWorkers('embedded', budget + 1)).toBe(2);
  expect([laneWorkers('kind'), laneWorkers('existing'), laneWorkers('kind', 6)]).toEqual([2, 2, 2]);
});
