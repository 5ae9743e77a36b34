import { expect, invariantsIn, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/**
 * The ordering OpenShell#3421 got wrong, checked from watched Pod, Sandbox and Secret events:
 * the supervisor must clean up through the workload's boundary and be gone before the
 * workload is suspended.
 */
test('stop-ordering: the supervisor is gone before the workload is suspended', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create the sandbox', () => sandboxes.create({ name: 'ordering', command: RECORDING_MAIN_COMMAND }));
  expect(sandbox.phase).toBe('Ready');

  // A failing stop must not hide which ordering rule broke, so the error is checked last.
  const stopped = await timeline.step('stop the sandbox', () => driver.stop(sandbox.id)).then(
    (s) => ({ sandbox: s, error: undefined }),
    (error: Error) => ({ sandbox: undefined, error }),
  );

  for (const invariant of invariantsIn('stop/')) {
    await expect.soft(timeline, invariant.title).toHold(invariant.id);
  }
  expect(stopped.error?.message, 'the stop itself').toBeUndefined();
  expect(stopped.sandbox?.phase).toBe('Stopped');
});
