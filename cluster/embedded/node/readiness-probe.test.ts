import { expect, test } from '@playwright/test';
import { probeTick } from './readiness-probe.ts';

// The kubelet's probe ticker runs from the Pod's sync, not from the container's start (readiness-probe.ts).
test('probe ticks fall every period from the ticker start, whenever the container started', () => {
  const start = 10_000;
  // A container started 300 ms after the sync, not ready at once: next probed 700 ms later, not a period later.
  expect(probeTick(start, 1000, start + 300)).toBe(start + 1000);
  // A tick asked for exactly is that tick; one just after it waits a period.
  expect(probeTick(start, 1000, start + 2000)).toBe(start + 2000);
  expect(probeTick(start, 1000, start + 2001)).toBe(start + 3000);
  // Before or at the ticker start: its first tick, a period on.
  expect(probeTick(start, 1000, start)).toBe(start + 1000);
  expect(probeTick(start, 1000, start - 50)).toBe(start + 1000);
  // An initial delay of 5 s on a 2 s period: the first probe at the first tick after it (6 s), as the kubelet skips ticks inside the delay.
  expect(probeTick(start, 2000, start + 5000)).toBe(start + 6000);
});
