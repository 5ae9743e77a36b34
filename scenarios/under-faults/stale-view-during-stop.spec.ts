import { expect, faultSchedule, supervisorCleanupTakes, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from '../sandbox-lifecycle/main-command.ts';

/** The supervisor's clean-up: the stop's wait for its Pod lasts at least this long. */
const CLEANUP_MS = 3_000;

/**
 * Sieve's stale state, on the stop path: from the moment the driver deletes the supervisor Pod,
 * every read and watch of the driver that the API allows to be answered stale (a GET or LIST
 * with resourceVersion "0" or not-older-than, a watch started from one) is answered as a
 * lagging API server replica answers it — as of the revision when the test began, before the
 * sandbox existed. A consistent read is never answered stale: a real API server never does that.
 * A driver that decides "the supervisor is gone" from such a read suspends the workload while
 * the supervisor still cleans up (`--driver stale-supervisor-read` fails here naming
 * stop/suspend-after-supervisor-gone); the order must hold.
 */
test.use({
  faultSchedule: faultSchedule(
    [
      {
        id: 'stale-view',
        trigger: { on: 'request', match: { verb: 'delete', object: { role: 'supervisorPod' } } },
        fault: { kind: 'stale-reads', view: 'start' },
      },
    ],
    'a lagging view from the supervisor Pod deletion on',
  ),
});

test('stale-view-during-stop: reads that may be stale are, while the stop waits for the supervisor; the order holds', { tag: '@faults' }, async ({ sandboxes, driver, timeline, schedule }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'staleview', command: RECORDING_MAIN_COMMAND, environment: supervisorCleanupTakes(CLEANUP_MS) }));
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  test.skip(!schedule.hasFired('stale-view'), 'the driver never sent a DELETE of the supervisor Pod, so the stale view never began: nothing was judged under it');
  expect(stopped.phase, 'the stop itself').toBe('Stopped');
  // Every stop/ rule judges the stop at the test's end, as every rule judges every test.
});
