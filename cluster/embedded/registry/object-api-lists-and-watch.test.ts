/**
 * Reads through the in-process ObjectApi, as kube-apiserver serves them: paginated lists from one
 * snapshot, exact-resourceVersion lists, watch replay from a resourceVersion, selectors entering
 * and leaving, and 410 Expired once the history window has moved on.
 */

import { expect } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import { refusal, rv } from '../test-kit.ts';
import { podBody, record, targets, test } from './test-kit.ts';

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
