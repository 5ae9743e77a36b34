/**
 * The real @kubernetes/client-node (1.4.0) informer against the embedded cluster: its callbacks
 * and cache, and its recovery when its watch is cut (by a fault proxy in front of the cluster).
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { activateTimes, proxyInFront } from '../../faults/proxy/test-kit.ts';
import { ClientNodeFixture, mergePatch } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('informer', () => {
  test('add, update and delete callbacks fire; the cache follows', async () => {
    const ns = await client.namespace('inf');
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'before' } } });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const informer = k8s.makeInformer(client.kc, path, () => client.core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name} ${o.data?.v ?? ''}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await expect.poll(() => log).toEqual(['add before']);
      await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'x' } } });
      await client.core.patchNamespacedConfigMap({ name: 'x', namespace: ns, body: { data: { v: '1' } } }, mergePatch);
      await client.core.deleteNamespacedConfigMap({ name: 'before', namespace: ns });
      await expect.poll(() => log).toEqual(['add before', 'add x', 'update x 1', 'delete before']);
      expect(informer.list(ns).map((c) => c.metadata!.name)).toEqual(['x']);
      expect(informer.get('x', ns)?.data).toEqual({ v: '1' });
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  test('recovers when its watch is cut, losing no event', async () => {
    const ns = await client.namespace('inf-cut');
    const proxy = await proxyInFront(client.cluster);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const informer = k8s.makeInformer(proxy.kubeconfig(0), path, () => client.core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    const errors: unknown[] = [];
    let connects = 0;
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    informer.on('connect', () => connects++);
    // Three watch streams end after one event each, as a server ending a watch would.
    const fault = activateTimes(proxy, { kind: 'watch-close', match: { verb: 'watch', resource: 'configmaps', namespace: ns }, afterEvents: 1 }, 3);
    await informer.start();
    try {
      const expected: string[] = [];
      for (let i = 0; i < 6; i++) {
        await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `c${i}` } } });
        expected.push(`add c${i}`);
      }
      for (let i = 0; i < 3; i++) {
        await client.core.patchNamespacedConfigMap({ name: `c${i}`, namespace: ns, body: { data: { n: '1' } } }, mergePatch);
        expected.push(`update c${i}`);
      }
      await client.core.deleteNamespacedConfigMap({ name: 'c5', namespace: ns });
      expected.push('delete c5');
      await expect.poll(() => log).toEqual(expected);
      // Three watches were cut after one event each: the informer reconnected three times.
      expect(fault.applied).toBe(3);
      expect(connects).toBeGreaterThanOrEqual(4);
      expect(errors).toEqual([]);
      expect(informer.list(ns).map((c) => c.metadata!.name).sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    } finally {
      await informer.stop();
      await fault.heal();
      await proxy.close();
    }
  });
});
