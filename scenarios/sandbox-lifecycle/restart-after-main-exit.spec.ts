import { expect, test, workloadEndsWithMainCommand } from '../../fixtures/conformance.ts';
import { inWorkspace } from './main-command.ts';

/**
 * A main command that records each run; the first run exits 3 once the test says so (a file in
 * the workspace), later ones stay up (a marker in the workspace, which outlives the generation).
 */
const EXITS_ONCE = [
  'sh',
  '-c',
  `echo started >> ${inWorkspace('runs')}; if [ ! -e ${inWorkspace('exited-once')} ]; then while [ ! -e ${inWorkspace('exit-now')} ]; do sleep 0.2; done; touch ${inWorkspace('exited-once')}; exit 3; fi; exec sleep 100000`,
];

/**
 * The supervisor grace this sandbox asks for (driver_config), short: once the main process exited
 * the boundary is gone, so the start's stop of the old generation waits the grace out — its
 * supervisor cannot clean up and is SIGKILLed (exit 137 by design here). The order checked does
 * not depend on its length; the lanes' 10 s would make this the lane's longest wait.
 */
const SUPERVISOR_GRACE_SECONDS = 2;

/**
 * OpenShell#3308: a sandbox whose main process exited by itself (the gateway's Error, derived
 * from `Finished=True`) can be started again, and then stopped. The workload here ends with its
 * main command (EXIT_WITH_MAIN_COMMAND), so its Pod finishes and Agent Sandbox reports Finished.
 */
test('restart-after-main-exit: a sandbox whose main process exited can be started again and stopped', async ({ sandboxes, driver, cluster, timeline }) => {
  const created = await timeline.step('create', () => sandboxes.create({ name: 'mainexit', command: EXITS_ONCE, environment: workloadEndsWithMainCommand(), supervisorGraceSeconds: SUPERVISOR_GRACE_SECONDS }));
  const { id } = created;
  await timeline.step('the main process exits by itself', async () => {
    expect((await cluster.exec(created, ['sh', '-c', `touch ${inWorkspace('exit-now')}`])).exitCode).toBe(0);
    await expect.poll(async () => (await driver.get(id)).phase, { message: 'the sandbox should show Error once its main process exited', timeout: 60_000 }).toBe('Error');
  });

  const restarted = await timeline.step('start from Error', () => driver.start(id));
  expect(restarted.phase).toBe('Ready');
  const runs = await cluster.exec(restarted, ['sh', '-c', `cat ${inWorkspace('runs')}`]);
  expect(runs.stdout.trim().split('\n'), 'the main command ran again in the new generation').toEqual(['started', 'started']);

  const stopped = await timeline.step('stop', () => driver.stop(id));
  expect(stopped.phase).toBe('Stopped');
});
