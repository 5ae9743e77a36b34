/**
 * The driver asks again when the API server says to come back later, as client-go does: a 429
 * or 5xx carrying Retry-After (max-inflight throttling, a server shutting down, a storage
 * timeout answered as ServerTimeout) is sent again after the time it names, any verb; a read
 * whose connection was reset is sent again; a 5xx without Retry-After is the call's error.
 * Against the fault proxy in front of an embedded cluster, each fault as kube-apiserver sends it.
 */
import * as k8s from '@kubernetes/client-node';
import { activateTimes } from '../../faults/proxy/test-kit.ts';
import { retryDelay } from './kube.ts';
import { ANNOTATION } from './names.ts';
import { MAIN, driverError, expect, test } from './test-kit.ts';

const answer = (code: number, headers: Record<string, string> = {}) => new k8s.ApiException(code, 'answered', '{}', headers);

test('which failures are sent again, and after how long', () => {
  expect(retryDelay(answer(429, { 'Retry-After': '1' }), false)).toBe(1000);
  expect(retryDelay(answer(503, { 'retry-after': '2' }), false)).toBe(2000);
  expect(retryDelay(answer(500, { 'retry-after': '600' }), true)).toBe(10_000);
  // Without Retry-After the server did not say the request was left undone: client-go does not retry.
  expect(retryDelay(answer(500), true)).toBeUndefined();
  expect(retryDelay(answer(429), true)).toBeUndefined();
  expect(retryDelay(answer(409, { 'retry-after': '1' }), false)).toBeUndefined();
  const reset = Object.assign(new Error('request to https://x failed, reason: socket hang up'), { cause: { code: 'ECONNRESET' } });
  expect(retryDelay(reset, true)).toBe(1000);
  // A write whose connection was reset may have landed: not sent again.
  expect(retryDelay(reset, false)).toBeUndefined();
});

test('throttled reads and writes, and a reset read, are sent again: the calls succeed; a 500 without Retry-After fails the call', async ({ lab }) => {
  test.setTimeout(60_000);
  const cluster = await lab.cluster();
  const proxy = await lab.proxy(cluster);
  const d = lab.driver(cluster, {}, undefined, proxy);
  const throttledCreate = activateTimes(proxy, { kind: 'error', status: 429, retryAfterSeconds: 1, match: { verb: 'create', resource: 'sandboxes' } }, 2);
  const sandbox = await d.create({ name: 'retried', command: MAIN });
  expect(throttledCreate.applied).toBe(2);
  const reset = activateTimes(proxy, { kind: 'reset', match: { verb: ['get', 'list'], resource: 'sandboxes' } }, 1);
  expect((await d.get(sandbox.id)).phase).toBe('Ready');
  expect(reset.applied).toBe(1);
  const shuttingDown = activateTimes(proxy, { kind: 'error', status: 503, retryAfterSeconds: 1, match: { verb: ['get', 'list'], resource: 'sandboxes' } }, 1);
  expect((await d.get(sandbox.id)).phase).toBe('Ready');
  expect(shuttingDown.applied).toBe(1);
  const timeout = activateTimes(proxy, { kind: 'error', status: 500, match: { verb: ['get', 'list'], resource: 'sandboxes' } }, 1);
  const error = await driverError(d.get(sandbox.id));
  expect(timeout.applied).toBe(1);
  expect(error.code).toBe('INTERNAL');
});

test("the background completion reads through the API server's passing trouble: a create whose completion meets 500s on its reads still becomes Ready", async ({ lab }) => {
  test.setTimeout(60_000);
  const cluster = await lab.cluster();
  const proxy = await lab.proxy(cluster);
  const d = lab.driver(cluster, {}, undefined, proxy);
  // Once the create has installed its generation (the `released` patch written: a 409, when the
  // controller wrote the Sandbox in between, makes the create read it again, which is not the
  // completion's read), the next two reads of the driver meet etcd's timeout (500, no
  // Retry-After): the background completion's.
  let injected: ReturnType<typeof activateTimes> | undefined;
  proxy.observe((request, phase, _client, answer) => {
    const annotations = (request.body as { metadata?: { annotations?: Record<string, unknown> } } | undefined)?.metadata?.annotations;
    if (injected || phase !== 'answered' || !answer || answer.status >= 300 || request.verb !== 'patch' || request.resource !== 'sandboxes' || annotations?.[ANNOTATION.phase] !== 'released') return;
    injected = activateTimes(proxy, { kind: 'error', status: 500, match: { verb: 'get' } }, 2);
  });
  const sandbox = await d.create({ name: 'completes', command: MAIN }, { deadline: Date.now() + 30_000 });
  expect(sandbox.phase).toBe('Ready');
  expect(injected?.applied, 'both reads met the error').toBe(2);
  expect(lab.logs.filter((l) => l.includes('create completion')).join('\n')).toContain('reading again');
});
