/**
 * The real @kubernetes/client-node (1.4.0) Exec against the embedded cluster without a node agent:
 * the failure comes as a Status, a bad container or Pod is refused before the upgrade.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { PassThrough } from 'node:stream';
import { ClientNodeFixture, podBody } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('exec', () => {
  test('without a node agent exec fails with a Status saying so', async () => {
    const ns = await client.namespace('exec');
    await client.core.createNamespacedPod({ namespace: ns, body: podBody('p') });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const statuses: k8s.V1Status[] = [];
    let socketClosed: Promise<void> | undefined;
    let failureMessage: string | undefined;
    try {
      const ws = await new k8s.Exec(client.kc).exec(ns, 'p', 'main', ['echo', 'hi'], stdout, stderr, null, false, (s) => statuses.push(s));
      socketClosed = new Promise((resolve) => {
        if (ws.readyState === ws.CLOSED) resolve();
        else ws.once('close', () => resolve());
      });
    } catch (error) {
      failureMessage = (error as { message?: string }).message;
    }
    if (socketClosed) await socketClosed;
    expect(failureMessage).toBeUndefined();
    expect(statuses).toHaveLength(1);
    expect(statuses[0].status).toBe('Failure');
    expect(statuses[0].message).toContain('no node agent');
  });

  test('exec into a container the Pod does not have is refused before the upgrade', async () => {
    const ns = await client.namespace('exec-bad');
    await client.core.createNamespacedPod({ namespace: ns, body: podBody('p') });
    const exec = new k8s.Exec(client.kc).exec(ns, 'p', 'nope', ['true'], new PassThrough(), null, null, false);
    // client-node reports a refused upgrade by its HTTP status only.
    await expect(exec).rejects.toMatchObject({ message: expect.stringContaining('400') });
    const missing = new k8s.Exec(client.kc).exec(ns, 'no-such-pod', 'main', ['true'], new PassThrough(), null, null, false);
    await expect(missing).rejects.toMatchObject({ message: expect.stringContaining('404') });
  });
});
