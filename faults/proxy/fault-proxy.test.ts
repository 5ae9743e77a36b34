/**
 * The fault proxy as a relay, through real clients (@kubernetes/client-node, kubectl) against
 * the embedded cluster: reads, writes, discovery and exec pass; an unknown token gets 401; the
 * observers see each request and can drop its answer; close() leaves nothing open.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { PassThrough } from 'node:stream';
import { failure, podBody } from '../../cluster/embedded/test-kit.ts';
import { generateServingCertificate } from '../../cluster/embedded/tls.ts';
import { FaultProxy, narrowedAccept } from './fault-proxy.ts';
import { ProxyFixture, within } from './test-kit.ts';

const f = ProxyFixture.register({ node: { backoffMs: 100, maxBackoffMs: 400 } });

test('client-node and kubectl read and write through it; each client has its own token; an unknown token gets 401', async () => {
  const ns = await f.namespace('relay');
  await f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' }, data: { a: '1' } } });
  expect((await f.core.readNamespacedConfigMap({ namespace: ns, name: 'c' })).data).toEqual({ a: '1' });
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'c' })).data).toEqual({ a: '1' });

  // kubectl: discovery, a Table list, a JSON apply (client-side: GET, then PATCH).
  const kubeconfig = f.kubeconfigFile(1);
  expect(await f.kubectl.ok(['-n', ns, 'get', 'configmaps', '-o', 'name'], { kubeconfig })).toBe('configmap/c');
  await f.kubectl.ok(['-n', ns, 'apply', '-f', '-'], { kubeconfig, input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\ndata:\n  b: "2"\n` });
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'd' })).data).toEqual({ b: '2' });

  const clients: number[] = [];
  const stop = f.proxy.observe((request, phase, client) => void (phase === 'received' && request.namespace === ns && clients.push(client)));
  await f.proxy.kubeconfig(3).makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ namespace: ns, name: 'c' });
  stop();
  expect(clients).toEqual([3]);

  const stranger = f.proxy.kubeconfig(0);
  stranger.users[0] = { ...stranger.users[0], token: 'not-a-token-of-this-proxy' };
  const refused = await f.raw(stranger, 'GET', `/api/v1/namespaces/${ns}/configmaps/c`);
  expect(refused.status).toBe(401);
  expect(JSON.parse(refused.text)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
});

test('kubectl exec through the proxy: the upgrade is relayed and both directions piped', async () => {
  const ns = await f.namespace('exec');
  await f.direct.createNamespacedPod({ namespace: ns, body: podBody('shell', { terminationGracePeriodSeconds: 1 }) });
  const kubeconfig = f.kubeconfigFile(0);
  expect(await f.kubectl.ok(['-n', ns, 'wait', '--for=condition=Ready', 'pod/shell', '--timeout=30s'], { kubeconfig })).toBe('pod/shell condition met');
  expect(await f.kubectl.run(['-n', ns, 'exec', 'shell', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'], { kubeconfig })).toMatchObject({ stdout: 'out', stderr: expect.stringContaining('err'), exitCode: 3 });
  expect(await f.kubectl.ok(['-n', ns, 'exec', '-i', 'shell', '--', 'tr', 'a-z', 'A-Z'], { kubeconfig, input: 'through the proxy\n' })).toBe('THROUGH THE PROXY');
  // Refused before the upgrade: the upstream's answer as it came.
  expect(await f.kubectl.fails(['-n', ns, 'exec', 'shell', '-c', 'nope', '--', 'true'], { kubeconfig })).toBe('Error from server (BadRequest): container nope is not valid for pod shell');
});

test('observers: received before the upstream, answered after it; drop at answered: the write landed, the client lost its connection', async () => {
  const ns = await f.namespace('observe');
  const seen: string[] = [];
  const stop = f.proxy.observe((request, phase, _client, answer) => {
    if (request.namespace !== ns) return;
    seen.push(`${phase} ${request.verb} ${request.writeIndex ?? '-'}${answer ? ` ${answer.status} ${(answer.body as { metadata?: { name?: string } }).metadata?.name}` : ''}`);
    if (phase === 'answered' && request.verb === 'create') return 'drop';
  });
  const created = f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'landed' } } });
  await expect(created).rejects.toThrow();
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'landed' })).metadata?.name).toBe('landed');
  await f.core.readNamespacedConfigMap({ namespace: ns, name: 'landed' });
  stop();
  expect(seen).toEqual([expect.stringMatching(/^received create \d+$/), expect.stringMatching(/^answered create \d+ 201 landed$/), 'received get -', 'answered get - 200 landed']);

  // A promise holds the request until it settles: nothing reaches the upstream before.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  const unhold = f.proxy.observe((request, phase) => (request.namespace === ns && phase === 'received' && request.verb === 'create' ? gate : undefined));
  const held = f.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held' } } }).then(() => order.push('created'));
  await expect.poll(async () => (await f.direct.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name), { message: 'the held create stays out' }).toEqual(['landed']);
  order.push('released');
  release();
  await within(held, 'the held create, once released');
  unhold();
  expect(order).toEqual(['released', 'created']);
});

test('a body over 3 MiB passes uninspected: the observer sees no body, the upstream judges all of it (413, as when sent directly)', async () => {
  const ns = await f.namespace('big');
  const seen: { body: boolean; status?: number }[] = [];
  const stop = f.proxy.observe((request, _phase, _client, answer) => void (request.namespace === ns && seen.push({ body: 'body' in request, status: answer?.status })));
  const big = { metadata: { name: 'big' }, data: { blob: 'x'.repeat(3.5 * 1024 * 1024) } };
  const through = await f.raw(f.proxy.kubeconfig(0), 'POST', `/api/v1/namespaces/${ns}/configmaps`, big);
  stop();
  const direct = await f.raw(f.adminKubeconfig(), 'POST', `/api/v1/namespaces/${ns}/configmaps`, { ...big, metadata: { name: 'big-direct' } });
  expect(through.status).toBe(direct.status);
  expect(seen).toEqual([{ body: false }, { body: false, status: through.status }]);
  const small = await f.raw(f.proxy.kubeconfig(0), 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'small' } });
  expect(small.status).toBe(201);
});

test('close() ends relayed watches and connections, one still in its TLS handshake too, and stops listening', async () => {
  const ns = await f.namespace('close');
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TLSWrap' || r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
  const before = sockets();
  const admin = f.adminKubeconfig();
  const proxy = await FaultProxy.start({ upstream: admin, thirdParty: admin });
  const kc = proxy.kubeconfig(0);
  // A TCP connection that never sends its ClientHello: to the proxy, a handshake in progress.
  const handshaking = connect(Number(new URL(proxy.url).port), '127.0.0.1');
  handshaking.on('error', () => undefined);
  const handshakingClosed = new Promise<void>((resolve) => handshaking.once('close', () => resolve()));
  await within(new Promise((resolve) => handshaking.once('connect', resolve)), 'the TCP connection to the proxy');
  await kc.makeApiClient(k8s.CoreV1Api).listNamespacedConfigMap({ namespace: ns });
  let ended: unknown = 'open';
  const events: string[] = [];
  const watching = new Promise<void>((resolve) => {
    void new k8s.Watch(kc).watch(`/api/v1/namespaces/${ns}/configmaps`, {}, (type, object: k8s.V1ConfigMap) => events.push(`${type} ${object.metadata?.name}`), (err) => {
      ended = err;
      resolve();
    });
  });
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'seen' } } });
  await expect.poll(() => events, { message: 'the watch relays' }).toEqual(['ADDED seen']);
  await within(proxy.close(), 'close() with a connection in its handshake and a relayed watch');
  await within(handshakingClosed, 'the handshaking connection closed by the proxy');
  await within(watching, 'the watch ending as the proxy closes');
  expect(ended).toBeNull();
  await expect(kc.makeApiClient(k8s.CoreV1Api).listNamespacedConfigMap({ namespace: ns })).rejects.toThrow(/ECONNREFUSED/);
  await expect.poll(sockets, { message: 'every socket of the proxy closed' }).toBeLessThanOrEqual(before);
});

test('exec through client-node: stdout arrives over the relayed WebSocket', async () => {
  const ns = await f.namespace('ws');
  await f.direct.createNamespacedPod({ namespace: ns, body: podBody('p', { terminationGracePeriodSeconds: 1 }) });
  await expect.poll(async () => (await f.direct.readNamespacedPod({ namespace: ns, name: 'p' })).status?.phase, { message: 'the Pod runs', timeout: 30_000 }).toBe('Running');
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const statuses: k8s.V1Status[] = [];
  await new k8s.Exec(f.proxy.kubeconfig(0)).exec(ns, 'p', 'main', ['echo', 'hi'], stdout, null, null, false, (s) => statuses.push(s));
  await expect.poll(() => statuses.length, { message: 'the exec ends with its Status' }).toBe(1);
  expect(statuses[0].status).toBe('Success');
  expect(out).toBe('hi\n');
  const refused = await failure(f.proxy.kubeconfig(0).makeApiClient(k8s.CoreV1Api).readNamespacedPod({ namespace: ns, name: 'absent' }));
  expect(refused.code).toBe(404);
});

test('kubectl get -w through the proxy: the Table stream is relayed event by event', async () => {
  const ns = await f.namespace('table-watch');
  const kubeconfig = f.kubeconfigFile(0);
  // kubectl watches from its list's resourceVersion: a create once its watch is sent is in the stream.
  let watchSent!: () => void;
  const sent = new Promise<void>((resolve) => (watchSent = resolve));
  const stop = f.proxy.observe((request, phase) => void (phase === 'received' && request.verb === 'watch' && request.namespace === ns && watchSent()));
  const watching = f.kubectl.spawn(['-n', ns, 'get', 'configmaps', '-w', '--output-watch-events'], { kubeconfig });
  let out = '';
  watching.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await within(sent, "kubectl's watch request");
  stop();
  await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'watched' } } });
  await expect.poll(() => out, { message: 'the watched create as a Table row' }).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE\nADDED\s+watched\s+0\s+\S+\n$/);
  watching.kill('SIGKILL');
  await within(watching, 'kubectl exiting on SIGKILL');
});

test('a certificate given at start is the one it serves, and the kubeconfigs it writes trust it', async () => {
  // A fresh certificate, not the proxy's own: the embedded API server's kind, named after it.
  const given = await generateServingCertificate();
  const proxy = await FaultProxy.start({ thirdParty: f.adminKubeconfig(), certificate: given });
  try {
    const served = await new Promise<string>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(new URL(proxy.url).port), ca: given.cert }, () => {
        resolve(socket.getPeerCertificate().subject.CN);
        socket.end();
      });
      socket.on('error', reject);
    });
    expect(served).toBe('embedded-kube-apiserver');
    const ns = await f.namespace('given-certificate');
    expect((await proxy.kubeconfig(0, f.adminKubeconfig()).makeApiClient(k8s.CoreV1Api).listNamespacedConfigMap({ namespace: ns })).items).toBeDefined();
  } finally {
    await proxy.close();
  }
});

test('narrowedAccept keeps the JSON forms a watch offers (Tables too) and a protobuf-only Accept as it is', () => {
  expect(narrowedAccept('application/vnd.kubernetes.protobuf, application/json')).toBe('application/json');
  expect(narrowedAccept('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json')).toBe(
    'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
  );
  expect(narrowedAccept('application/vnd.kubernetes.protobuf;type=watch')).toBe('application/vnd.kubernetes.protobuf;type=watch');
  expect(narrowedAccept(undefined)).toBeUndefined();
});

test('bad input is refused with a clear error', () => {
  expect(() => f.proxy.kubeconfig(-1)).toThrow('a client is a driver replica\'s index (0, 1, ...), got -1');
  expect(() => f.proxy.activate({ kind: 'nonsense' } as never)).toThrow('unknown proxy fault kind "nonsense"; known: latency, error, reset, conflict, stale-reads, watch-close, watch-hold, watch-expire');
  expect(() => f.proxy.activate({ kind: 'stale-reads', match: {}, revision: 'yesterday' })).toThrow('stale-reads: revision must be a cluster resourceVersion (a positive integer), got "yesterday"');
});
