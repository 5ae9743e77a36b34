import { expect, test } from '@playwright/test';
import { connect } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { EmbeddedCluster } from '../cluster.ts';
import { startWatch } from '../test-kit.ts';

/** `promise`, or a failure naming `stage` once `ms` pass first. */
function within<T>(promise: Promise<T>, ms: number, stage: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${stage}: not within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * stop() ends every connection the API server has, whatever state it is in: a stop that waited
 * for one would outlive its test (a connection accepted but still in its TLS handshake finished
 * it afterwards, served a watch, and kept the server's close waiting for ever — how a watch test
 * once hung to its timeout: client-node's ListWatch opens its next watch after stop() returned).
 */
test('stop() ends every connection: one still in its TLS handshake, an open watch', async () => {
  const cluster = await EmbeddedCluster.start();
  const url = new URL(cluster.url);
  // A TCP connection that never sends its ClientHello: to the server, a handshake in progress.
  const handshaking = connect(Number(url.port), url.hostname);
  const closed = new Promise<void>((resolve) => handshaking.once('close', () => resolve()));
  handshaking.on('error', () => undefined);
  await within(new Promise((resolve) => handshaking.once('connect', resolve)), 5_000, 'the TCP connection');
  const config = new k8s.KubeConfig();
  config.loadFromString(cluster.kubeconfig());
  const watch = await startWatch(config, '/api/v1/namespaces/default/configmaps', {});
  try {
    await within(cluster.stop(), 5_000, 'stop() with a connection in its handshake and an open watch');
    await within(closed, 5_000, 'the handshaking connection closed by the server');
    await within(watch.done, 5_000, "the watch's end told to its client");
    expect(watch.ended()).toBe(true);
  } finally {
    handshaking.destroy();
  }
});
