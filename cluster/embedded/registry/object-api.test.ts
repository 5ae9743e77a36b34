/**
 * Object semantics through the in-process ObjectApi, as kube-apiserver's generic registry and the
 * built-in strategies define them: metadata the server owns, one cluster-wide resourceVersion,
 * generation, status through /status, graceful Pod deletion, finalizers, immutability, garbage
 * collection, namespace deletion, consistent paginated lists and watch replay.
 * Controller effects (garbage collector, namespace controller) are awaited with expect.poll.
 */

import { expect, test as base } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import type { WatchEventType } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import type { ObjectApi, Target } from './object-api.ts';

const test = base.extend<{ cluster: EmbeddedCluster; api: ObjectApi }>({
  // eslint-disable-next-line no-empty-pattern
  cluster: async ({}, use) => {
    const cluster = await EmbeddedCluster.start();
    await use(cluster);
    await cluster.stop();
  },
  api: async ({ cluster }, use) => {
    await use(cluster.api);
  },
});

/** The ApiError a call throws; fails the test when it does not throw one. */
function refusal(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused with an ApiError');
}

function exists(api: ObjectApi, target: Target, name: string): boolean {
  try {
    api.get(target, name);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return false;
    throw error;
  }
}

/** Records what a watch delivers: type, name and resourceVersion of each event. */
function record(api: ObjectApi, target: Target, options: Parameters<ObjectApi['watch']>[1] = {}) {
  const events: { type: WatchEventType; name: string; rv: string; object: KubeObject }[] = [];
  const stop = api.watch(target, options, (type, object) =>
    events.push({ type, name: object.metadata.name!, rv: object.metadata.resourceVersion!, object }),
  );
  return { events, stop, seen: () => events.map((e) => `${e.type} ${e.name}`) };
}

const rv = (object: KubeObject) => Number(object.metadata.resourceVersion);

const podBody = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...spec },
});

function targets(api: ObjectApi, namespace = 'default') {
  return {
    pods: api.target('v1', 'pods', namespace),
    configMaps: api.target('v1', 'configmaps', namespace),
    secrets: api.target('v1', 'secrets', namespace),
    services: api.target('v1', 'services', namespace),
    deployments: api.target('apps/v1', 'deployments', namespace),
    namespaces: api.target('v1', 'namespaces'),
  };
}

test.describe('metadata the server owns', () => {
  test('create sets uid, creationTimestamp, resourceVersion and type meta; client values for them are replaced', ({ api }) => {
    const { configMaps } = targets(api);
    const { object } = api.create(configMaps, { metadata: { name: 'first', uid: 'mine', creationTimestamp: '2001-01-01T00:00:00Z' }, data: { a: '1' } });
    expect(object.apiVersion).toBe('v1');
    expect(object.kind).toBe('ConfigMap');
    expect(object.metadata.namespace).toBe('default');
    expect(object.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(object.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(object.metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');
    expect(object.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
    expect(object.metadata.deletionTimestamp).toBeUndefined();
    // What get returns is what create returned.
    expect(api.get(configMaps, 'first')).toEqual(object);
    // Updates cannot change them either.
    const updated = api.update(configMaps, 'first', { ...object, metadata: { ...object.metadata, uid: undefined, creationTimestamp: '2001-01-01T00:00:00Z' }, data: { a: '2' } }).object;
    expect(updated.metadata.uid).toBe(object.metadata.uid);
    expect(updated.metadata.creationTimestamp).toBe(object.metadata.creationTimestamp);
  });

  test('one cluster-wide resourceVersion, increasing across kinds and verbs', ({ api }) => {
    const t = targets(api);
    const versions = [
      api.create(t.configMaps, { metadata: { name: 'cm' } }).object,
      api.create(t.secrets, { metadata: { name: 's' } }).object,
      api.create(t.pods, podBody('p')).object,
      api.create(t.namespaces, { metadata: { name: 'rv-ns' } }).object,
      api.update(t.configMaps, 'cm', { metadata: { name: 'cm' }, data: { a: '1' } }).object,
      api.patch(t.secrets, 's', 'merge', { metadata: { labels: { x: 'y' } } }).object,
      api.delete(t.secrets, 's').object,
    ].map(rv);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]);
    // A list is as of the newest revision, whatever its kind.
    expect(Number(api.list(t.configMaps).resourceVersion)).toBeGreaterThanOrEqual(versions[versions.length - 1]);
    expect(Number(api.list(t.configMaps).resourceVersion)).toBe(api.store.currentRevision());
  });

  test('generateName: the prefix plus five random characters; a given name wins', ({ api }) => {
    const { configMaps } = targets(api);
    const a = api.create(configMaps, { metadata: { generateName: 'web-' } }).object;
    const b = api.create(configMaps, { metadata: { generateName: 'web-' } }).object;
    expect(a.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(b.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a.metadata.name).not.toBe(b.metadata.name);
    expect(a.metadata.generateName).toBe('web-');
    expect(api.create(configMaps, { metadata: { name: 'fixed', generateName: 'web-' } }).object.metadata.name).toBe('fixed');
    const missing = refusal(() => api.create(configMaps, { metadata: {} }));
    expect(missing.code).toBe(422);
    expect(missing.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  test('generation moves only when the spec changes', ({ api }) => {
    const { deployments } = targets(api);
    const spec = { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } };
    const created = api.create(deployments, { metadata: { name: 'web' }, spec }).object;
    expect(created.metadata.generation).toBe(1);
    const labelled = api.patch(deployments, 'web', 'merge', { metadata: { labels: { tier: 'front' }, annotations: { note: 'x' } } }).object;
    expect(labelled.metadata.generation).toBe(1);
    expect(rv(labelled)).toBeGreaterThan(rv(created));
    const withStatus = api.update(deployments, 'web', { ...labelled, status: { replicas: 1, observedGeneration: 1 } }, { subresource: 'status' }).object;
    expect(withStatus.metadata.generation).toBe(1);
    const scaled = api.patch(deployments, 'web', 'merge', { spec: { replicas: 3 } }).object;
    expect(scaled.metadata.generation).toBe(2);
    const image = api.patch(deployments, 'web', 'strategic', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }).object;
    expect(image.metadata.generation).toBe(3);
    // A client cannot set it.
    expect(api.update(deployments, 'web', { ...image, metadata: { ...image.metadata, generation: 42 } }).object.metadata.generation).toBe(3);
  });

  test('no generation on kinds kube-apiserver 1.32 keeps none for (ConfigMap, Secret, Pod, Service, Namespace)', ({ api }) => {
    const { configMaps, secrets, pods, services, namespaces } = targets(api);
    const cm = api.create(configMaps, { metadata: { name: 'plain', generation: 7 }, data: { a: '1' } }).object;
    expect(cm.metadata.generation).toBeUndefined();
    expect(api.patch(configMaps, 'plain', 'merge', { data: { a: '2' } }).object.metadata.generation).toBeUndefined();
    expect(api.create(secrets, { metadata: { name: 's' }, data: {} }).object.metadata).not.toHaveProperty('generation');
    expect(api.create(pods, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }).object.metadata).not.toHaveProperty('generation');
    expect(api.patch(pods, 'p', 'strategic', { spec: { containers: [{ name: 'c', image: 'j' }] } }).object.metadata).not.toHaveProperty('generation');
    expect(api.create(services, { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } }).object.metadata).not.toHaveProperty('generation');
    expect(api.create(namespaces, { metadata: { name: 'ns2' } }).object.metadata).not.toHaveProperty('generation');
  });

  test('a no-op update keeps the resourceVersion and sends no event', ({ api }) => {
    const { configMaps } = targets(api);
    const created = api.create(configMaps, { metadata: { name: 'same', labels: { a: 'b' } }, data: { k: 'v' } }).object;
    const watch = record(api, configMaps, { resourceVersion: created.metadata.resourceVersion });
    const before = api.store.currentRevision();
    expect(api.update(configMaps, 'same', api.get(configMaps, 'same')).object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(api.update(configMaps, 'same', { metadata: { name: 'same', labels: { a: 'b' } }, data: { k: 'v' } }).object.metadata.resourceVersion).toBe(
      created.metadata.resourceVersion,
    );
    expect(api.patch(configMaps, 'same', 'merge', {}).object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(api.patch(configMaps, 'same', 'merge', { data: { k: 'v' } }).object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(api.store.currentRevision()).toBe(before);
    expect(watch.events).toEqual([]);
    // A real change does move it, and is seen.
    api.patch(configMaps, 'same', 'merge', { data: { k: 'w' } });
    expect(watch.seen()).toEqual(['MODIFIED same']);
    watch.stop();
  });
});

test.describe('status', () => {
  test('a Pod status changes only through /status, and /status changes nothing else', ({ api }) => {
    const { pods } = targets(api);
    const created = api.create(pods, { ...podBody('st'), status: { phase: 'Running' } }).object;
    expect((created.status as { phase: string }).phase).toBe('Pending');
    // Through the main resource the status is kept: changing only it is a no-op.
    const ignored = api.update(pods, 'st', { ...created, status: { phase: 'Running', podIP: '10.0.0.9' } }).object;
    expect(ignored.status).toEqual(created.status);
    expect(ignored.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    // Through /status it changes; the spec in that body is ignored.
    const spec = created.spec as { containers: { image: string }[] };
    const running = api.update(
      pods,
      'st',
      { ...created, spec: { ...spec, containers: [{ ...spec.containers[0], image: 'busybox:9.9' }] }, status: { phase: 'Running', podIP: '10.0.0.9' } },
      { subresource: 'status' },
    ).object;
    expect(running.status).toEqual({ phase: 'Running', podIP: '10.0.0.9' });
    expect((running.spec as { containers: { image: string }[] }).containers[0].image).toBe('busybox:1.36');
    expect(rv(running)).toBeGreaterThan(rv(created));
    // A stale status write is a conflict like any other.
    const stale = refusal(() => api.update(pods, 'st', { ...created, status: { phase: 'Failed' } }, { subresource: 'status' }));
    expect(stale.code).toBe(409);
    expect(stale.reason).toBe('Conflict');
  });

  test('status sent on create is dropped for kinds with a status subresource', ({ api }) => {
    const { deployments } = targets(api);
    const spec = { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } };
    const created = api.create(deployments, { metadata: { name: 'x' }, spec, status: { replicas: 5 } }).object;
    expect(created.status).toBeUndefined();
  });
});

test.describe('Pod graceful deletion', () => {
  test('an unscheduled Pod goes at once', ({ api }) => {
    const { pods } = targets(api);
    api.create(pods, podBody('unscheduled'));
    const result = api.delete(pods, 'unscheduled');
    expect(result.removed).toBe(true);
    expect(exists(api, pods, 'unscheduled')).toBe(false);
  });

  test('a bound Pod stays with deletionTimestamp and the grace period until the node confirms', ({ api }) => {
    const { pods } = targets(api);
    const created = api.create(pods, podBody('bound', { terminationGracePeriodSeconds: 45 })).object;
    const bound = api.bind(pods, 'bound', 'node-1');
    expect((bound.spec as { nodeName: string }).nodeName).toBe('node-1');

    const first = api.delete(pods, 'bound');
    expect(first.removed).toBe(false);
    expect(first.object.metadata.deletionGracePeriodSeconds).toBe(45);
    expect(first.object.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(api.get(pods, 'bound').metadata.deletionTimestamp).toBe(first.object.metadata.deletionTimestamp);

    // A shorter second delete shortens it; a longer one does not lengthen it.
    const shorter = api.delete(pods, 'bound', { gracePeriodSeconds: 5 });
    expect(shorter.removed).toBe(false);
    expect(shorter.object.metadata.deletionGracePeriodSeconds).toBe(5);
    expect(Date.parse(shorter.object.metadata.deletionTimestamp!)).toBeLessThan(Date.parse(first.object.metadata.deletionTimestamp!));
    const longer = api.delete(pods, 'bound', { gracePeriodSeconds: 60 });
    expect(longer.object.metadata.deletionGracePeriodSeconds).toBe(5);
    expect(longer.object.metadata.deletionTimestamp).toBe(shorter.object.metadata.deletionTimestamp);

    // Only the node's confirmation for this uid removes it.
    expect(api.finalizeGracefulDeletion(pods, 'bound', 'another-uid')).toBe(false);
    expect(exists(api, pods, 'bound')).toBe(true);
    expect(api.finalizeGracefulDeletion(pods, 'bound', created.metadata.uid!)).toBe(true);
    expect(exists(api, pods, 'bound')).toBe(false);
  });

  test('the grace period is the requested one, else spec.terminationGracePeriodSeconds (default 30)', ({ api }) => {
    const { pods } = targets(api);
    api.create(pods, podBody('requested'));
    api.bind(pods, 'requested', 'node-1');
    expect(api.delete(pods, 'requested', { gracePeriodSeconds: 20 }).object.metadata.deletionGracePeriodSeconds).toBe(20);
    api.create(pods, podBody('defaulted'));
    api.bind(pods, 'defaulted', 'node-1');
    expect(api.delete(pods, 'defaulted').object.metadata.deletionGracePeriodSeconds).toBe(30);
  });

  test('grace 0 removes a bound Pod at once, also one already terminating', ({ api }) => {
    const { pods } = targets(api);
    api.create(pods, podBody('forced'));
    api.bind(pods, 'forced', 'node-1');
    expect(api.delete(pods, 'forced', { gracePeriodSeconds: 0 }).removed).toBe(true);
    expect(exists(api, pods, 'forced')).toBe(false);

    api.create(pods, podBody('terminating'));
    api.bind(pods, 'terminating', 'node-1');
    expect(api.delete(pods, 'terminating').removed).toBe(false);
    expect(api.delete(pods, 'terminating', { gracePeriodSeconds: 0 }).removed).toBe(true);
    expect(exists(api, pods, 'terminating')).toBe(false);
  });

  test('a bound Pod that already finished has nothing to stop and goes at once', ({ api }) => {
    const { pods } = targets(api);
    api.create(pods, podBody('done'));
    api.bind(pods, 'done', 'node-1');
    api.update(pods, 'done', { ...api.get(pods, 'done'), status: { phase: 'Succeeded' } }, { subresource: 'status' });
    expect(api.delete(pods, 'done').removed).toBe(true);
    expect(exists(api, pods, 'done')).toBe(false);
  });
});

test.describe('finalizers', () => {
  test('an object with finalizers is only marked; the last finalizer leaving removes it', ({ api }) => {
    const { configMaps } = targets(api);
    api.create(configMaps, { metadata: { name: 'held', finalizers: ['example.com/a', 'example.com/b'] } });
    const watch = record(api, configMaps, { resourceVersion: String(api.store.currentRevision()) });
    const marked = api.delete(configMaps, 'held');
    expect(marked.removed).toBe(false);
    expect(marked.object.metadata.deletionTimestamp).toBeTruthy();
    expect(marked.object.metadata.deletionGracePeriodSeconds).toBe(0);
    // Deleting again changes nothing.
    expect(api.delete(configMaps, 'held').object.metadata.resourceVersion).toBe(marked.object.metadata.resourceVersion);

    // No new finalizers once deleting.
    const added = refusal(() => api.patch(configMaps, 'held', 'merge', { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } }));
    expect(added.code).toBe(422);
    expect(added.message).toBe(
      'ConfigMap "held" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/c"}',
    );
    // Other changes are still allowed, and deletionTimestamp cannot be cleared.
    const relabelled = api.patch(configMaps, 'held', 'merge', { metadata: { labels: { x: 'y' }, deletionTimestamp: null } }).object;
    expect(relabelled.metadata.deletionTimestamp).toBe(marked.object.metadata.deletionTimestamp);

    api.patch(configMaps, 'held', 'json', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
    expect(exists(api, configMaps, 'held')).toBe(true);
    const last = api.patch(configMaps, 'held', 'merge', { metadata: { finalizers: null } });
    expect(exists(api, configMaps, 'held')).toBe(false);
    expect(last.object.metadata.finalizers ?? []).toEqual([]);
    // The write that removes the last finalizer is the deletion: one DELETED, no MODIFIED before it.
    expect(watch.seen()).toEqual(['MODIFIED held', 'MODIFIED held', 'MODIFIED held', 'DELETED held']);
    expect(watch.events[3].object.metadata.finalizers).toEqual(['example.com/b']);
    watch.stop();
  });
});

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

test.describe('namespace deletion', () => {
  test('Terminating, emptied by the namespace controller, and gone only after its last object', async ({ api }) => {
    const t = targets(api, 'team');
    api.create(t.namespaces, { metadata: { name: 'team' } });
    await expect.poll(() => exists(api, api.target('v1', 'serviceaccounts', 'team'), 'default')).toBe(true);
    api.create(t.configMaps, { metadata: { name: 'plain' } });
    api.create(t.configMaps, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    api.create(t.pods, podBody('worker'));
    api.create(t.secrets, { metadata: { name: 's' } });

    const marked = api.delete(t.namespaces, 'team');
    expect(marked.removed).toBe(false);
    expect(marked.object.metadata.deletionTimestamp).toBeTruthy();
    expect(marked.object.status).toEqual({ phase: 'Terminating' });
    expect(marked.object.spec).toEqual({ finalizers: ['kubernetes'] });

    const late = refusal(() => api.create(t.configMaps, { metadata: { name: 'late' } }));
    expect(late.code).toBe(403);
    expect(late.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');

    // Everything without a finalizer goes; the held object is only marked, so the namespace stays.
    await expect.poll(() => ['plain', 'worker', 's'].map((n) => exists(api, t.configMaps, n) || exists(api, t.pods, n) || exists(api, t.secrets, n))).toEqual([false, false, false]);
    await expect.poll(() => api.get(t.configMaps, 'held').metadata.deletionTimestamp).toBeTruthy();
    expect(exists(api, api.target('v1', 'serviceaccounts', 'team'), 'default')).toBe(false);
    expect(api.get(t.namespaces, 'team').status).toEqual({ phase: 'Terminating' });

    api.patch(t.configMaps, 'held', 'merge', { metadata: { finalizers: null } });
    await expect.poll(() => exists(api, t.namespaces, 'team')).toBe(false);
  });
});

test.describe('garbage collection', () => {
  const ownerRef = (owner: KubeObject, extra: Record<string, unknown> = {}) => ({
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    ...extra,
  });

  test('a dependent whose owner does not exist is deleted', async ({ api }) => {
    const { configMaps } = targets(api);
    api.create(configMaps, {
      metadata: { name: 'stray', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-4000-8000-000000000000' }] },
    });
    await expect.poll(() => exists(api, configMaps, 'stray')).toBe(false);
  });

  test('Background (the default): the owner goes at once, its dependents after', async ({ api }) => {
    const { configMaps, pods } = targets(api);
    const owner = api.create(configMaps, { metadata: { name: 'owner' } }).object;
    api.create(configMaps, { metadata: { name: 'dep', ownerReferences: [ownerRef(owner)] } });
    api.create(pods, { ...podBody('dep-pod'), metadata: { name: 'dep-pod', ownerReferences: [ownerRef(owner)] } });
    // A dependent with a second, living owner only loses the reference.
    const other = api.create(configMaps, { metadata: { name: 'other' } }).object;
    api.create(configMaps, { metadata: { name: 'shared', ownerReferences: [ownerRef(owner), ownerRef(other)] } });

    expect(api.delete(configMaps, 'owner').removed).toBe(true);
    await expect.poll(() => [exists(api, configMaps, 'dep'), exists(api, pods, 'dep-pod')]).toEqual([false, false]);
    await expect.poll(() => api.get(configMaps, 'shared').metadata.ownerReferences).toEqual([ownerRef(other)]);
  });

  test('Orphan: the owner waits for its dependents to lose the reference, then goes; they stay', async ({ api }) => {
    const { configMaps } = targets(api);
    const owner = api.create(configMaps, { metadata: { name: 'parent' } }).object;
    api.create(configMaps, { metadata: { name: 'child', ownerReferences: [ownerRef(owner, { controller: true })] } });
    const marked = api.delete(configMaps, 'parent', { propagationPolicy: 'Orphan' });
    expect(marked.removed).toBe(false);
    expect(marked.object.metadata.finalizers).toEqual(['orphan']);
    await expect.poll(() => exists(api, configMaps, 'parent')).toBe(false);
    expect(api.get(configMaps, 'child').metadata.ownerReferences).toBeUndefined();
    // orphanDependents: true is the legacy spelling of the same.
    const legacy = api.create(configMaps, { metadata: { name: 'legacy' } }).object;
    api.create(configMaps, { metadata: { name: 'legacy-child', ownerReferences: [ownerRef(legacy)] } });
    expect(api.delete(configMaps, 'legacy', { orphanDependents: true }).object.metadata.finalizers).toEqual(['orphan']);
    await expect.poll(() => exists(api, configMaps, 'legacy')).toBe(false);
    expect(api.get(configMaps, 'legacy-child').metadata.ownerReferences).toBeUndefined();
  });

  test('Foreground: dependents that block owner deletion go first, then the owner', async ({ api }) => {
    const { configMaps } = targets(api);
    const owner = api.create(configMaps, { metadata: { name: 'fg' } }).object;
    // The blocking dependent holds on with a finalizer of its own, so the order can be observed.
    api.create(configMaps, { metadata: { name: 'blocker', finalizers: ['example.com/slow'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] } });
    api.create(configMaps, { metadata: { name: 'nonblocking', ownerReferences: [ownerRef(owner)] } });

    const marked = api.delete(configMaps, 'fg', { propagationPolicy: 'Foreground' });
    expect(marked.removed).toBe(false);
    expect(marked.object.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(marked.object.metadata.deletionTimestamp).toBeTruthy();

    await expect.poll(() => exists(api, configMaps, 'nonblocking')).toBe(false);
    await expect.poll(() => api.get(configMaps, 'blocker').metadata.deletionTimestamp).toBeTruthy();
    // The blocking dependent is still there (only marked), so the owner is too.
    expect(api.get(configMaps, 'fg').metadata.finalizers).toEqual(['foregroundDeletion']);

    api.patch(configMaps, 'blocker', 'merge', { metadata: { finalizers: null } });
    await expect.poll(() => [exists(api, configMaps, 'blocker'), exists(api, configMaps, 'fg')]).toEqual([false, false]);
  });
});

test.describe('lists', () => {
  test('limit/continue pages come from one snapshot; resourceVersionMatch=Exact reads an older state', ({ api }) => {
    const t = targets(api, 'paged');
    api.create(t.namespaces, { metadata: { name: 'paged' } });
    for (const n of ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']) api.create(t.configMaps, { metadata: { name: n }, data: { v: '1' } });

    const first = api.list(t.configMaps, { limit: 2 });
    expect(first.items.map((o) => o.metadata.name)).toEqual(['cm-0', 'cm-1']);
    expect(first.continue).toBeTruthy();
    expect(first.remainingItemCount).toBe(3);
    const snapshot = first.resourceVersion;

    // Changes between the pages.
    api.create(t.configMaps, { metadata: { name: 'cm-2a' }, data: { v: 'new' } });
    api.patch(t.configMaps, 'cm-3', 'merge', { data: { v: '2' } });
    api.delete(t.configMaps, 'cm-4');
    api.create(t.configMaps, { metadata: { name: 'cm-5' } });

    const second = api.list(t.configMaps, { limit: 2, continue: first.continue });
    expect(second.resourceVersion).toBe(snapshot);
    expect(second.items.map((o) => o.metadata.name)).toEqual(['cm-2', 'cm-3']);
    expect(second.items[1].data).toEqual({ v: '1' });
    expect(second.remainingItemCount).toBe(1);
    const third = api.list(t.configMaps, { limit: 2, continue: second.continue });
    expect(third.resourceVersion).toBe(snapshot);
    expect(third.items.map((o) => o.metadata.name)).toEqual(['cm-4']);
    expect(third.continue).toBeUndefined();

    // The older state, exactly.
    const exact = api.list(t.configMaps, { resourceVersion: snapshot, resourceVersionMatch: 'Exact' });
    expect(exact.resourceVersion).toBe(snapshot);
    expect(exact.items.map((o) => `${o.metadata.name}=${(o.data as { v?: string } | undefined)?.v}`)).toEqual(['cm-0=1', 'cm-1=1', 'cm-2=1', 'cm-3=1', 'cm-4=1']);
    expect(exact.items.every((o) => rv(o) <= Number(snapshot))).toBe(true);

    // A fresh list sees the present.
    const now = api.list(t.configMaps);
    expect(now.items.map((o) => o.metadata.name)).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-2a', 'cm-3', 'cm-5']);
    expect(Number(now.resourceVersion)).toBeGreaterThan(Number(snapshot));
    // Selectors apply before the limit.
    api.patch(t.configMaps, 'cm-1', 'merge', { metadata: { labels: { pick: 'yes' } } });
    api.patch(t.configMaps, 'cm-5', 'merge', { metadata: { labels: { pick: 'yes' } } });
    const picked = api.list(t.configMaps, { labelSelector: 'pick=yes', limit: 1 });
    expect(picked.items.map((o) => o.metadata.name)).toEqual(['cm-1']);
    expect(api.list(t.configMaps, { labelSelector: 'pick=yes', limit: 1, continue: picked.continue }).items.map((o) => o.metadata.name)).toEqual(['cm-5']);
  });
});

test.describe('watch', () => {
  test('from a resourceVersion: exactly the later events, in order, then live ones', ({ api }) => {
    const { configMaps, secrets } = targets(api);
    api.create(configMaps, { metadata: { name: 'a' } });
    const from = api.store.currentRevision();
    api.create(configMaps, { metadata: { name: 'b' } });
    api.create(secrets, { metadata: { name: 'not-a-configmap' } });
    api.patch(configMaps, 'a', 'merge', { data: { x: '1' } });
    api.delete(configMaps, 'b');
    api.create(api.target('v1', 'configmaps', 'kube-system'), { metadata: { name: 'elsewhere' } });

    const watch = record(api, configMaps, { resourceVersion: String(from) });
    expect(watch.seen()).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b']);
    const versions = watch.events.map((e) => Number(e.rv));
    expect(versions[0]).toBeGreaterThan(from);
    expect([...versions].sort((x, y) => x - y)).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
    // The DELETED event carries the deletion's own revision and the last state.
    expect(Number(watch.events[2].rv)).toBeGreaterThan(Number(watch.events[1].rv));

    api.create(configMaps, { metadata: { name: 'c' } });
    expect(watch.seen()).toEqual(['ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c']);
    watch.stop();
    api.create(configMaps, { metadata: { name: 'd' } });
    expect(watch.events).toHaveLength(4);

    // Without a resourceVersion: the present objects as ADDED first.
    const fresh = record(api, configMaps);
    expect(fresh.seen()).toEqual(['ADDED a', 'ADDED c', 'ADDED d']);
    fresh.stop();
  });

  test('an object leaving a field or label selector is seen as DELETED, entering as ADDED', ({ api }) => {
    const { pods, configMaps } = targets(api);
    const pending = record(api, pods, { fieldSelector: 'status.phase=Pending' });
    const onNode = record(api, pods, { fieldSelector: 'spec.nodeName=node-1' });
    api.create(pods, podBody('mover'));
    api.bind(pods, 'mover', 'node-1');
    api.update(pods, 'mover', { ...api.get(pods, 'mover'), status: { phase: 'Running' } }, { subresource: 'status' });
    api.update(pods, 'mover', { ...api.get(pods, 'mover'), status: { phase: 'Running', podIP: '10.1.1.1' } }, { subresource: 'status' });
    expect(pending.seen()).toEqual(['ADDED mover', 'MODIFIED mover', 'DELETED mover']);
    // The DELETED for leaving carries the new state (the one that no longer matches).
    expect((pending.events[2].object.status as { phase: string }).phase).toBe('Running');
    expect(onNode.seen()).toEqual(['ADDED mover', 'MODIFIED mover', 'MODIFIED mover']);
    pending.stop();
    onNode.stop();

    const labelled = record(api, configMaps, { labelSelector: 'app=web' });
    api.create(configMaps, { metadata: { name: 'flip', labels: { app: 'web' } } });
    api.patch(configMaps, 'flip', 'merge', { metadata: { labels: { app: 'db' } } });
    api.patch(configMaps, 'flip', 'merge', { metadata: { labels: { app: 'web' } } });
    api.delete(configMaps, 'flip');
    expect(labelled.seen()).toEqual(['ADDED flip', 'DELETED flip', 'ADDED flip', 'DELETED flip']);
    labelled.stop();
  });

  test('410 Expired once the resourceVersion left the history window', async () => {
    const cluster = await EmbeddedCluster.start({ historyLimit: 5 });
    try {
      const api = cluster.api;
      const { configMaps } = targets(api);
      for (const n of ['p-0', 'p-1', 'p-2']) api.create(configMaps, { metadata: { name: n } });
      const page = api.list(configMaps, { limit: 1 });
      const old = api.store.currentRevision();
      // Within the window a replay works.
      api.create(configMaps, { metadata: { name: 'w-0' } });
      const recent = record(api, configMaps, { resourceVersion: String(old) });
      expect(recent.seen()).toEqual(['ADDED w-0']);
      recent.stop();

      for (let i = 1; i <= 10; i++) api.create(configMaps, { metadata: { name: `w-${i}` } });
      const watch = refusal(() => api.watch(configMaps, { resourceVersion: String(old) }, () => undefined));
      expect(watch.code).toBe(410);
      expect(watch.reason).toBe('Expired');
      expect(watch.message).toMatch(new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));

      const exact = refusal(() => api.list(configMaps, { resourceVersion: String(old), resourceVersionMatch: 'Exact' }));
      expect(exact.code).toBe(410);
      expect(exact.reason).toBe('Expired');

      const next = refusal(() => api.list(configMaps, { limit: 1, continue: page.continue }));
      expect(next.code).toBe(410);
      expect(next.reason).toBe('Expired');
      expect(next.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);

      // The present is always readable, and a watch from the current revision works.
      expect(api.list(configMaps).items).toHaveLength(14);
      const live = record(api, configMaps, { resourceVersion: String(api.store.currentRevision()) });
      api.create(configMaps, { metadata: { name: 'after' } });
      expect(live.seen()).toEqual(['ADDED after']);
      live.stop();
    } finally {
      await cluster.stop();
    }
  });
});
