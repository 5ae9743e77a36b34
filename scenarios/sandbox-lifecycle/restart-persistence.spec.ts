import { expect, started, test } from '../../fixtures/conformance.ts';
import { inWorkspace, RECORDING_MAIN_COMMAND } from './main-command.ts';

test('restart-persistence: the workspace survives stop and start, and the main process runs once per start', async ({ sandboxes, driver, cluster, timeline }) => {
  const sentinel = `sentinel-${Date.now().toString(36)}`;
  const sandbox = await timeline.step('create the sandbox', () => sandboxes.create({ name: 'persist', command: RECORDING_MAIN_COMMAND }));
  expect(sandbox.phase).toBe('Ready');

  await timeline.step('write a sentinel into the workspace', async () => {
    const write = await cluster.exec(sandbox, ['sh', '-c', `echo ${sentinel} > ${inWorkspace('sentinel')}`]);
    expect(write.exitCode, write.stderr).toBe(0);
  });

  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');

  await timeline.step('exec fails while stopped', async () => {
    const attempt = await cluster.exec(sandbox, ['true']).then(
      (r) => r.exitCode !== 0,
      () => true,
    );
    expect(attempt, 'exec into a stopped sandbox must fail: its workload Pod is gone').toBe(true);
  });

  const restarted = await timeline.step('start', () => driver.start(sandbox.id));
  expect(restarted.phase).toBe('Ready');

  await timeline.step('read the sentinel and the run record back', async () => {
    const read = await cluster.exec(restarted, ['sh', '-c', `cat ${inWorkspace('sentinel')}; echo ---; cat ${inWorkspace('runs')}`]);
    expect(read.exitCode, read.stderr).toBe(0);
    const [written, runs] = read.stdout.split('---\n');
    expect(written.trim()).toBe(sentinel);
    expect(runs.trim().split('\n'), 'the main process ran exactly twice (create, start)').toEqual(['started', 'started']);
  });
  await expect(timeline).toHappenTimes(started({ role: 'workload' }), 2);
});
