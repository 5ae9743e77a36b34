/**
 * Raw HTTPS requests to an embedded cluster, for tests that must see exactly what goes over the
 * wire (nothing between the test and the server reshapes the request or the answer): a `test`
 * with a fresh cluster and a `call` function per test, and checks for refusals.
 */
import { expect, test as base } from '@playwright/test';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
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

