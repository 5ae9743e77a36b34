import { expect, faultSchedule, supervisorCleanupTakes, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from '../sandbox-lifecycle/main-command.ts';

/** The supervisor's clean-up outlasts the hold, so the Pod is still there when the held watches end. */
const CLEANUP_MS = 4_000;
const HOLD_MS = 1_500;

/**
 * Sieve's unobserved state, on the stop path: from the moment the driver deletes the supervisor
 * Pod, every Pod watch of the driver is held (its events buffered, as a lagging API server
 * delays them), and after 1.5 s the held events are delivered and the streams end — as an API
 * server ends a slow watcher's stream. Nothing was deleted when a stream ended: a driver must
 * read again, not take the end for the deletion (`--driver watch-trusting-wait` suspends then
 * and fails here naming stop/suspend-after-supervisor-gone). The order must hold.
 */
test.use({
  faultSchedule: faultSchedule(
    [
      {
        id: 'hold-pod-watches',
        trigger: { on: 'request', match: { verb: 'delete', object: { role: 'supervisorPod' } } },
        fault: { kind: 'watch-hold', match: { resource: 'pods' }, release: 'close' },
        heal: { afterMs: HOLD_MS },
      },
    ],
    "the driver's Pod watches held through the supervisor's deletion, then ended",
  ),
});

test('watch-held-during-stop: the driver\'s watches are held through the supervisor\'s deletion, then end; the order holds', { tag: '@faults' }, async ({ sandboxes, driver, timeline, schedule }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'heldwatch', command: RECORDING_MAIN_COMMAND, environment: supervisorCleanupTakes(CLEANUP_MS) }));
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  test.skip(!schedule.hasFired('hold-pod-watches'), 'the driver never sent a DELETE of the supervisor Pod, so its watches were never held: nothing was judged under the fault');
  expect(stopped.phase, 'the stop itself').toBe('Stopped');
  // Every stop/ rule judges the stop at the test's end, as every rule judges every test.
});
