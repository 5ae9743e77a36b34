import { expect, faultSchedule, invariantsIn, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from '../sandbox-lifecycle/main-command.ts';

/**
 * Sieve's intermediate state, on the stop path: the driver is SIGKILLed (in process: halted)
 * right after the API server answered the write that turns the Sandbox's spec suspended — the
 * write landed, the driver never saw the answer — and started afresh, as its Deployment would.
 * The stop that was running fails as its connection drops; a stop on the fresh driver must
 * finish it in order from what the Sandbox records, and delete the generation Secrets the
 * killed one never reached (`--driver resume-skips-cleanup` leaves them and fails here naming
 * stop/generation-secrets-gone-on-return).
 */
test.use({
  faultSchedule: faultSchedule(
    [
      {
        id: 'crash-after-suspension',
        trigger: { on: 'request', match: { object: { role: 'sandbox' }, suspends: true }, at: 'answered' },
        fault: { kind: 'crash' },
      },
    ],
    'the driver killed right after its suspension write landed',
  ),
});

test('crash-after-suspension-write: killed right after its suspension write lands, a fresh driver finishes the stop in order and cleans up', async ({ sandboxes, driver, timeline, schedule }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'crashsusp', command: RECORDING_MAIN_COMMAND }));
  // Not a step named after the call: the call is cut short by the crash, and the stop/ rules judge the call that returns.
  const cut = await timeline.step('the driver is killed right after its suspension write lands', () => driver.stop(sandbox.id)).then(
    () => undefined,
    (error: Error & { code?: string }) => error,
  );
  expect(schedule.hasFired('crash-after-suspension'), 'the crash came right after the suspension write').toBe(true);
  expect(cut, 'the call on the killed driver cannot have finished').toBeInstanceOf(Error);
  const stopped = await timeline.step('stop again on the fresh driver', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
  for (const invariant of invariantsIn('stop/')) await expect.soft(timeline, invariant.title).toHold(invariant.id);
});
