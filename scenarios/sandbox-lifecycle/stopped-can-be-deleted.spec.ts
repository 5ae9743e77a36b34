import { DriverError, expect, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';
import { driverAnswer } from './driver-answer.ts';
import { expectAllGone, ownedObjects } from './owned-objects.ts';

test('stopped-can-be-deleted: deleting a stopped sandbox removes everything it owned; deleting it again changes nothing', async ({ sandboxes, driver, cluster, timeline, sandboxApiVersion }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'deleteme', command: RECORDING_MAIN_COMMAND }));
  const objects = await cluster.objects(sandbox);
  await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(await timeline.step('delete the stopped sandbox', () => driver.delete(sandbox.id))).toBe(true);

  const { namespace } = objects;
  const owned = ownedObjects(objects, sandboxApiVersion);
  await timeline.step('everything it owned is gone', async () => {
    await expectAllGone(cluster, namespace, owned);
  });
  // A delete of a deleted sandbox finds nothing: deleted=false (OpenShell's driver), or NOT_FOUND (README.md beside this file).
  const again = await driverAnswer(timeline.step('delete again', () => driver.delete(sandbox.id)));
  if (again instanceof DriverError) expect(again.code, again.message).toBe('NOT_FOUND');
  else expect(again, 'a delete of a deleted sandbox deletes nothing').toBe(false);
  await expect(timeline).toHold('delete/repeated-delete-changes-nothing');
  await expect(driver.get(sandbox.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});
