/**
 * Raw HTTPS requests to an embedded cluster, for tests that must see exactly what goes over the
 * wire (nothing between the test and the server reshapes the request or the answer): a `test`
 * with a fresh cluster and a `call` function per test, checks for refusals, and the objects and
 * set-up the `http-bad-input-*.test.ts` files share.
 */
import { expect, test as base } from '@playwright/test';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { parseAllDocuments } from 'yaml';
import { upstreamManifests } from '../../manifests/test-kit.ts';
import { EmbeddedCluster } from '../cluster.ts';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  /** An object is sent as JSON; strings and buffers as they are. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** `null` sends no Authorization header; a string sends that token instead of the cluster's. */
  token?: string | null;
  /** Send the body in chunks without Content-Length (Transfer-Encoding: chunked). */
  chunked?: boolean;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export type RequestFn = (method: string, path: string, options?: RequestOptions) => Promise<Reply>;

export function send(cluster: EmbeddedCluster, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(path, cluster.url);
  const payload =
    options.body === undefined
      ? undefined
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== null) headers.Authorization = `Bearer ${options.token ?? cluster.token}`;
  if (options.accept) headers.Accept = options.accept;
  if (payload) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    if (!options.chunked) headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = https.request(
      { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, ca: cluster.certificateAuthority, agent: false },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    // The server may answer (413) before it has read everything we send; that is not an error here.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (payload && options.chunked) {
      for (let at = 0; at < payload.length; at += 256 * 1024) req.write(payload.subarray(at, at + 256 * 1024));
    } else if (payload) {
      req.write(payload);
    }
    req.end();
  });
}

/** A fresh cluster per test (they start in milliseconds), settled: the default ServiceAccounts exist. */
export const test = base.extend<{ cluster: EmbeddedCluster; call: RequestFn }>({
  // eslint-disable-next-line no-empty-pattern
  cluster: async ({}, use) => {
    const cluster = await EmbeddedCluster.start();
    await expect.poll(() => cluster.store.list('serviceaccounts').length, { intervals: [5] }).toBe(4);
    await use(cluster);
    await cluster.stop();
  },
  call: async ({ cluster }, use) => {
    await use((method, path, options) => send(cluster, method, path, options));
  },
});

export function expectStatus(reply: Reply, code: number, reason: string, message: string | RegExp): void {
  expect(reply.status, reply.text).toBe(code);
  expect(reply.headers['content-type']).toBe('application/json');
  expect(reply.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason });
  if (typeof message === 'string') expect(reply.body.message).toBe(message);
  else expect(reply.body.message).toMatch(message);
}

/**
 * Sends a request that must be refused: checks the Status, that the store did not change
 * (no revision was used), and that the server still answers a plain GET.
 */
export async function refused(
  cluster: EmbeddedCluster,
  call: RequestFn,
  send: () => Promise<Reply>,
  code: number,
  reason: string,
  message: string | RegExp,
): Promise<Reply> {
  const before = cluster.store.currentRevision();
  const reply = await send();
  expectStatus(reply, code, reason, message);
  expect(cluster.store.currentRevision(), 'a refused request must store nothing').toBe(before);
  const followUp = await call('GET', '/api/v1/namespaces/default');
  expect(followUp.status).toBe(200);
  expect(followUp.body.metadata.name).toBe('default');
  return reply;
}

// ---- what the http-bad-input-*.test.ts files send and wait for --------------------------------

export const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
export const PODS = '/api/v1/namespaces/default/pods';
export const SANDBOXES = '/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes';

/** Bodies of the kinds these tests send. */
export const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
  ...extra,
});

export const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
});

export const sandbox = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name },
  spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] } }, ...spec },
});

/** Creates an object that must be accepted (201). */
export async function create(call: RequestFn, path: string, body: unknown): Promise<Reply> {
  const reply = await call('POST', path, { body });
  expect(reply.status, reply.text).toBe(201);
  return reply;
}

let sandboxCrd: unknown;

/** Installs the real Agent Sandbox v0.5.0 Sandbox CRD and waits until it is Established. */
export async function installSandboxCrd(call: RequestFn): Promise<void> {
  if (!sandboxCrd) {
    const upstream = upstreamManifests('v0.5.0');
    test.skip(!!upstream.missing, upstream.missing);
    sandboxCrd = parseAllDocuments(readFileSync(upstream.paths['v0.5.0'], 'utf8'))
      .map((doc) => doc.toJS() as { kind?: string; metadata?: { name?: string } } | null)
      .find((doc) => doc?.kind === 'CustomResourceDefinition' && doc.metadata?.name === 'sandboxes.agents.x-k8s.io');
  }
  expect(sandboxCrd).toBeTruthy();
  await create(call, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', sandboxCrd);
  await expect
    .poll(async () => {
      const reply = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sandboxes.agents.x-k8s.io');
      const conditions = (reply.body?.status?.conditions ?? []) as { type: string; status: string }[];
      return conditions.find((c) => c.type === 'Established')?.status;
    }, { intervals: [10] })
    .toBe('True');
}

/** Waits until asynchronous controller work (default ServiceAccounts, CRD status) has stopped writing. */
export async function settle(cluster: EmbeddedCluster): Promise<void> {
  let last = -1;
  await expect
    .poll(async () => {
      await new Promise((r) => setImmediate(r));
      const now = cluster.store.currentRevision();
      const stable = now === last;
      last = now;
      return stable;
    }, { intervals: [10] })
    .toBe(true);
}
