import { created, deleteRequested, DriverError, expect, test } from '../../fixtures/conformance.ts';
import { driverAnswer } from './driver-answer.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/**
 * A repeated call changes nothing (README.md beside this file: what a driver answers to each).
 * A stop of a stopped sandbox answers as the first did, Stopped, and creates, deletes and resumes
 * nothing (stop/repeated-stop-changes-nothing). Nothing "written" is not asserted: OpenShell's
 * driver records the stop on the Sandbox again (its annotations) before it finds nothing to do.
 */
test('stop-is-idempotent: a stop of a stopped sandbox answers Stopped and creates or deletes nothing', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'stoptwice', command: RECORDING_MAIN_COMMAND }));
  expect((await timeline.step('stop', () => driver.stop(sandbox.id))).phase).toBe('Stopped');

  const again = await timeline.step('stop again', () => driver.stop(sandbox.id));
  expect(again.phase, 'a stop of a stopped sandbox answers as the first did').toBe('Stopped');
  await expect(timeline).not.toHappen(created({ sandbox }), { during: 'stop again' });
  await expect(timeline).not.toHappen(deleteRequested({ sandbox, resource: 'sandboxes' }), { during: 'stop again' });
  await expect(timeline).toHold('stop/repeated-stop-changes-nothing');
});

/**
 * A start of a sandbox that is already running installs nothing: the reference driver and
 * OpenShell's answer FAILED_PRECONDITION (`cannot rotate a running workload Pod; stop the sandbox
 * first`); a driver may also answer Ready having done nothing, as OpenShell's gateway answers a
 * start of a Ready sandbox itself (start/repeated-start-changes-nothing).
 */
test('stop-is-idempotent: a start of a running sandbox answers FAILED_PRECONDITION or Ready and creates or deletes nothing', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'starttwice', command: RECORDING_MAIN_COMMAND }));
  await timeline.step('stop', () => driver.stop(sandbox.id));
  expect((await timeline.step('start', () => driver.start(sandbox.id))).phase).toBe('Ready');
  await expect(timeline).toHappenTimes(created({ role: 'supervisor' }), 1, { during: 'start' });

  const again = await driverAnswer(timeline.step('start again', () => driver.start(sandbox.id)));
  if (again instanceof DriverError) expect(again.code, again.message).toBe('FAILED_PRECONDITION');
  else expect(again.phase).toBe('Ready');
  await expect(timeline).not.toHappen(created({ sandbox }), { during: 'start again' });
  await expect(timeline).not.toHappen(deleteRequested({ sandbox }), { during: 'start again' });
  await expect(timeline).toHold('start/repeated-start-changes-nothing');
});
