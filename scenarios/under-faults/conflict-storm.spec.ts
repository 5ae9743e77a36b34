import { expect, faultSchedule, invariantsIn, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from '../sandbox-lifecycle/main-command.ts';

/** How many conditioned writes meet a concurrent write first: fewer than a driver's retries within its headroom. */
const CONFLICTS = 2;

/**
 * Optimistic concurrency under contention: once the driver has deleted the supervisor Pod, its
 * next writes conditioned on a resourceVersion each meet a third party's write to the same
 * object just before they reach the API server, so each gets a genuine 409 Conflict (an
 * unconditioned write is never conflicted: a real API server does not answer it with 409). The
 * driver must read again and decide again: no call hangs, the stop succeeds, the order holds. A
 * driver that takes a 409 on its suspension patch for the patch having landed
 * (`--driver conflict-as-success`) fails here: its stop does not finish.
 */
test.use({
  faultSchedule: faultSchedule(
    [
      {
        id: 'conflict-storm',
        trigger: { on: 'request', match: { verb: 'delete', object: { role: 'supervisorPod' } } },
        fault: { kind: 'conflict', match: { writes: true } },
        heal: { afterRequests: CONFLICTS },
      },
    ],
    'every conditioned write of the stop after the supervisor deletion meets a concurrent write',
  ),
});

test('conflict-storm: conditioned writes meet genuine 409s for a while; no call hangs, the stop succeeds in order', async ({ sandboxes, driver, timeline, schedule }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'conflicts', command: RECORDING_MAIN_COMMAND }));
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id)).then(
    (s) => ({ sandbox: s, error: undefined }),
    (error: Error) => ({ sandbox: undefined, error }),
  );
  for (const invariant of invariantsIn('stop/')) await expect.soft(timeline, invariant.title).toHold(invariant.id);
  expect(schedule.hasFired('conflict-storm'), 'the storm began at the supervisor Pod deletion').toBe(true);
  expect(stopped.error?.message, 'the stop meets its conflicts and still succeeds').toBeUndefined();
  expect(stopped.sandbox?.phase).toBe('Stopped');
});
