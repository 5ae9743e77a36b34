/**
 * Deletion through the in-process ObjectApi, as kube-apiserver's generic registry and its
 * controllers define it: graceful Pod deletion, finalizers, namespace deletion and garbage
 * collection with each propagation policy. Controller effects are awaited with expect.poll.
 */

import { expect } from '@playwright/test';
import { refusal } from '../test-kit.ts';
import type { KubeObject } from '../types.ts';
import { exists, podBody, record, targets, test } from './test-kit.ts';

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
