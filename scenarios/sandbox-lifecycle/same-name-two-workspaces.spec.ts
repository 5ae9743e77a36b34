import { ANNOTATION, expect, test, type Cluster, type Sandbox } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/** A suffix that keeps this test's sandbox names apart from a parallel test's in a shared operator namespace. */
const suffix = () => Math.random().toString(36).slice(2, 6);

/** The uid of each of the sandbox's objects, read through the lane's role selectors. */
async function uids(cluster: Cluster, sandbox: Sandbox, apiVersion: string): Promise<Record<string, string | undefined>> {
  const objects = await cluster.objects(sandbox);
  const uid = async (v: string, kind: string, name?: string) => (name ? (await cluster.get(v, kind, objects.namespace, name))?.metadata?.uid : undefined);
  return {
    sandbox: await uid(apiVersion, 'Sandbox', objects.sandbox),
    supervisorPod: await uid('v1', 'Pod', objects.supervisorPod),
    workloadPod: await uid('v1', 'Pod', objects.workloadPod),
  };
}

/**
 * OpenShell#3556: a sandbox's name is unique only within its workspace; the id is authoritative.
 * Two sandboxes with one name in two workspaces (managed: two namespaces; operator: two labelled
 * namespaces; shared: two `{workspace}--{name}` Sandboxes in the one namespace): every call by id
 * touches only its own, and a call aimed at a sandbox since deleted and re-created under the same
 * name (`stale-call`) leaves the new one alone.
 */
test('same-name-two-workspaces: calls by id touch only their own sandbox; a stale call spares the re-created one', async ({ sandboxes, driver, cluster, timeline, workspace, otherWorkspace, sandboxApiVersion }) => {
  const name = `twin-${suffix()}`;
  const mine = await timeline.step('create in the first workspace', () => sandboxes.create({ name, workspace, command: RECORDING_MAIN_COMMAND }));
  const twin = await timeline.step('create in the second workspace', () => sandboxes.create({ name, workspace: otherWorkspace, command: RECORDING_MAIN_COMMAND }));
  expect(twin.id).not.toBe(mine.id);
  const twinBefore = await uids(cluster, twin, sandboxApiVersion);

  await timeline.step('stop the first', () => driver.stop(mine.id));
  expect((await driver.get(twin.id)).phase, 'the twin after the first one stopped').toBe('Ready');
  expect(await timeline.step('delete the first', () => driver.delete(mine.id))).toBe(true);
  expect((await driver.get(twin.id)).phase, 'the twin after the first one was deleted').toBe('Ready');
  expect(await uids(cluster, twin, sandboxApiVersion), 'the twin keeps its objects').toEqual(twinBefore);

  const again = await timeline.step('create again under the first one\'s name', () => sandboxes.create({ name, workspace, command: RECORDING_MAIN_COMMAND }));
  const againBefore = await uids(cluster, again, sandboxApiVersion);
  const stale = await timeline.step('stale-call stop with the deleted sandbox\'s id', () => driver.stop(mine.id)).then(
    () => undefined,
    (error: Error & { code?: string }) => error,
  );
  expect(stale?.code, 'the id is authoritative: the deleted sandbox is not found, whatever shares its name').toBe('NOT_FOUND');
  await expect(timeline).toHold('identity/stale-call-spares-replacement');
  expect((await driver.get(again.id)).phase).toBe('Ready');
  expect(await uids(cluster, again, sandboxApiVersion), 'the re-created sandbox keeps its objects').toEqual(againBefore);
  expect(await uids(cluster, twin, sandboxApiVersion), 'and so does the twin').toEqual(twinBefore);
});

/**
 * The fault: the supervisor Pod is replaced under its own name (deleted by someone else and
 * re-created) before the driver's stop reads it. The Pod the driver then finds is not the one
 * the Sandbox recorded (`sandbox-runtime-supervisor-uid`); it must survive the stop, whose DELETE
 * carries the recorded Pod's UID as its precondition. The stop's step is a `stale-call`: its
 * supervisor deletion is aimed at a Pod that is gone.
 */
test('same-name-two-workspaces: a supervisor Pod replaced under its name survives the stop', async ({ sandboxes, driver, cluster, timeline }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: `replaced-${suffix()}`, command: RECORDING_MAIN_COMMAND }));
  const objects = await cluster.objects(sandbox);
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: objects.namespace, name: objects.supervisorPod! };
  const original = (await cluster.get(ref.apiVersion, ref.kind, ref.namespace, ref.name))!;
  const cr = await cluster.get(original.metadata!.ownerReferences![0].apiVersion, 'Sandbox', objects.namespace, objects.sandbox!);
  expect(cr?.metadata?.annotations?.[ANNOTATION.supervisorUid], 'the Sandbox records its supervisor Pod UID').toBe(original.metadata!.uid);

  const replacement = await timeline.step('replace the supervisor Pod under its name (someone else)', async () => {
    await cluster.remove(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    await cluster.waitFor(ref, (pod) => pod === undefined, { what: 'the original supervisor Pod should be gone' });
    const { name, namespace, labels, annotations, ownerReferences } = original.metadata!;
    const spec = { ...original.spec, nodeName: undefined, schedulingGates: undefined };
    return cluster.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels, annotations, ownerReferences }, spec });
  });
  expect(replacement.metadata?.uid).not.toBe(original.metadata!.uid);

  const stopped = await timeline.step('stale-call stop after the replacement', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
  await expect(timeline).toHold('identity/stale-call-spares-replacement');
  const survivor = await cluster.get(ref.apiVersion, ref.kind, ref.namespace, ref.name);
  expect(survivor?.metadata?.uid, 'the replacement is still there').toBe(replacement.metadata?.uid);
  expect(survivor?.metadata?.deletionTimestamp, 'and not being deleted').toBeUndefined();
  await cluster.remove(ref.apiVersion, ref.kind, ref.namespace, ref.name);
});
