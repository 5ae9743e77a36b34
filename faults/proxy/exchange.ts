/**
 * One client request at the proxy and its answer: the request as received (body buffered up to
 * 3 MiB, so faults can read it; a larger one streams through uninspected), forwarding it
 * upstream as the driver, and answering the client (relayed, made up by a fault, or dropped).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeRequest } from '../request/kube-request.ts';
import { sendStatus, type KubeStatus } from './kube-status.ts';
import { answerOf, endToEndHeaders, readAll, type UpstreamIdentity } from './upstream.ts';

export const BODY_INSPECTION_LIMIT = 3 * 1024 * 1024;

/** A request body: whole, or (beyond the limit) the chunks read so far and the rest still in the request. */
export type RequestBody = { whole: Buffer } | { head: Buffer[]; rest: IncomingMessage };

export function readRequestBody(req: IncomingMessage): Promise<RequestBody> {
  // Events rather than for-await: leaving a for-await loop early would destroy the request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= BODY_INSPECTION_LIMIT) return;
      req.pause();
      req.off('data', onData).off('end', onEnd);
      resolve({ head: chunks, rest: req });
    };
    const onEnd = () => resolve({ whole: Buffer.concat(chunks) });
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** Sends a request with its body upstream and resolves with the answer's head, its body unread. */
export async function sendUpstream(identity: UpstreamIdentity, method: string, path: string, headers: Record<string, string | string[]>, body: RequestBody): Promise<IncomingMessage> {
  if ('whole' in body) return (await identity.answerWhole(method, path, headers, body.whole.length ? body.whole : undefined)).response;
  const upstream = await identity.send(method, path, headers);
  return answerOf(upstream, body.head, body.rest);
}

export interface UpstreamAnswerBytes {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** What a watch starts from when a fault changes it: another upstream path, events sent before the upstream's. */
export interface WatchStart {
  path: string;
  prelude: string[];
}

export class Exchange {
  /** Set by a fault that moves a watch's start (stale reads): the relay opens this instead. */
  watchStart?: WatchStart;

  constructor(
    readonly request: KubeRequest,
    readonly client: number,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly body: RequestBody,
    readonly driver: UpstreamIdentity,
  ) {}

  /** Headers to send upstream: the client's end-to-end ones, `overrides` on top. */
  upstreamHeaders(overrides: Record<string, string> = {}): Record<string, string | string[]> {
    return { ...endToEndHeaders(this.req.headers), ...overrides };
  }

  /** Sends the request upstream as the driver (optionally to another path) and reads the whole answer. */
  async forward(path = this.request.path): Promise<UpstreamAnswerBytes> {
    const response = await this.send(path, this.upstreamHeaders());
    return { status: response.statusCode ?? 502, headers: endToEndHeaders(response.headers), body: await readAll(response) };
  }

  /** Sends the request upstream as the driver and resolves with the answer's head, its body unread. */
  send(path: string, headers: Record<string, string | string[]>): Promise<IncomingMessage> {
    return sendUpstream(this.driver, this.req.method ?? 'GET', path, headers, this.body);
  }

  /** Relays an upstream answer (or one made like it) to the client. */
  answer(answer: UpstreamAnswerBytes): void {
    const headers = { ...answer.headers, 'content-length': String(answer.body.length) };
    this.res.writeHead(answer.status, headers).end(answer.body);
  }

  /** Answers a JSON object with 200. */
  answerJson(object: unknown): void {
    const body = Buffer.from(JSON.stringify(object));
    this.answer({ status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache, private' }, body });
  }

  answerStatus(status: KubeStatus, retryAfterSeconds?: number): void {
    sendStatus(this.res, status, retryAfterSeconds);
  }

  /** Ends the client's connection without an answer (a reset where the socket allows it). */
  drop(): void {
    const socket = this.req.socket;
    try {
      socket.resetAndDestroy();
    } catch {
      // A TLS socket over a handle that cannot reset: closing it is the same loss to the client.
      socket.destroy();
    }
  }
}
