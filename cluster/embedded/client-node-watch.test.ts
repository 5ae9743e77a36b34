/**
 * The real @kubernetes/client-node (1.4.0) Watch against the embedded cluster: commit order,
 * selectors, resuming from a resourceVersion, timeouts, bookmarks and 410 Expired (the last two
 * on dedicated clusters).
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from './cluster.ts';
import { ClientNodeFixture, mergePatch, podBody, type RunningWatch, rv, startWatch } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('watch', () => {
  test('namespaced and cluster-wide Pod watches: commit order, increasing resourceVersions', async () => {
    const ns = await client.namespace('w-a');
    const other = await client.namespace('w-b');
    const start = (await client.core.listPodForAllNamespaces()).metadata!.resourceVersion!;
    const all = await startWatch(client.kc, '/api/v1/pods', { resourceVersion: start });
    const mine = await startWatch(client.kc, `/api/v1/namespaces/${ns}/pods`, { resourceVersion: start });
    try {
      await client.core.createNamespacedPod({ namespace: ns, body: podBody('p1') });
      await client.core.createNamespacedPod({ namespace: other, body: podBody('p2') });
      await client.core.patchNamespacedPod({ name: 'p1', namespace: ns, body: { metadata: { labels: { step: 'two' } } } }, mergePatch);
      await client.core.deleteNamespacedPod({ name: 'p2', namespace: other });
      await client.core.deleteNamespacedPod({ name: 'p1', namespace: ns });
      const expected = [
        ['ADDED', `${ns}/p1`],
        ['ADDED', `${other}/p2`],
        ['MODIFIED', `${ns}/p1`],
        ['DELETED', `${other}/p2`],
        ['DELETED', `${ns}/p1`],
      ];
      const summary = (w: RunningWatch) =>
        w.events.filter((e) => [ns, other].includes(e.object.metadata!.namespace!)).map((e) => [e.type, `${e.object.metadata!.namespace}/${e.object.metadata!.name}`]);
      await expect.poll(() => summary(all)).toEqual(expected);
      await expect.poll(() => summary(mine)).toEqual(expected.filter(([, key]) => key.startsWith(`${ns}/`)));
      expect(mine.events.every((e) => e.object.metadata?.namespace === ns)).toBe(true);
      for (const w of [all, mine]) {
        const rvs = w.events.map((e) => rv(e.object));
        expect(rvs.every((v, i) => i === 0 || v > rvs[i - 1])).toBe(true);
        expect(w.events.every((e) => e.object.kind === 'Pod')).toBe(true);
      }
      expect(all.ended()).toBe(false);
    } finally {
      await all.stop();
      await mine.stop();
    }
  });

  test('a watch without resourceVersion starts with ADDED for what exists; label selectors filter', async () => {
    const ns = await client.namespace('w-init');
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a', labels: { keep: 'yes' } } } });
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
    const w = await startWatch(client.kc, `/api/v1/namespaces/${ns}/configmaps`, { labelSelector: 'keep=yes' });
    try {
      await expect.poll(() => w.events.map((e) => [e.type, e.object.metadata!.name])).toEqual([['ADDED', 'a']]);
      // Leaving the selector is a DELETED, entering it an ADDED.
      await client.core.patchNamespacedConfigMap({ name: 'b', namespace: ns, body: { metadata: { labels: { keep: 'yes' } } } }, mergePatch);
      await client.core.patchNamespacedConfigMap({ name: 'a', namespace: ns, body: { metadata: { labels: { keep: 'no' } } } }, mergePatch);
      await expect
        .poll(() => w.events.map((e) => [e.type, e.object.metadata!.name]))
        .toEqual([
          ['ADDED', 'a'],
          ['ADDED', 'b'],
          ['DELETED', 'a'],
        ]);
    } finally {
      await w.stop();
    }
  });

  test('resuming from the last seen resourceVersion replays exactly the missed changes', async () => {
    const ns = await client.namespace('w-resume');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const start = (await client.core.listNamespacedConfigMap({ namespace: ns })).metadata!.resourceVersion!;
    const first = await startWatch(client.kc, path, { resourceVersion: start });
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'seen' } } });
    await expect.poll(() => first.events.length).toBe(1);
    await first.stop();
    const lastSeen = first.events.at(-1)!.object.metadata!.resourceVersion!;

    const changes: string[] = [];
    for (let i = 0; i < 10; i++) {
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `m-${i}` } } });
      changes.push(`ADDED m-${i}`);
    }
    for (let i = 0; i < 5; i++) {
      await client.core.patchNamespacedConfigMap({ name: `m-${i}`, namespace: ns, body: { data: { i: String(i) } } }, mergePatch);
      changes.push(`MODIFIED m-${i}`);
    }
    for (let i = 5; i < 10; i++) {
      await client.core.deleteNamespacedConfigMap({ name: `m-${i}`, namespace: ns });
      changes.push(`DELETED m-${i}`);
    }
    expect(changes).toHaveLength(20);

    const resumed = await startWatch(client.kc, path, { resourceVersion: lastSeen });
    try {
      await expect.poll(() => resumed.events.length).toBeGreaterThanOrEqual(20);
      // A marker change after the 20: if anything extra had been replayed it would sit before it.
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'marker' } } });
      await expect.poll(() => resumed.events.length).toBe(21);
      expect(resumed.events.map((e) => `${e.type} ${e.object.metadata!.name}`)).toEqual([...changes, 'ADDED marker']);
      const rvs = resumed.events.map((e) => rv(e.object));
      expect(rvs[0]).toBeGreaterThan(Number(lastSeen));
      expect(rvs.every((v, i) => i === 0 || v > rvs[i - 1])).toBe(true);
    } finally {
      await resumed.stop();
    }
  });

  test('timeoutSeconds ends the stream cleanly', async () => {
    const ns = await client.namespace('w-timeout');
    const w = await startWatch(client.kc, `/api/v1/namespaces/${ns}/configmaps`, { timeoutSeconds: 1 });
    const err = await w.done;
    expect(err).toBeNull();
    expect(w.ended()).toBe(true);
  });

  test('a watch on a missing resource fails through done', async () => {
    const w = await startWatch(client.kc, '/apis/nope.example.com/v1/things', {});
    const err = (await w.done) as { statusCode?: number } | null;
    expect(err?.statusCode).toBe(404);
  });
});

test.describe('watch: bookmarks and expiry (dedicated clusters)', () => {
  test('BOOKMARK events arrive when allowWatchBookmarks is set, and only then', async () => {
    const own = await EmbeddedCluster.start({ bookmarkIntervalMs: 200 });
    const config = new k8s.KubeConfig();
    config.loadFromString(own.kubeconfig());
    const api = config.makeApiClient(k8s.CoreV1Api);
    const start = (await api.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const withBookmarks = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: start, allowWatchBookmarks: true });
    const without = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: start });
    try {
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'one' } } });
      await expect.poll(() => withBookmarks.events.filter((e) => e.type === 'BOOKMARK').length).toBeGreaterThanOrEqual(2);
      await expect.poll(() => without.events.length).toBe(1);
      expect(without.events.map((e) => e.type)).toEqual(['ADDED']);
      const added = withBookmarks.events.find((e) => e.type === 'ADDED')!;
      const bookmarks = withBookmarks.events.filter((e) => e.type === 'BOOKMARK');
      for (const b of bookmarks) {
        expect(b.object.kind).toBe('ConfigMap');
        expect(b.object.apiVersion).toBe('v1');
        expect(rv(b.object)).toBeGreaterThanOrEqual(Number(start));
      }
      const last = bookmarks.at(-1)!;
      expect(rv(last.object)).toBeGreaterThanOrEqual(rv(added.object));
      // A bookmark's resourceVersion is a valid place to resume from.
      const resumed = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: last.object.metadata!.resourceVersion });
      try {
        await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'two' } } });
        await expect.poll(() => resumed.events.map((e) => `${e.type} ${e.object.metadata!.name}`)).toEqual(['ADDED two']);
      } finally {
        await resumed.stop();
      }
    } finally {
      await withBookmarks.stop();
      await without.stop();
      await own.stop();
    }
  });

  test('a resourceVersion older than the history answers an ERROR event with 410 Expired', async () => {
    const own = await EmbeddedCluster.start({ historyLimit: 5 });
    const config = new k8s.KubeConfig();
    config.loadFromString(own.kubeconfig());
    const api = config.makeApiClient(k8s.CoreV1Api);
    try {
      const old = (await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' } } })).metadata!.resourceVersion!;
      for (let i = 0; i < 20; i++) {
        await api.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: { data: { i: String(i) } } }, mergePatch);
      }
      const w = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: old });
      expect(await w.done).toBeNull();
      expect(w.events).toHaveLength(1);
      const [event] = w.events;
      expect(event.type).toBe('ERROR');
      expect(event.object.kind).toBe('Status');
      expect(event.object.code).toBe(410);
      expect(event.object.reason).toBe('Expired');
      // A recent resourceVersion still works.
      const recent = (await api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' })).metadata!.resourceVersion!;
      const fresh = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: recent });
      try {
        await api.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: { data: { i: 'last' } } }, mergePatch);
        await expect.poll(() => fresh.events.map((e) => e.type)).toEqual(['MODIFIED']);
      } finally {
        await fresh.stop();
      }
      // An informer restarted from a resourceVersion that expired meanwhile gets the 410, relists, and
      // reconciles its cache: deletions it missed become delete callbacks, new objects add callbacks.
      // (makeInformer's ListWatch, built directly for latestResourceVersion())
      const informer = new k8s.ListWatch('/api/v1/namespaces/default/configmaps', new k8s.Watch(config), () => api.listNamespacedConfigMap({ namespace: 'default' }), false);
      const log: string[] = [];
      informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
      informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
      await informer.start();
      try {
        await expect.poll(() => log).toEqual(['add cm']);
        const restartFrom = informer.latestResourceVersion();
        await informer.stop();
        await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'while-away' } } });
        for (let i = 0; i < 10; i++) {
          await api.patchNamespacedConfigMap({ name: 'while-away', namespace: 'default', body: { data: { i: String(i) } } }, mergePatch);
        }
        await api.deleteNamespacedConfigMap({ name: 'cm', namespace: 'default' });
        // The informer's own watch from there would now be answered with 410.
        const expired = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: restartFrom });
        await expired.done;
        expect(expired.events.map((e) => [e.type, e.object.code])).toEqual([['ERROR', 410]]);
        await informer.start();
        await expect.poll(() => informer.list('default').map((c) => c.metadata!.name)).toEqual(['while-away']);
        expect(log).toEqual(['add cm', 'delete cm', 'add while-away']);
        expect(informer.get('while-away', 'default')?.data).toEqual({ i: '9' });
      } finally {
        await informer.stop();
      }
    } finally {
      await own.stop();
    }
  });
});
