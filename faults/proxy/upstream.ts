/**
 * The API server behind the proxy, reached as one of two identities: the driver (its own
 * kubeconfig's credentials, so RBAC judges its requests as if the proxy were not there) and the
 * third party (the harness's administrator, for the proxy's own reads and writes). Connections
 * are kept alive, one agent per identity.
 */
import * as k8s from '@kubernetes/client-node';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Headers that belong to one connection, never relayed (RFC 9110 §7.6.1), plus the ones the proxy sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/** A request's or answer's headers without the hop-by-hop ones (and without host and authorization). */
export function endToEndHeaders(headers: IncomingHttpHeaders, keep: string[] = []): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && (!HOP_BY_HOP.has(name) || keep.includes(name))) kept[name] = value;
  }
  return kept;
}

const IDLE_SOCKET_MS = 2_000;

/** How long the proxy waits for an answer to a request of its own; relayed requests wait as long as their client does. */
const OWN_REQUEST_DEADLINE_MS = 30_000;

export interface JsonAnswer {
  status: number;
  body: unknown;
}

export class UpstreamIdentity {
  private readonly agent: Agent;
  private readonly server: URL;

  constructor(private readonly kubeconfig: k8s.KubeConfig, tls: RequestOptions) {
    const cluster = kubeconfig.getCurrentCluster();
    if (!cluster) throw new Error('the upstream kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    // An idle connection is let go after 2 s, well before a server's keep-alive timeout (Node's
    // 5 s), so few requests are sent on a connection the server is closing at that moment; the
    // rest are sent again (answerWhole).
    this.agent = new Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.rejectUnauthorized, servername: tls.servername });
  }

  /** Reads the kubeconfig's TLS options once (client-node's own reading of it). */
  static async of(kubeconfig: k8s.KubeConfig): Promise<UpstreamIdentity> {
    const tls: RequestOptions = {};
    await kubeconfig.applyToHTTPSOptions(tls);
    return new UpstreamIdentity(kubeconfig, tls);
  }

  /**
   * Starts a request upstream (the caller writes its body and ends it). The Authorization header is
   * taken from the kubeconfig on every request, so rotating credentials (exec plugins) stay fresh.
   */
  async send(method: string, path: string, headers: Record<string, string | string[]>, signal?: AbortSignal): Promise<ClientRequest> {
    const auth: RequestOptions = { headers: {} };
    await this.kubeconfig.applyToHTTPSOptions(auth);
    const authorization = (auth.headers as Record<string, string>).Authorization;
    return httpsRequest({
      protocol: 'https:',
      hostname: this.server.hostname,
      port: this.server.port,
      method,
      path: this.server.pathname.replace(/\/$/, '') + path,
      headers: { ...headers, ...(authorization ? { authorization } : {}) },
      auth: auth.auth,
      agent: this.agent,
      signal,
    });
  }

  /**
   * The proxy's own JSON request (a revision read, a concurrent write, a read at a revision) and
   * its JSON answer (a Status for an error), within OWN_REQUEST_DEADLINE_MS; `stage` names it in errors.
   */
  async json(stage: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<JsonAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const signal = AbortSignal.timeout(OWN_REQUEST_DEADLINE_MS);
    try {
      const { response } = await this.answerWhole(method, path, { accept: 'application/json', ...(payload ? { 'content-type': contentType, 'content-length': String(payload.length) } : {}) }, payload, signal);
      const text = (await readAll(response)).toString('utf8');
      try {
        return { status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined };
      } catch {
        throw new Error(`the upstream answered ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
    } catch (error) {
      const reason = signal.aborted ? `no answer within ${OWN_REQUEST_DEADLINE_MS / 1000} s` : (error as Error).message;
      throw new Error(`${stage} (${method} ${path}): ${reason}`, { cause: error });
    }
  }

  /**
   * Sends a request whose whole body is known and resolves with the answer's head; once more, on
   * a fresh connection, when a kept-alive one turns out to have been closed by the server before
   * it answered — Node's documented pattern (`reusedSocket` and ECONNRESET): the server never read
   * the request, so sending it again is safe for any verb. Without this the proxy would pass a
   * closed idle connection on to its client as a lost one, which the client would not have met.
   */
  async answerWhole(method: string, path: string, headers: Record<string, string | string[]>, body: Buffer | undefined, signal?: AbortSignal): Promise<{ request: ClientRequest; response: IncomingMessage }> {
    for (let attempt = 0; ; attempt++) {
      const request = await this.send(method, path, headers, signal);
      try {
        return { request, response: await answerOf(request, body) };
      } catch (error) {
        if (attempt > 0 || !request.reusedSocket || !['ECONNRESET', 'EPIPE'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Sends the body and resolves with the answer's head: `body` whole, or (a body too large to
 * buffer) its chunks read so far and then the rest piped from `rest`, which ends the request.
 */
export function answerOf(request: ClientRequest, body?: Buffer | Buffer[], rest?: NodeJS.ReadableStream): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
    if (!Array.isArray(body)) return void request.end(body);
    for (const chunk of body) request.write(chunk);
    if (rest) rest.pipe(request);
    else request.end();
  });
}

export function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}
