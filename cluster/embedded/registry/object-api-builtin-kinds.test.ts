/**
 * The built-in kinds' own rules through the in-process ObjectApi, as their kube-apiserver
 * strategies define them: Pod spec immutability and binding, immutable Secrets and ConfigMaps,
 * Secret stringData, Service cluster IPs.
 */

import { expect } from '@playwright/test';
import { refusal } from '../test-kit.ts';
import { podBody, targets, test } from './test-kit.ts';

test.describe('Pod spec rules and binding', () => {
  test('the spec is immutable but for images; scheduling gates can only be removed', ({ api }) => {
    const { pods } = targets(api);
    const created = api.create(pods, podBody('imm', { schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/b' }] })).object;
    const spec = created.spec as { containers: Record<string, unknown>[]; schedulingGates: { name: string }[] };

    const command = refusal(() => api.update(pods, 'imm', { ...created, spec: { ...spec, containers: [{ ...spec.containers[0], command: ['sleep', '1'] }] } }));
    expect(command.code).toBe(422);
    expect(command.reason).toBe('Invalid');
    expect(command.message).toMatch(/^Pod "imm" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/);
    expect(command.details?.causes?.[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });

    // nodeName is set through binding only.
    expect(refusal(() => api.patch(pods, 'imm', 'merge', { spec: { nodeName: 'node-1' } })).code).toBe(422);

    const image = api.update(pods, 'imm', { ...created, spec: { ...spec, containers: [{ ...spec.containers[0], image: 'busybox:1.37' }] } }).object;
    expect((image.spec as typeof spec).containers[0].image).toBe('busybox:1.37');

    const removed = api.patch(pods, 'imm', 'json', [{ op: 'remove', path: '/spec/schedulingGates/0' }]).object;
    expect((removed.spec as typeof spec).schedulingGates).toEqual([{ name: 'example.com/b' }]);

    const gate = refusal(() => api.patch(pods, 'imm', 'json', [{ op: 'add', path: '/spec/schedulingGates/-', value: { name: 'example.com/c' } }]));
    expect(gate.code).toBe(422);
    expect(gate.message).toBe(`Pod "imm" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/c'`);
    expect(gate.details?.causes).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.schedulingGates[1].name', message: "Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/c'" },
    ]);
  });

  test('binding is refused while gated, once bound, and while deleting (409 on pods/binding)', ({ api }) => {
    const { pods } = targets(api);
    api.create(pods, podBody('gated', { schedulingGates: [{ name: 'example.com/wait' }] }));
    const gated = refusal(() => api.bind(pods, 'gated', 'node-1'));
    expect(gated.code).toBe(409);
    expect(gated.reason).toBe('Conflict');
    expect(gated.message).toBe('Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates');
    expect(gated.details).toEqual({ name: 'gated', kind: 'pods/binding' });

    api.patch(pods, 'gated', 'merge', { spec: { schedulingGates: null } });
    const bound = api.bind(pods, 'gated', 'node-1');
    expect((bound.spec as { nodeName: string }).nodeName).toBe('node-1');
    expect((bound.status as { conditions: unknown[] }).conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'True' }));

    const again = refusal(() => api.bind(pods, 'gated', 'node-2'));
    expect(again.code).toBe(409);
    expect(again.message).toBe('Operation cannot be fulfilled on pods/binding "gated": pod gated is already assigned to node "node-1"');

    api.create(pods, podBody('leaving'));
    api.patch(pods, 'leaving', 'merge', { metadata: { finalizers: ['example.com/hold'] } });
    api.delete(pods, 'leaving');
    const deleting = refusal(() => api.bind(pods, 'leaving', 'node-1'));
    expect(deleting.code).toBe(409);
    expect(deleting.message).toBe('Operation cannot be fulfilled on pods/binding "leaving": pod leaving is being deleted, cannot be assigned to a host');

    expect(refusal(() => api.bind(pods, 'nobody', 'node-1')).code).toBe(404);
  });
});

test.describe('Secrets, ConfigMaps and Services', () => {
  test('an immutable ConfigMap keeps its data and its immutability', ({ api }) => {
    const { configMaps } = targets(api);
    const created = api.create(configMaps, { metadata: { name: 'frozen' }, immutable: true, data: { a: '1' } }).object;
    const data = refusal(() => api.update(configMaps, 'frozen', { ...created, data: { a: '2' } }));
    expect(data.code).toBe(422);
    expect(data.message).toBe('ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const thaw = refusal(() => api.patch(configMaps, 'frozen', 'merge', { immutable: false }));
    expect(thaw.code).toBe(422);
    expect(thaw.message).toBe('ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    expect(thaw.details?.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'immutable', message: 'Forbidden: field is immutable when `immutable` is set' }]);
    // Metadata can change, and it can be deleted.
    expect(api.patch(configMaps, 'frozen', 'merge', { metadata: { labels: { ok: 'yes' } } }).object.metadata.labels).toEqual({ ok: 'yes' });
    expect(api.get(configMaps, 'frozen').data).toEqual({ a: '1' });
    expect(api.delete(configMaps, 'frozen').removed).toBe(true);
    // Not immutable yet: becoming immutable is an ordinary update.
    api.create(configMaps, { metadata: { name: 'thawed' }, data: { a: '1' } });
    expect(api.patch(configMaps, 'thawed', 'merge', { immutable: true, data: { a: '2' } }).object).toMatchObject({ immutable: true, data: { a: '2' } });
  });

  test('an immutable Secret: data changes and thawing are refused (both causes at once)', ({ api }) => {
    const { secrets } = targets(api);
    api.create(secrets, { metadata: { name: 'sealed' }, immutable: true, stringData: { token: 't' } });
    const both = refusal(() => api.patch(secrets, 'sealed', 'merge', { immutable: false, stringData: { token: 'u' } }));
    expect(both.code).toBe(422);
    expect(both.message).toBe(
      'Secret "sealed" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
    );
    expect(both.details?.causes?.map((c) => c.field)).toEqual(['immutable', 'data']);
    expect(api.get(secrets, 'sealed').data).toEqual({ token: Buffer.from('t').toString('base64') });
  });

  test('Secret stringData is folded into base64 data and never stored', ({ api }) => {
    const { secrets } = targets(api);
    const created = api.create(secrets, {
      metadata: { name: 'creds' },
      data: { password: Buffer.from('old').toString('base64'), keep: Buffer.from('k').toString('base64') },
      stringData: { username: 'admin', password: 'hunter2' },
    }).object;
    expect(created.type).toBe('Opaque');
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({
      username: Buffer.from('admin').toString('base64'),
      password: Buffer.from('hunter2').toString('base64'),
      keep: Buffer.from('k').toString('base64'),
    });
    expect(api.store.get('secrets', 'default', 'creds')?.stringData).toBeUndefined();
    const patched = api.patch(secrets, 'creds', 'merge', { stringData: { username: 'root' } }).object;
    expect(patched.stringData).toBeUndefined();
    expect((patched.data as Record<string, string>).username).toBe(Buffer.from('root').toString('base64'));
  });

  test('Services get a cluster IP from 127.x; clusterIP None is kept; the IP cannot change', ({ api }) => {
    const { services } = targets(api);
    const a = api.create(services, { metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } }).object;
    const b = api.create(services, { metadata: { name: 'b' }, spec: { ports: [{ port: 80, targetPort: 8080 }] } }).object;
    const ipA = (a.spec as { clusterIP: string }).clusterIP;
    const ipB = (b.spec as { clusterIP: string }).clusterIP;
    expect(ipA).toMatch(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    expect(ipB).toMatch(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    expect(ipA).not.toBe(ipB);
    expect(a.spec).toMatchObject({ type: 'ClusterIP', clusterIPs: [ipA], ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] });
    const headless = api.create(services, { metadata: { name: 'headless' }, spec: { clusterIP: 'None', selector: { app: 'x' } } }).object;
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const moved = refusal(() => api.patch(services, 'a', 'merge', { spec: { clusterIP: '127.9.9.9' } }));
    expect(moved.code).toBe(422);
    expect(moved.details?.causes?.[0].field).toBe('spec.clusterIPs[0]');
    // Leaving it out of an update keeps it.
    const { clusterIP: _drop, clusterIPs: _drops, ...rest } = a.spec as Record<string, unknown>;
    expect((api.update(services, 'a', { ...a, spec: rest }).object.spec as { clusterIP: string }).clusterIP).toBe(ipA);
  });
});
