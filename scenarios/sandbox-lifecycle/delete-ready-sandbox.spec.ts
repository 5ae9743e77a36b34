import { expect, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';
import { expectAllGone, ownedObjects } from './owned-objects.ts';

/**
 * OpenShell#3421 on the delete path: deleting a Ready sandbox must not SIGKILL its supervisor.
 * The Sandbox deleted at once lets garbage collection take both Pods together; the reference
 * driver stops in order first (supervisor gone while the boundary is up, then the workload),
 * then deletes the Sandbox. Everything it owned goes, and nothing of it is left in the namespace.
 */
test('delete-ready-sandbox: deleting a Ready sandbox lets its supervisor clean up, and leaves nothing behind', async ({ sandboxes, driver, cluster, timeline, sandboxApiVersion }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'deleteready', command: RECORDING_MAIN_COMMAND }));
  expect(sandbox.phase).toBe('Ready');
  const objects = await cluster.objects(sandbox);
  expect(await timeline.step('delete the Ready sandbox', () => driver.delete(sandbox.id))).toBe(true);

  const { namespace } = objects;
  const owned = ownedObjects(objects, sandboxApiVersion);
  await timeline.step('everything it owned is gone', async () => {
    await expectAllGone(cluster, namespace, owned);
    // Found by the lane's role selectors, not by the names above: nothing of the sandbox is left.
    await expect.poll(async () => await cluster.objects(sandbox), { message: `nothing of sandbox ${sandbox.id} left in ${namespace}`, timeout: 60_000 }).toEqual({ namespace, sandbox: undefined, supervisorPod: undefined, workloadPod: undefined, secrets: [] });
  });
  await expect(driver.get(sandbox.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});
