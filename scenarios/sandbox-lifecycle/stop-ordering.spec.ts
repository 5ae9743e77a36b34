import { expect, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/**
 * The ordering OpenShell#3421 got wrong, checked from watched Pod, Sandbox and Secret events:
 * the supervisor must clean up through the workload's boundary and be gone before the
 * workload is suspended. Every stop/ rule judges it at the test's end (as every rule judges
 * every test); a violated one fails it by name, whether or not the stop itself failed.
 */
test('stop-ordering: the supervisor is gone before the workload is suspended', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create the sandbox', () => sandboxes.create({ name: 'ordering', command: RECORDING_MAIN_COMMAND }));
  expect(sandbox.phase).toBe('Ready');

  const stopped = await timeline.step('stop the sandbox', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
});
