/**
 * Object semantics through the in-process ObjectApi, as kube-apiserver's generic registry
 * defines them: the metadata the server owns, one cluster-wide resourceVersion, generateName,
 * generation, no-op updates, and status only through /status.
 */

import { expect } from '@playwright/test';
import { refusal, rv } from '../test-kit.ts';
import { podBody, record, targets, test } from './test-kit.ts';

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
