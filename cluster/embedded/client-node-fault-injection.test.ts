/**
 * Fault injection seen through the real @kubernetes/client-node (1.4.0): an injected 403, and the
 * embedded cluster's HTTP admin API for faults.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { request as httpsRequest } from 'node:https';
import { EmbeddedCluster } from './cluster.ts';
import { ClientNodeFixture, failure, readOrGone } from './test-kit.ts';

const client = ClientNodeFixture.register();

/** The embedded admin API for faults, over HTTPS with the cluster's CA and bearer token. */
function admin(cluster: EmbeddedCluster, method: string, path: string, body?: unknown): Promise<{ code: number; body: unknown }> {
  const url = new URL(path, cluster.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method,
        ca: cluster.certificateAuthority,
        agent: false,
        headers: {
          Authorization: `Bearer ${cluster.token}`,
          ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ code: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

test.describe('fault injection through the client', () => {
  test('a 403 fault on deleting secrets fails once, then deletes work', async () => {
    const ns = await client.namespace('fault');
    await client.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, stringData: { a: 'b' } } });
    client.cluster.faults.add({ verb: 'delete', resource: 'secrets', namespace: ns, status: 403, times: 1 });
    const denied = await failure(client.core.deleteNamespacedSecret({ name: 's', namespace: ns }));
    expect(denied.code).toBe(403);
    expect(denied.status.reason).toBe('Forbidden');
    expect((await client.core.readNamespacedSecret({ name: 's', namespace: ns })).metadata?.name).toBe('s');
    await client.core.deleteNamespacedSecret({ name: 's', namespace: ns });
    expect(await readOrGone(() => client.core.readNamespacedSecret({ name: 's', namespace: ns }))).toBe('gone');
  });

  test('the HTTP admin API adds faults (POST), lists them (GET) and clears them (DELETE)', async () => {
    // A dedicated cluster: clearing all faults must not disturb other tests.
    const own = await EmbeddedCluster.start();
    try {
      const config = new k8s.KubeConfig();
      config.loadFromString(own.kubeconfig());
      const api = config.makeApiClient(k8s.CoreV1Api);
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' } } });

      const once = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'get', resource: 'configmaps', status: 500, message: 'boom', times: 1 });
      expect(once.code).toBe(201);
      const failed = await failure(api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' }));
      expect(failed.code).toBe(500);
      expect(failed.status.message).toBe('boom');
      expect((await api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' })).metadata?.name).toBe('cm');

      const sticky = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'list', resource: 'configmaps', status: 503 });
      expect(sticky.code).toBe(201);
      const listed = await admin(own, 'GET', '/embedded.admin/v1/faults');
      expect((listed.body as { faults: { id: string }[] }).faults.map((f) => f.id)).toEqual([(sticky.body as { id: string }).id]);
      expect((await failure(api.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(503);
      expect((await failure(api.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(503);
      const cleared = await admin(own, 'DELETE', '/embedded.admin/v1/faults');
      expect(cleared.code).toBe(200);
      expect(own.faults.list()).toEqual([]);
      expect((await api.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata?.name)).toContain('cm');

      const invalid = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'get' });
      expect(invalid.code).toBe(400);
      const unauthorized = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(new URL('/embedded.admin/v1/faults', own.url), { ca: own.certificateAuthority, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(unauthorized).toBe(401);
    } finally {
      await own.stop();
    }
  });
});
