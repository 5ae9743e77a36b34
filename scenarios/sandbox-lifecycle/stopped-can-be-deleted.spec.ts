import { expect, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

test('stopped-can-be-deleted: deleting a stopped sandbox removes everything it owned', async ({ sandboxes, driver, cluster, timeline, sandboxApiVersion }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'deleteme', command: RECORDING_MAIN_COMMAND }));
  const objects = await cluster.objects(sandbox);
  await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(await timeline.step('delete the stopped sandbox', () => driver.delete(sandbox.id))).toBe(true);

  const { namespace } = objects;
  const owned: [string, string, string][] = [
    [sandboxApiVersion, 'Sandbox', objects.sandbox!],
    ['v1', 'Pod', objects.workloadPod!],
    ['v1', 'Pod', objects.supervisorPod!],
    ['v1', 'PersistentVolumeClaim', `workspace-${objects.sandbox}`],
    ...objects.secrets.map((name): [string, string, string] => ['v1', 'Secret', name]),
  ];
  await timeline.step('everything it owned is gone', async () => {
    for (const [apiVersion, kind, name] of owned) {
      await expect.poll(async () => (await cluster.get(apiVersion, kind, namespace, name)) === undefined, { message: `${kind} ${namespace}/${name} should be gone`, timeout: 60_000 }).toBe(true);
    }
  });
  await expect(driver.get(sandbox.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});
