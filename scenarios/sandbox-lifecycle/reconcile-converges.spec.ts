import { expect, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

const SANDBOXES = 3;
const PASSES = 6;

/**
 * OpenShell#3525: reconciling sandboxes that are already stopped must converge. Several stopped
 * sandboxes, then many reconciliation passes inside the step `reconcile-window`: no Sandbox, Pod
 * or Secret gets a new resourceVersion (reconcile/settled-sandboxes-unwritten), and the driver
 * logs no warning about them over and over (each pass logging the same line is the storm #3525
 * reported).
 */
test('reconcile-converges: many reconciliation passes over stopped sandboxes write nothing and repeat no warning', async ({ sandboxes, driver, driverControl, timeline }) => {
  const stopped = [];
  for (let i = 0; i < SANDBOXES; i++) {
    const sandbox = await timeline.step('create', () => sandboxes.create({ name: `settled-${i}`, command: RECORDING_MAIN_COMMAND }));
    stopped.push(await timeline.step('stop', () => driver.stop(sandbox.id)));
  }
  expect(stopped.map((s) => s.phase)).toEqual(stopped.map(() => 'Stopped'));

  const logBefore = driverControl.log().length;
  await timeline.step('reconcile-window', async () => {
    for (let pass = 0; pass < PASSES; pass++) await driverControl.reconcile();
  });
  const ids = stopped.map((s) => s.id);
  const aboutThem = driverControl.log().slice(logBefore).filter((line) => ids.some((id) => line.includes(id)));
  const repeated = [...new Set(aboutThem.filter((line, i) => aboutThem.indexOf(line) !== i))];
  expect(repeated, `lines the driver logged more than once about the stopped sandboxes during ${PASSES} passes`).toEqual([]);
  await expect(timeline).toHold('reconcile/settled-sandboxes-unwritten');
  for (const sandbox of stopped) expect((await (await driverControl.current()).get(sandbox.id)).phase, `sandbox ${sandbox.id} after the passes`).toBe('Stopped');
});
