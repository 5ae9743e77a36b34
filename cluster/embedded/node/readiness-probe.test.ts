import { expect, test } from '@playwright/test';
import { firstProbeAt, probeTick, RELIST_PERIOD_MS } from './readiness-probe.ts';

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

// The kubelet probes a container first when its relist sees it running, not at the instant it starts (readiness-probe.ts).
test('a container is first probed at the relist that sees it running, or at the first tick after its initial delay', () => {
  const clocks = { relistStart: 0, tickerStart: 10_250 };
  expect(RELIST_PERIOD_MS).toBe(1000);
  // Started 100 ms after a relist: seen, and probed, at the next one 900 ms later, before the probe ticker's first tick.
  expect(firstProbeAt(clocks, 1000, 10_100, 0)).toBe(11_000);
  // The probe period does not matter: the relist triggers the probe.
  expect(firstProbeAt(clocks, 30_000, 10_100, 0)).toBe(11_000);
  // Started on a relist: probed then.
  expect(firstProbeAt(clocks, 1000, 11_000, 0)).toBe(11_000);
  // An initial delay past the relist: the first probe tick after it (10.25 s + 2 × 2 s), not the relist.
  expect(firstProbeAt(clocks, 2000, 10_100, 3000)).toBe(14_250);
  // A delay that ends before the relist sees the container: probed at the relist.
  expect(firstProbeAt(clocks, 1000, 10_100, 500)).toBe(11_000);
});
