/**
 * Exec requests the embedded cluster cannot serve, over the wire: a plain GET without an upgrade
 * and an SPDY upgrade each get a 400 Status saying why. Raw HTTPS and a raw TLS socket.
 */

import { expect } from '@playwright/test';
import tls from 'node:tls';
import type { ApiServer } from './http-server.ts';
import { create, pod, PODS, refused, settle, test } from './test-kit.ts';

test.describe('exec', () => {
  test('exec by plain GET, without an upgrade: 400', async ({ cluster, call }) => {
    await create(call, PODS, pod('shell'));
    await settle(cluster);
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}/shell/exec?command=ls&stdout=true`),
      400,
      'BadRequest',
      /needs a WebSocket upgrade/,
    );
  });

  test('an SPDY upgrade: 400 Status that names WebSocket', async ({ cluster, call }) => {
    await create(call, PODS, pod('shell'));
    // The SPDY refusal comes after the Pod and node-agent checks; the agent is never asked to run anything.
    // (The cluster plugs its own node agent in only when started with one; a stub is enough here.)
    (cluster as unknown as { server: ApiServer }).server.setNodeBackend({
      logs: () => {
        throw new Error('not used');
      },
      exec: async () => {
        throw new Error('not used');
      },
    });
    await settle(cluster);
    const before = cluster.store.currentRevision();
    const { port } = new URL(cluster.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: cluster.certificateAuthority, ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(
          [
            'POST /api/v1/namespaces/default/pods/shell/exec?command=ls&stdout=true&stderr=true HTTP/1.1',
            `Host: 127.0.0.1:${port}`,
            `Authorization: Bearer ${cluster.token}`,
            'Connection: Upgrade',
            'Upgrade: SPDY/3.1',
            'X-Stream-Protocol-Version: v4.channel.k8s.io',
            'X-Stream-Protocol-Version: v3.channel.k8s.io',
            'Content-Length: 0',
            '',
            '',
          ].join('\r\n'),
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(head).not.toMatch(/\r\nUpgrade:/i);
    const status = JSON.parse(body);
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest' });
    expect(status.message).toMatch(/WebSocket/);
    expect(status.message).toMatch(/SPDY is not supported/);
    expect(cluster.store.currentRevision()).toBe(before);
    expect((await call('GET', `${PODS}/shell`)).status).toBe(200);
  });
});
