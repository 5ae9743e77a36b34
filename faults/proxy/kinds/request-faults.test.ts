/**
 * The request fault kinds through real clients: latency (order, never durations), error (each
 * status in kube-apiserver's shape; kubectl retrying a 429 by its Retry-After; `commit`), reset
 * (with and without `commit`) and conflict (a genuine 409 only for a resourceVersion precondition).
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { failure, mergePatch } from '../../../cluster/embedded/test-kit.ts';
import type { ActiveFault, ProxyFaultSpec } from '../proxy-fault.ts';
import { ProxyFixture, within } from '../test-kit.ts';
import { CONCURRENT_WRITE_ANNOTATION } from './request-faults.ts';

const f = ProxyFixture.register();

/** A fault that heals itself the first time it acts, as a schedule's one-shot fault would. */
function once(spec: ProxyFaultSpec, what: string[] = []): ActiveFault {
  const fault: ActiveFault = f.proxy.activate(spec, (_request, _client, done) => {
    what.push(done);
    void fault.heal();
  });
  return fault;
}

test('latency: the delayed request is answered after a later one without the fault', async () => {
  const ns = await f.namespace('latency');
  for (const name of ['slow', 'fast']) await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
  const fault = f.proxy.activate({ kind: 'latency', match: { verb: 'get', namespace: ns, name: 'slow' }, ms: 1500 });
  const order: string[] = [];
  let received!: () => void;
  const slowReceived = new Promise<void>((resolve) => (received = resolve));
  const stop = f.proxy.observe((request, phase) => void (phase === 'received' && request.name === 'slow' && received()));
  const slow = f.core.readNamespacedConfigMap({ namespace: ns, name: 'slow' }).then(() => order.push('slow'));
  await within(slowReceived, 'the slow get at the proxy');
  stop();
  await f.core.readNamespacedConfigMap({ namespace: ns, name: 'fast' }).then(() => order.push('fast'));
  await within(slow, 'the slow get answered');
  await fault.heal();
  expect(order).toEqual(['fast', 'slow']);
  expect(fault.applied).toBe(1);
});

test('error 429: kubectl get still succeeds (client-go waits out Retry-After and retries); applied once', async () => {
  const ns = await f.namespace('too-many');
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' } } });
  const what: string[] = [];
  const fault = once({ kind: 'error', match: { verb: 'get', resource: 'configmaps', namespace: ns }, status: 429 }, what);
  expect(await f.kubectl.ok(['-n', ns, 'get', 'configmap', 'c', '-o', 'name'], { kubeconfig: f.kubeconfigFile(0) })).toBe('configmap/c');
  expect(fault.applied).toBe(1);
  expect(what).toEqual(['answered 429']);
});

test('error: each status as kube-apiserver answers it, Retry-After exactly where it sends one', async () => {
  const ns = await f.namespace('errors');
  const kc = f.proxy.kubeconfig(0);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const answered = async (spec: Omit<Extract<ProxyFaultSpec, { kind: 'error' }>, 'kind' | 'match'>) => {
    const fault = f.proxy.activate({ kind: 'error', match: { namespace: ns }, ...spec });
    const answer = await f.raw(kc, 'GET', path);
    await fault.heal();
    return { status: answer.status, retryAfter: answer.headers['retry-after'], body: JSON.parse(answer.text) };
  };
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
  expect(await answered({ status: 429 })).toEqual({
    status: 429,
    retryAfter: '1',
    body: { ...status, message: 'Too many requests, please try again later.', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429 },
  });
  expect(await answered({ status: 500 })).toEqual({ status: 500, retryAfter: undefined, body: { ...status, message: 'etcdserver: request timed out', code: 500 } });
  expect(await answered({ status: 500, retryAfterSeconds: 2 })).toEqual({
    status: 500,
    retryAfter: '2',
    body: { ...status, message: 'The list operation against configmaps could not be completed at this time, please try again.', reason: 'ServerTimeout', details: { name: 'list', group: '', kind: 'configmaps', retryAfterSeconds: 2 }, code: 500 },
  });
  expect(await answered({ status: 503 })).toEqual({ status: 503, retryAfter: '1', body: { ...status, message: 'apiserver is shutting down', reason: 'ServiceUnavailable', code: 503 } });
  expect(await answered({ status: 504 })).toEqual({ status: 504, retryAfter: undefined, body: { ...status, message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 } });
});

test('error with commit: the create lands, the client gets the 504 and its retry meets AlreadyExists', async () => {
  const ns = await f.namespace('commit');
  const fault = once({ kind: 'error', match: { verb: 'create', namespace: ns }, status: 504, commit: true });
  const lost = await failure(f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'landed' } } }));
  expect(lost).toMatchObject({ code: 504, status: { reason: 'Timeout' } });
  expect(fault.applied).toBe(1);
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'landed' })).metadata?.name).toBe('landed');
  expect(await failure(f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'landed' } } }))).toMatchObject({ code: 409, status: { reason: 'AlreadyExists' } });
});

test('reset: the connection ends without an answer; with commit only after the write landed', async () => {
  const ns = await f.namespace('reset');
  once({ kind: 'reset', match: { verb: 'create', namespace: ns } });
  await expect(f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'never' } } })).rejects.toThrow(/socket hang up|ECONNRESET|network/i);
  expect((await f.direct.listNamespacedConfigMap({ namespace: ns })).items).toEqual([]);

  const fault = once({ kind: 'reset', match: { verb: 'create', namespace: ns }, commit: true });
  await expect(f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'landed' } } })).rejects.toThrow(/socket hang up|ECONNRESET|network/i);
  expect(fault.applied).toBe(1);
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'landed' })).metadata?.name).toBe('landed');
});

test('conflict: a patch carrying the current resourceVersion meets a real concurrent write (409); unconditioned and UID-only writes pass', async () => {
  const ns = await f.namespace('conflict');
  const created = await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' }, data: { n: '0' } } });
  const what: string[] = [];
  const fault = f.proxy.activate({ kind: 'conflict', match: { resource: 'configmaps', namespace: ns } }, (_r, _c, done) => what.push(done));
  const current = created.metadata!.resourceVersion!;

  const patch = (body: object) => f.core.patchNamespacedConfigMap({ namespace: ns, name: 'c', body }, mergePatch);
  const conflict = await failure(patch({ metadata: { resourceVersion: current }, data: { n: '1' } }));
  expect(conflict).toMatchObject({ code: 409, status: { reason: 'Conflict', message: 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again' } });
  const after = await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'c' });
  expect(after.data).toEqual({ n: '0' });
  expect(after.metadata?.annotations?.[CONCURRENT_WRITE_ANNOTATION]).toBeTruthy();
  expect(Number(after.metadata?.resourceVersion)).toBeGreaterThan(Number(current));
  expect(fault.applied).toBe(1);
  expect(what).toEqual([`wrote configmaps/c concurrently (rv ${current} -> ${after.metadata?.resourceVersion})`]);

  expect((await patch({ data: { n: '2' } })).data).toEqual({ n: '2' });
  expect((await patch({ metadata: { uid: after.metadata!.uid }, data: { n: '3' } })).data).toEqual({ n: '3' });
  expect(fault.applied).toBe(1);
  await fault.heal();
  const fresh = await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'c' });
  expect((await patch({ metadata: { resourceVersion: fresh.metadata!.resourceVersion }, data: { n: '4' } })).data).toEqual({ n: '4' });
});

test('faults match: other namespaces, verbs and clients pass untouched', async () => {
  const ns = await f.namespace('match');
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' } } });
  const fault = f.proxy.activate({ kind: 'error', match: { verb: 'get', namespace: ns, client: 1 }, status: 503 });
  expect((await f.core.readNamespacedConfigMap({ namespace: ns, name: 'c' })).metadata?.name).toBe('c');
  expect((await f.core.listNamespacedConfigMap({ namespace: ns })).items).toHaveLength(1);
  const other = f.proxy.kubeconfig(1).makeApiClient(k8s.CoreV1Api);
  expect(await failure(other.readNamespacedConfigMap({ namespace: ns, name: 'c' }))).toMatchObject({ code: 503 });
  await fault.heal();
  expect(fault.applied).toBe(1);
});
