import { expect, test } from '@playwright/test';
import { availableParallelism } from 'node:os';
import { laneWorkers } from './lane-job.ts';

test('embedded lanes share one machine-wide budget of 6 x cores scenarios at once; kind and existing clusters run two', () => {
  const budget = 6 * availableParallelism();
  expect(laneWorkers('embedded')).toBe(budget);
  expect(laneWorkers('embedded', 2)).toBe(Math.floor(budget / 2));
  expect(laneWorkers('embedded', 6) * 6, 'six lanes side by side stay within the budget').toBeLessThanOrEqual(budget);
  expect(laneWorkers('embedded', budget + 1), 'never fewer than one worker').toBe(1);
  expect([laneWorkers('kind'), laneWorkers('existing'), laneWorkers('kind', 6)]).toEqual([2, 2, 2]);
});
