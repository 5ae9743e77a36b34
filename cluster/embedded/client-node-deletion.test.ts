/**
 * The real @kubernetes/client-node (1.4.0) against the embedded cluster: delete preconditions,
 * finalizers, the three propagation policies and namespace deletion.
 */
import { expect, test } from '@playwright/test';
import { ClientNodeFixture, failure, mergePatch, podBody, readOrGone } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('deletion', () => {
  test('preconditions: uid and resourceVersion mismatches are 409 Precondition failed', async () => {
    const ns = await client.namespace('precond');
    const cm = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' } } });
    const wrongUid = await failure(client.core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns, body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } }));
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.status.reason).toBe('Conflict');
    expect(wrongUid.status.message).toContain('Precondition failed');
    const wrongRv = await failure(client.core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns, body: { preconditions: { resourceVersion: '1' } } }));
    expect(wrongRv.code).toBe(409);
    expect(wrongRv.status.message).toContain('Precondition failed');
    const status = await client.core.deleteNamespacedConfigMap({
      name: 'cm',
      namespace: ns,
      body: { preconditions: { uid: cm.metadata!.uid, resourceVersion: cm.metadata!.resourceVersion } },
    });
    expect(status.status).toBe('Success');
    expect(status.details?.uid).toBe(cm.metadata!.uid);
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'cm', namespace: ns }))).toBe('gone');
    expect((await failure(client.core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns }))).code).toBe(404);
  });

  test('finalizers hold an object with a deletionTimestamp until they are patched away', async () => {
    const ns = await client.namespace('fin');
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await client.core.deleteNamespacedConfigMap({ name: 'held', namespace: ns });
    const held = await client.core.readNamespacedConfigMap({ name: 'held', namespace: ns });
    expect(held.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(held.metadata?.finalizers).toEqual(['example.com/hold']);
    // No new finalizers on an object that is going away.
    const add = await failure(client.core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } } }, mergePatch));
    expect(add.code).toBe(422);
    await client.core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'held', namespace: ns }))).toBe('gone');
  });

  async function ownerAndDependent(ns: string, options: { blockOwnerDeletion?: boolean; dependentFinalizer?: boolean } = {}) {
    const owner = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner' } } });
    const dependent = await client.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'dependent',
          finalizers: options.dependentFinalizer ? ['example.com/slow'] : undefined,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: options.blockOwnerDeletion }],
        },
      },
    });
    return { owner, dependent };
  }

  test('propagationPolicy Background: the owner goes at once, the dependent after it', async () => {
    const ns = await client.namespace('bg');
    await ownerAndDependent(ns);
    await client.core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Background' });
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
    await expect.poll(() => readOrGone(() => client.core.readNamespacedConfigMap({ name: 'dependent', namespace: ns }))).toBe('gone');
  });

  test('propagationPolicy Orphan: the dependent stays, without its owner reference', async () => {
    const ns = await client.namespace('orphan');
    await ownerAndDependent(ns);
    await client.core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Orphan' });
    await expect.poll(() => readOrGone(() => client.core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
    const dependent = await client.core.readNamespacedConfigMap({ name: 'dependent', namespace: ns });
    expect(dependent.metadata?.ownerReferences ?? []).toEqual([]);
    expect(dependent.metadata?.deletionTimestamp).toBeUndefined();
  });

  test('propagationPolicy Foreground: the owner waits, with foregroundDeletion, until blocking dependents are gone', async () => {
    const ns = await client.namespace('fg');
    await ownerAndDependent(ns, { blockOwnerDeletion: true, dependentFinalizer: true });
    await client.core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Foreground' });
    const owner = await client.core.readNamespacedConfigMap({ name: 'owner', namespace: ns });
    expect(owner.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(owner.metadata?.finalizers).toContain('foregroundDeletion');
    // The garbage collector deletes the dependent; its own finalizer keeps it (and so the owner) around.
    await expect.poll(async () => (await client.core.readNamespacedConfigMap({ name: 'dependent', namespace: ns })).metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const stillOwner = await client.core.readNamespacedConfigMap({ name: 'owner', namespace: ns });
    expect(stillOwner.metadata?.finalizers).toContain('foregroundDeletion');
    await client.core.patchNamespacedConfigMap({ name: 'dependent', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'dependent', namespace: ns }))).toBe('gone');
    await expect.poll(() => readOrGone(() => client.core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
  });

  test('namespace deletion: Terminating, contents deleted, no new contents, then the namespace goes', async () => {
    const ns = await client.namespace('nsdel');
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'plain' } } });
    await client.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'secret' }, stringData: { a: 'b' } } });
    await client.core.createNamespacedPod({ namespace: ns, body: podBody('pod') });
    // A finalizer keeps one object, and so the namespace, around long enough to look at.
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await client.core.deleteNamespace({ name: ns });
    const terminating = await client.core.readNamespace({ name: ns });
    expect(terminating.status?.phase).toBe('Terminating');
    expect(terminating.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const refused = await failure(client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'late' } } }));
    expect(refused.code).toBe(403);
    expect(refused.status.message).toContain('being terminated');
    await expect.poll(async () => (await client.core.listNamespacedPod({ namespace: ns })).items.length).toBe(0);
    await expect.poll(async () => (await client.core.listNamespacedSecret({ namespace: ns })).items.length).toBe(0);
    await expect
      .poll(async () => (await client.core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => [c.metadata!.name, !!c.metadata!.deletionTimestamp]))
      .toEqual([['held', true]]);
    expect((await client.core.readNamespace({ name: ns })).status?.phase).toBe('Terminating');
    await client.core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    await expect.poll(() => readOrGone(() => client.core.readNamespace({ name: ns }))).toBe('gone');
  });
});
