import { expect, holds, supervisorCleanupTakes, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/** The supervisor's grace period here: room for a clean-up longer than the API headroom. */
const SUPERVISOR_GRACE_SECONDS = 15;

/**
 * Stop liveness: the supervisor's clean-up takes longer than the API headroom the driver adds to
 * deadlines, but less than its grace period. The stop must wait for it — the supervisor Pod gone
 * before the suspension, the supervisor exiting 0 — and succeed. A driver whose supervisor
 * deadline is the API headroom alone (`--driver headroom-deadline`) suspends while the clean-up
 * still runs and fails here naming stop/suspend-after-supervisor-gone and stop/supervisor-exit-clean.
 */
test('slow-supervisor-cleanup: a clean-up longer than the API headroom, inside the grace period, is waited for', async ({ sandboxes, driver, timeline }) => {
  const headroomMs = timeline.settings.apiHeadroomSeconds * 1000;
  // Longer than the headroom by 2 s; inside the grace with the supervisor's own request timeout (1 s) to spare.
  const cleanupMs = headroomMs + 2_000;
  test.skip(cleanupMs + 2_000 > SUPERVISOR_GRACE_SECONDS * 1000, `the lane's API headroom (${timeline.settings.apiHeadroomSeconds} s) leaves no clean-up longer than it inside a ${SUPERVISOR_GRACE_SECONDS} s grace`);
  const sandbox = await timeline.step('create', () =>
    sandboxes.create({ name: 'slowclean', command: RECORDING_MAIN_COMMAND, environment: supervisorCleanupTakes(cleanupMs), supervisorGraceSeconds: SUPERVISOR_GRACE_SECONDS }),
  );

  // The stop/ rules judge it at the test's end, naming the one a driver broke whether or not its stop failed.
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(stopped.phase, 'the stop waits for the clean-up and succeeds').toBe('Stopped');
  const [deadline] = await timeline.judge(holds('stop/supervisor-gone-within-deadline'));
  expect(deadline?.message, 'judged against the rendered grace, not the headroom alone').toContain(`grace ${SUPERVISOR_GRACE_SECONDS} s + headroom ${timeline.settings.apiHeadroomSeconds} s`);
});
