/**
 * The real @kubernetes/client-node (1.4.0) against the embedded cluster, through its typed APIs:
 * create, read, list with selectors and pagination, generateName, a Deployment and its scale
 * subresource, deleteCollection and dryRun.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { ClientNodeFixture, failure, mergePatch, podBody, readOrGone } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('typed APIs: create, read, list', () => {
  test('CoreV1Api create/read round-trips and fills server fields', async () => {
    const ns = await client.namespace('crud');
    const created = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm', labels: { app: 'x' } }, data: { a: '1' } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toBeTruthy();
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.metadata?.namespace).toBe(ns);
    const read = await client.core.readNamespacedConfigMap({ name: 'cm', namespace: ns });
    expect(read.data).toEqual({ a: '1' });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const again = await failure(client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' } } }));
    expect(again.code).toBe(409);
    expect(again.status.reason).toBe('AlreadyExists');
    const missing = await failure(client.core.readNamespacedConfigMap({ name: 'nope', namespace: ns }));
    expect(missing.code).toBe(404);
    expect(missing.status.reason).toBe('NotFound');
  });

  test('list with labelSelector and fieldSelector, namespaced and across namespaces', async () => {
    const ns = await client.namespace('sel');
    const other = await client.namespace('sel-other');
    for (const [name, tier] of [['web-1', 'web'], ['web-2', 'web'], ['db-1', 'db'], ['plain', undefined]] as const) {
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: tier ? { tier } : undefined } } });
    }
    await client.core.createNamespacedConfigMap({ namespace: other, body: { metadata: { name: 'web-9', labels: { tier: 'web' } } } });
    const names = (list: k8s.V1ConfigMapList) => list.items.map((i) => i.metadata!.name).sort();

    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier=web' }))).toEqual(['web-1', 'web-2']);
    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier in (web,db)' }))).toEqual(['db-1', 'web-1', 'web-2']);
    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, labelSelector: '!tier' }))).toEqual(['plain']);
    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier!=web' }))).toEqual(['db-1', 'plain']);
    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=db-1' }))).toEqual(['db-1']);
    expect(names(await client.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name!=db-1', labelSelector: 'tier' }))).toEqual(['web-1', 'web-2']);

    const everywhere = await client.core.listConfigMapForAllNamespaces({ labelSelector: 'tier=web' });
    const mine = everywhere.items.filter((i) => i.metadata!.namespace === ns || i.metadata!.namespace === other);
    expect(mine.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`).sort()).toEqual([`${ns}/web-1`, `${ns}/web-2`, `${other}/web-9`]);
    const byNamespace = await client.core.listConfigMapForAllNamespaces({ fieldSelector: `metadata.namespace=${other}` });
    expect(byNamespace.items.map((i) => i.metadata!.name)).toContain('web-9');
    expect(byNamespace.items.every((i) => i.metadata!.namespace === other)).toBe(true);

    // Pods: the pod-specific field selectors.
    await client.core.createNamespacedPod({ namespace: ns, body: podBody('p1') });
    const pending = await client.core.listNamespacedPod({ namespace: ns, fieldSelector: 'status.phase=Pending,spec.nodeName=' });
    expect(pending.items.map((p) => p.metadata!.name)).toEqual(['p1']);
    const bad = await failure(client.core.listNamespacedPod({ namespace: ns, fieldSelector: 'spec.bogus=1' }));
    expect(bad.code).toBe(400);
  });

  test('limit + continue pagination: every object once, remainingItemCount, a consistent snapshot', async () => {
    const ns = await client.namespace('page');
    for (let i = 0; i < 25; i++) {
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${String(i).padStart(2, '0')}` } } });
    }
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    let pages = 0;
    let listRv: string | undefined;
    do {
      const page = await client.core.listNamespacedConfigMap({ namespace: ns, limit: 10, _continue: token });
      pages++;
      seen.push(...page.items.map((i) => i.metadata!.name!));
      remaining.push(page.metadata?.remainingItemCount);
      token = page.metadata?._continue || undefined;
      listRv ??= page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(listRv);
      // Writes between pages do not show up in the pages still to come.
      if (pages === 1) await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm-99-late' } } });
    } while (token);
    expect(pages).toBe(3);
    expect(remaining).toEqual([15, 5, undefined]);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen).not.toContain('cm-99-late');
    const bad = await failure(client.core.listNamespacedConfigMap({ namespace: ns, limit: 10, _continue: 'not-a-token' }));
    expect(bad.code).toBe(400);
  });

  test('generateName gives distinct server-chosen names', async () => {
    const ns = await client.namespace('gen');
    const a = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'job-' } } });
    const b = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'job-' } } });
    expect(a.metadata?.name).toMatch(/^job-[a-z0-9]{5}$/);
    expect(b.metadata?.name).toMatch(/^job-[a-z0-9]{5}$/);
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
    expect(a.metadata?.generateName).toBe('job-');
  });

  test('AppsV1Api: Deployment create, read, list, scale subresource', async () => {
    const ns = await client.namespace('apps');
    const deployment: k8s.V1Deployment = {
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
      },
    };
    const created = await client.apps.createNamespacedDeployment({ namespace: ns, body: deployment });
    expect(created.metadata?.generation).toBe(1);
    const list = await client.apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app=web' });
    expect(list.items.map((d) => d.metadata!.name)).toEqual(['web']);
    const scale = await client.apps.readNamespacedDeploymentScale({ name: 'web', namespace: ns });
    expect(scale.spec?.replicas).toBe(2);
    await client.apps.patchNamespacedDeploymentScale({ name: 'web', namespace: ns, body: { spec: { replicas: 5 } } }, mergePatch);
    const read = await client.apps.readNamespacedDeployment({ name: 'web', namespace: ns });
    expect(read.spec?.replicas).toBe(5);
    expect(read.metadata?.generation).toBe(2);
  });
  test('deleteCollection by label selector; dryRun=All writes nothing', async () => {
    const ns = await client.namespace('coll');
    for (const name of ['a', 'b', 'c']) {
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: { batch: name === 'c' ? 'keep' : 'drop' } } } });
    }
    await client.core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'batch=drop' });
    expect((await client.core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata!.name)).toEqual(['c']);

    const dry = await client.core.createNamespacedConfigMap({ namespace: ns, dryRun: 'All', body: { metadata: { name: 'dry' }, data: { a: '1' } } });
    expect(dry.metadata?.name).toBe('dry');
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'dry', namespace: ns }))).toBe('gone');
    await client.core.patchNamespacedConfigMap({ name: 'c', namespace: ns, dryRun: 'All', body: { data: { x: 'y' } } }, mergePatch);
    expect((await client.core.readNamespacedConfigMap({ name: 'c', namespace: ns })).data).toBeUndefined();
    await client.core.deleteNamespacedConfigMap({ name: 'c', namespace: ns, dryRun: 'All' });
    expect((await client.core.readNamespacedConfigMap({ name: 'c', namespace: ns })).metadata?.name).toBe('c');
  });
});
