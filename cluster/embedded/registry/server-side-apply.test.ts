import { expect, test } from '@playwright/test';
import { bareObjectApi, refusal } from '../test-kit.ts';

/** Field ownership through the object API: the conflict Status (causes per field), force, Update entries. */

test('a conflict is 409 Conflict with one FieldManagerConflict cause per field; nothing is written', () => {
  const api = bareObjectApi('ns');
  const cms = api.target('v1', 'configmaps', 'ns');
  api.patch(cms, 'c', 'apply', { metadata: { name: 'c' }, data: { a: '1', b: '2' } }, { fieldManager: 'first' });
  api.patch(cms, 'c', 'merge', { data: { b: '20' } }, { fieldManager: 'editor' });
  const rv = api.get(cms, 'c').metadata.resourceVersion;
  const error = refusal(() => api.patch(cms, 'c', 'apply', { metadata: { name: 'c' }, data: { a: '9', b: '9' } }, { fieldManager: 'second' }));
  expect(error.code).toBe(409);
  expect(error.reason).toBe('Conflict');
  expect(error.message).toBe('Apply failed with 2 conflicts: conflicts with "editor" using v1:\n- .data.b\nconflicts with "first":\n- .data.a');
  expect(error.details?.causes).toEqual([
    { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.a' },
    { reason: 'FieldManagerConflict', message: 'conflict with "editor" using v1', field: '.data.b' },
  ]);
  expect(api.get(cms, 'c').metadata.resourceVersion).toBe(rv);
  const forced = api.patch(cms, 'c', 'apply', { metadata: { name: 'c' }, data: { a: '9', b: '9' } }, { fieldManager: 'second', force: true }).object;
  expect(forced.data).toEqual({ a: '9', b: '9' });
  expect((forced.metadata.managedFields as { manager: string }[]).map((e) => e.manager)).toEqual(['second']);
});

test('an update takes the changed fields from every other manager; writes without a manager record none', () => {
  const api = bareObjectApi('ns');
  const cms = api.target('v1', 'configmaps', 'ns');
  api.create(cms, { metadata: { name: 'u', labels: { app: 'x' } }, data: { a: '1', b: '2' } }, { fieldManager: 'creator' });
  const created = api.get(cms, 'u');
  expect(created.metadata.managedFields).toEqual([
    expect.objectContaining({ manager: 'creator', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } } }),
  ]);
  const updated = api.update(cms, 'u', { ...created, data: { a: '1', b: '3' } }).object;
  expect((updated.metadata.managedFields as { fieldsV1: unknown }[])[0].fieldsV1).toEqual({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  const plain = api.create(cms, { metadata: { name: 'plain' }, data: { a: '1' } }).object;
  expect(plain.metadata.managedFields).toBeUndefined();
});
