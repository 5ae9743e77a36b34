/**
 * Writes whose preconditions do not hold, over the wire: resourceVersion on create, namespace
 * mismatches, missing or Terminating namespaces, duplicates, stale updates, failed delete
 * preconditions, failing JSON patch tests, strategic merge on a custom resource and apply without
 * a field manager each get kube-apiserver's Status, and nothing is stored. Raw HTTPS.
 */

import { expect } from '@playwright/test';
import { configMap, CONFIGMAPS, create, installSandboxCrd, refused, sandbox, SANDBOXES, settle, test } from './test-kit.ts';

test.describe('write preconditions', () => {
  test('create with metadata.resourceVersion set: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('versioned', { metadata: { name: 'versioned', resourceVersion: '5' } }) }),
      400,
      'BadRequest',
      'resourceVersion should not be set on objects to be created',
    );
  });

  test('the namespace in the body differs from the URL: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('elsewhere', { metadata: { name: 'elsewhere', namespace: 'kube-system' } }) }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    expect(cluster.store.get('configmaps', 'kube-system', 'elsewhere')).toBeUndefined();
  });

  test('create in a namespace that does not exist: 404 namespaces "x" not found', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces/x/configmaps', { body: configMap('orphan') }),
      404,
      'NotFound',
      'namespaces "x" not found',
    );
    expect(reply.body.details).toEqual({ name: 'x', kind: 'namespaces' });
  });

  test('create in a Terminating namespace: 403 Forbidden', async ({ cluster, call }) => {
    await create(call, '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    // A finalizer on an object inside keeps the namespace Terminating.
    await create(call, '/api/v1/namespaces/doomed/configmaps', configMap('held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    const deleted = await call('DELETE', '/api/v1/namespaces/doomed');
    expect(deleted.status).toBe(200);
    expect(deleted.body.status.phase).toBe('Terminating');
    await expect.poll(() => cluster.store.get('configmaps', 'doomed', 'held')?.metadata.deletionTimestamp).toBeTruthy();
    await settle(cluster);
    const reply = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces/doomed/configmaps', { body: configMap('late') }),
      403,
      'Forbidden',
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    expect(reply.body.details).toEqual({
      name: 'late',
      kind: 'configmaps',
      causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }],
    });
  });

  test('a duplicate create: 409 AlreadyExists', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('dup'));
    const reply = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('dup', { data: { a: 'other' } }) }),
      409,
      'AlreadyExists',
      'configmaps "dup" already exists',
    );
    expect(reply.body.details).toEqual({ name: 'dup', kind: 'configmaps' });
    expect(cluster.store.get('configmaps', 'default', 'dup')?.data).toEqual({ a: '1' });
  });

  test('an update with a stale resourceVersion: 409 Conflict', async ({ cluster, call }) => {
    const first = await create(call, CONFIGMAPS, configMap('raced'));
    const stale = first.body;
    const moved = await call('PUT', `${CONFIGMAPS}/raced`, { body: { ...stale, data: { a: '2' } } });
    expect(moved.status).toBe(200);
    const reply = await refused(
      cluster,
      call,
      () => call('PUT', `${CONFIGMAPS}/raced`, { body: { ...stale, data: { a: '3' } } }),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "raced": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(reply.body.details).toEqual({ name: 'raced', kind: 'configmaps' });
    expect(cluster.store.get('configmaps', 'default', 'raced')?.data).toEqual({ a: '2' });
  });

  test('delete preconditions that do not hold: 409 Conflict', async ({ cluster, call }) => {
    const created = await create(call, CONFIGMAPS, configMap('guarded'));
    const { uid, resourceVersion } = created.body.metadata;
    await refused(
      cluster,
      call,
      () => call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "guarded": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${uid}`,
    );
    await refused(
      cluster,
      call,
      () => call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "guarded": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${resourceVersion}`,
    );
    expect(cluster.store.get('configmaps', 'default', 'guarded')).toBeDefined();
    const ok = await call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid, resourceVersion } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'guarded', kind: 'configmaps', uid } });
  });

  test('a JSON patch whose test operation fails: 422', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('tested'));
    await refused(
      cluster,
      call,
      () =>
        call('PATCH', `${CONFIGMAPS}/tested`, {
          contentType: 'application/json-patch+json',
          body: [
            { op: 'test', path: '/data/a', value: 'not-1' },
            { op: 'replace', path: '/data/a', value: '2' },
          ],
        }),
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    );
    expect(cluster.store.get('configmaps', 'default', 'tested')?.data).toEqual({ a: '1' });
  });

  test('strategic merge patch on a custom resource: 415', async ({ cluster, call }) => {
    await installSandboxCrd(call);
    await create(call, SANDBOXES, sandbox('smp'));
    await settle(cluster);
    const accepted = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
    await refused(
      cluster,
      call,
      () => call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/strategic-merge-patch+json', body: { spec: { operatingMode: 'Suspended' } } }),
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    );
    await refused(
      cluster,
      call,
      () => call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/json', body: { spec: { operatingMode: 'Suspended' } } }),
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    );
    // A merge patch does it.
    const merged = await call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/merge-patch+json', body: { spec: { operatingMode: 'Suspended' } } });
    expect(merged.status).toBe(200);
    expect(merged.body.spec.operatingMode).toBe('Suspended');
  });

  test('server-side apply without fieldManager: 422 on PatchOptions', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('PATCH', `${CONFIGMAPS}/applied`, { contentType: 'application/apply-patch+yaml', body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n' }),
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(reply.body.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      name: '',
      causes: [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }],
    });
    expect(cluster.store.get('configmaps', 'default', 'applied')).toBeUndefined();
    const applied = await call('PATCH', `${CONFIGMAPS}/applied?fieldManager=test`, {
      contentType: 'application/apply-patch+yaml',
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n',
    });
    expect(applied.status).toBe(201);
  });
});
