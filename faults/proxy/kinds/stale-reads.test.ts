/**
 * stale-reads through @kubernetes/client-node and kubectl: reads that allow a stale answer get
 * the cluster as it stood at the fault's revision, consistent ones get it as it stands; a watch
 * from "0" starts at the revision and holds what came after until healed.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { startWatch } from '../../../cluster/embedded/test-kit.ts';
import { parseRequest } from '../../request/parse-request.ts';
import { FaultProxy } from '../fault-proxy.ts';
import { ProxyFixture } from '../test-kit.ts';
import { staleReadRevision } from './stale-reads.ts';

const f = ProxyFixture.register();

test('which reads may be answered stale, and at which revision', () => {
  const at = (url: string) => staleReadRevision(parseRequest({ method: 'GET', url }), 10);
  expect(at('/api/v1/namespaces/n/pods/p?resourceVersion=0')).toBe(10);
  expect(at('/api/v1/namespaces/n/pods/p?resourceVersion=4')).toBe(10);
  expect(at('/api/v1/namespaces/n/pods/p?resourceVersion=14')).toBe(14);
  expect(at('/api/v1/namespaces/n/pods?resourceVersion=0&limit=500')).toBe(10);
  expect(at('/api/v1/namespaces/n/pods?resourceVersion=4&resourceVersionMatch=NotOlderThan&limit=5')).toBe(10);
  for (const consistent of [
    '/api/v1/namespaces/n/pods/p',
    '/api/v1/namespaces/n/pods?limit=500',
    '/api/v1/namespaces/n/pods?resourceVersion=4&resourceVersionMatch=Exact',
    '/api/v1/namespaces/n/pods?resourceVersion=4&limit=5',
    '/api/v1/namespaces/n/pods?continue=abc&limit=5',
  ]) {
    expect(at(consistent), consistent).toBeUndefined();
  }
});

test('GET and LIST with resourceVersion "0" answer the revision (404 for what did not exist then); consistent reads answer fresh', async () => {
  const ns = await f.namespace('stale');
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' }, data: { v: 'old' } } });
  const revision = await f.proxy.revision();
  await f.direct.patchNamespacedConfigMap({ namespace: ns, name: 'a', body: { data: { v: 'new' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });

  const what: string[] = [];
  const fault = f.proxy.activate({ kind: 'stale-reads', match: { namespace: ns }, revision }, (_r, _c, done) => what.push(done));
  // GETs with a resourceVersion as client-go sends them (client-node's typed reads send none).
  const kubeconfig = f.kubeconfigFile(0);
  const raw = (path: string) => f.kubectl.run(['get', '--raw', path], { kubeconfig });
  const stale = JSON.parse((await raw(`/api/v1/namespaces/${ns}/configmaps/a?resourceVersion=0`)).stdout) as k8s.V1ConfigMap;
  expect(stale).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { v: 'old' } });
  expect(Number(stale.metadata?.resourceVersion)).toBeLessThanOrEqual(Number(revision));
  expect(await raw(`/api/v1/namespaces/${ns}/configmaps/b?resourceVersion=0`)).toMatchObject({ exitCode: 1, stderr: 'Error from server (NotFound): configmaps "b" not found' });
  expect((await f.core.readNamespacedConfigMap({ namespace: ns, name: 'a' })).data).toEqual({ v: 'new' });

  const list = await f.core.listNamespacedConfigMap({ namespace: ns, resourceVersion: '0' });
  expect(list.metadata?.resourceVersion).toBe(revision);
  expect(list.items.map((c) => `${c.metadata?.name}=${c.data?.v}`)).toEqual(['a=old']);
  expect((await f.core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name)).toEqual(['a', 'b']);
  // kubectl get sends no resourceVersion: a consistent read.
  expect(await f.kubectl.ok(['-n', ns, 'get', 'configmaps', '-o', 'name'], { kubeconfig })).toBe('configmap/a\nconfigmap/b');
  expect(what).toEqual([`answered the get at revision ${revision}`, `answered the get at revision ${revision} (absent then: 404)`, `answered the list at revision ${revision}`]);
  expect(fault.applied).toBe(3);

  await fault.heal();
  expect(JSON.parse((await raw(`/api/v1/namespaces/${ns}/configmaps/a?resourceVersion=0`)).stdout)).toMatchObject({ data: { v: 'new' } });
});

test('a watch from "0" starts at the revision; newer events are held until healed, then delivered in order', async () => {
  const ns = await f.namespace('stale-watch');
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' }, data: { v: 'old' } } });
  const revision = await f.proxy.revision();
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });

  const what: string[] = [];
  const fault = f.proxy.activate({ kind: 'stale-reads', match: { namespace: ns }, revision }, (_r, _c, done) => what.push(done));
  const watch = await startWatch(f.proxy.kubeconfig(0), `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: '0' });
  await expect.poll(() => watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`), { message: 'the state at the revision' }).toEqual(['ADDED a']);
  const direct = await startWatch(f.adminKubeconfig(), `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: revision });
  await f.direct.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
  await expect.poll(() => direct.events.map((e) => `${e.type} ${e.object.metadata?.name}`), { message: 'the cluster went on' }).toEqual(['ADDED b', 'DELETED a']);
  await expect.poll(() => what.at(-1), { message: 'the proxy holds the newer events' }).toBe(`held the watch's events above revision ${revision}`);
  expect(watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED a']);
  await fault.heal();
  await expect.poll(() => watch.events.map((e) => `${e.type} ${e.object.metadata?.name}`), { message: 'the held events, in order' }).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
  expect(what).toEqual([`started the watch at revision ${revision} with 1 ADDED events`, `held the watch's events above revision ${revision}`, 'delivered 2 held events']);
  expect(fault.applied).toBe(2);
  await watch.stop();
  await direct.stop();
});

test("a stale GET is the driver's to make: RBAC's 403 is the answer, with nothing read at the revision", async () => {
  const ns = await f.namespace('stale-rbac');
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
  await f.direct.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'nobody' } } });
  const driver = new k8s.KubeConfig();
  driver.loadFromString(f.kubectl.cluster.kubeconfigForServiceAccount(ns, 'nobody'));
  const proxy = await FaultProxy.start({ upstream: driver, thirdParty: f.adminKubeconfig() });
  try {
    const fault = proxy.activate({ kind: 'stale-reads', match: {}, revision: await proxy.revision() });
    const answer = await f.raw(proxy.kubeconfig(0), 'GET', `/api/v1/namespaces/${ns}/configmaps/a?resourceVersion=0`);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: expect.stringContaining(`"system:serviceaccount:${ns}:nobody" cannot get resource "configmaps"`) });
    expect(fault.applied).toBe(0);
  } finally {
    await proxy.close();
  }
});
