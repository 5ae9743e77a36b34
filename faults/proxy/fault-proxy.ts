/**
 * The Kubernetes-aware fault proxy: an HTTPS server in front of a cluster's API that the driver
 * under test reaches through a kubeconfig of its own (one per driver replica, told apart by
 * bearer token). Every request is relayed to the upstream with the driver's own credentials;
 * the faults in force act on the requests and watch streams they match, each one an answer or a
 * stream behaviour a real kube-apiserver can show (proxy-fault.ts).
 */
import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WRITE_VERBS, type KubeRequest } from '../request/kube-request.ts';
import { parseRequest } from '../request/parse-request.ts';
import { Exchange, readRequestBody, sendUpstream, type UpstreamAnswerBytes } from './exchange.ts';
import type { FaultBehaviour, ProxyContext } from './kinds/fault-behaviour.ts';
import { ConflictFault, ErrorFault, LatencyFault, ResetFault } from './kinds/request-faults.ts';
import { StaleReadsFault } from './kinds/stale-reads.ts';
import { isResume, WatchCloseFault, WatchExpireFault, WatchHoldFault } from './kinds/watch-faults.ts';
import { sendExpiredWatch, unauthorizedStatus, sendStatus } from './kube-status.ts';
import { proxyCertificate, type ProxyCertificate } from './proxy-certificate.ts';
import type { ActiveFault, AppliedListener, ProxyFaultSpec, RequestObserver } from './proxy-fault.ts';
import { endToEndHeaders, readAll, UpstreamIdentity } from './upstream.ts';
import { RelayedWatch } from './watch-relay.ts';

export interface FaultProxyOptions {
  /**
   * The driver's own kubeconfig: its credentials carry the driver's requests upstream. A client
   * given one of its own (`kubeconfig(client, upstream)`: a replica opened after the test took a
   * permission away runs as another ServiceAccount) uses that instead.
   */
  upstream?: k8s.KubeConfig;
  /** The harness's administrator kubeconfig: the proxy's own reads and concurrent writes. */
  thirdParty: k8s.KubeConfig;
  /**
   * The serving certificate, made elsewhere: a lane makes one for all its workers (making it
   * costs a worker ~0.15 CPU-s, most of it loading the X.509 library). Without: this process's own.
   */
  certificate?: ProxyCertificate;
}

const KINDS: Record<ProxyFaultSpec['kind'], new (spec: never, proxy: ProxyContext, onApplied?: AppliedListener) => FaultBehaviour> = {
  latency: LatencyFault,
  error: ErrorFault,
  reset: ResetFault,
  conflict: ConflictFault,
  'stale-reads': StaleReadsFault,
  'watch-close': WatchCloseFault,
  'watch-hold': WatchHoldFault,
  'watch-expire': WatchExpireFault,
};

/** Answers that stream for as long as the upstream sends (a followed log, a proxied connection): piped, never buffered. */
function streamsAnswer(request: KubeRequest): boolean {
  return request.subresource === 'log' || request.verb === 'connect';
}

/**
 * Keeps only the JSON forms a watch's Accept offers (plain JSON, or JSON Tables for kubectl get -w)
 * when it offers one among others: client-go asks for protobuf first, and the proxy reads watch
 * events only in JSON. A client that accepts nothing but protobuf keeps it.
 */
export function narrowedAccept(accept: string | undefined): string | undefined {
  const json = (accept ?? '').split(',').filter((type) => type.split(';')[0].trim() === 'application/json');
  return json.length ? json.map((type) => type.trim()).join(',') : accept;
}

interface ResumeRefusal {
  client: number;
  pathname: string;
  oldest: number;
  onRefused: () => void;
}

export class FaultProxy {
  readonly url: string;
  private readonly tokens = new Map<number, string>();
  private readonly clientsByToken = new Map<string, number>();
  private readonly writes = new Map<number, number>();
  /** Clients given upstream credentials of their own. */
  private readonly upstreams = new Map<number, { kubeconfig: k8s.KubeConfig; identity: Promise<UpstreamIdentity> }>();
  private faults: FaultBehaviour[] = [];
  private readonly observers = new Set<RequestObserver>();
  private readonly watches = new Set<RelayedWatch>();
  private readonly sockets = new Set<Socket | Duplex>();
  private refusals: ResumeRefusal[] = [];
  private readonly closing = new AbortController();
  private closed?: Promise<void>;
  /** What the fault kinds may use of the proxy. */
  private readonly context: ProxyContext;

  private constructor(
    private readonly server: Server,
    private readonly ca: string,
    private readonly driver: UpstreamIdentity | undefined,
    private readonly thirdParty: UpstreamIdentity,
  ) {
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.context = {
      thirdParty,
      signal: this.closing.signal,
      forwardObserved: (exchange) => this.forwardObserved(exchange),
      refuseNextResume: (watch, oldest, onRefused) => void this.refusals.push({ client: watch.client, pathname: watch.pathname, oldest, onRefused }),
    };
  }

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const [certificate, driver, thirdParty] = await Promise.all([options.certificate ?? proxyCertificate(), options.upstream && UpstreamIdentity.of(options.upstream), UpstreamIdentity.of(options.thirdParty)]);
    const server = createServer({ key: certificate.key, cert: certificate.cert });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new FaultProxy(server, certificate.cert, driver, thirdParty);
    // From the TCP accept on, not only once the TLS handshake is done: close() must also end a
    // connection still in its handshake, which would otherwise finish it afterwards and keep the
    // server's close waiting (cluster/embedded/api/http-server.ts has the same reason).
    server.on('connection', (socket: Socket) => proxy.track(socket));
    server.on('secureConnection', (socket: Socket) => proxy.track(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.serve(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => proxy.serveUpgrade(req, socket, head));
    return proxy;
  }

  /**
   * A kubeconfig for driver replica `client`: the proxy as its server, trusted by its CA, with a
   * token of its own. `upstream`: the credentials its requests go upstream with from now on
   * (default: the proxy's `upstream`).
   */
  kubeconfig(client: number, upstream?: k8s.KubeConfig): k8s.KubeConfig {
    if (!Number.isInteger(client) || client < 0) throw new Error(`a client is a driver replica's index (0, 1, ...), got ${client}`);
    if (!upstream && !this.driver) throw new Error(`client ${client} needs its upstream kubeconfig: the proxy was started without one`);
    if (upstream) {
      const before = this.upstreams.get(client);
      if (before?.kubeconfig !== upstream) {
        void before?.identity.then((identity) => identity.close(), () => undefined);
        this.upstreams.set(client, { kubeconfig: upstream, identity: UpstreamIdentity.of(upstream) });
      }
    }
    let token = this.tokens.get(client);
    if (!token) {
      token = randomBytes(24).toString('hex');
      this.tokens.set(client, token);
      this.clientsByToken.set(token, client);
    }
    const kubeconfig = new k8s.KubeConfig();
    const name = `fault-proxy-client-${client}`;
    kubeconfig.loadFromOptions({
      clusters: [{ name: 'fault-proxy', server: this.url, caData: Buffer.from(this.ca).toString('base64'), skipTLSVerify: false }],
      users: [{ name, token }],
      contexts: [{ name, cluster: 'fault-proxy', user: name }],
      currentContext: name,
    });
    return kubeconfig;
  }

  /** Writes `kubeconfig(client, upstream)` to `path`, readable by its owner only (it holds a token). */
  writeKubeconfig(path: string, client: number, upstream?: k8s.KubeConfig): void {
    writeFileSync(path, this.kubeconfig(client, upstream).exportConfig(), { mode: 0o600 });
    // A file that was there before keeps its mode through writeFileSync.
    chmodSync(path, 0o600);
  }

  /** Whom client `client`'s requests go upstream as. */
  private async driverOf(client: number): Promise<UpstreamIdentity> {
    const own = this.upstreams.get(client);
    if (own) return own.identity;
    if (!this.driver) throw new Error(`client ${client} has no upstream credentials`);
    return this.driver;
  }

  activate(spec: ProxyFaultSpec, onApplied?: AppliedListener): ActiveFault {
    const Kind = KINDS[spec.kind];
    if (!Kind) throw new Error(`unknown proxy fault kind ${JSON.stringify((spec as { kind?: unknown }).kind)}; known: ${Object.keys(KINDS).join(', ')}`);
    const fault = new Kind(spec as never, this.context, onApplied);
    this.faults.push(fault);
    for (const watch of this.watches) if (fault.matches(watch.request, watch.client)) fault.onWatch(watch, true);
    return {
      spec,
      get applied() {
        return fault.applied;
      },
      heal: async () => {
        this.faults = this.faults.filter((f) => f !== fault);
        await fault.heal();
      },
    };
  }

  observe(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** The watch streams relayed now: which request opened each, and for which client. */
  openWatches(): { request: KubeRequest; client: number }[] {
    return [...this.watches].map((w) => ({ request: w.request, client: w.client }));
  }

  /** The cluster's current revision: the resourceVersion of a consistent list (limit 1), read as the third party. */
  async revision(): Promise<string> {
    const answer = await this.thirdParty.json("reading the cluster's revision", 'GET', '/api/v1/namespaces?limit=1');
    const revision = (answer.body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
    if (answer.status !== 200 || !revision) throw new Error(`reading the cluster's revision: the upstream answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return revision;
  }

  /** Ends every relayed stream and connection and the server; nothing of the proxy is left running. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort(new Error('the fault proxy closed'));
      for (const fault of this.faults) await fault.heal();
      this.faults = [];
      for (const watch of this.watches) watch.end();
      const serverClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      this.driver?.close();
      for (const own of this.upstreams.values()) (await own.identity).close();
      this.thirdParty.close();
      await serverClosed;
    })();
    return this.closed;
  }

  private track(socket: Socket | Duplex): void {
    if (this.closing.signal.aborted) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private clientOf(req: IncomingMessage): number | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    return match ? this.clientsByToken.get(match[1]) : undefined;
  }

  private async forwardObserved(exchange: Exchange): Promise<UpstreamAnswerBytes | undefined> {
    const answer = await exchange.forward();
    const body = answer.headers['content-type']?.includes('json') ? parseJson(answer.body) : undefined;
    if ((await this.notify(exchange.request, 'answered', exchange.client, { status: answer.status, body })) === 'drop') {
      exchange.drop();
      return undefined;
    }
    return answer;
  }


  private async notify(request: KubeRequest, phase: 'received' | 'answered', client: number, answer?: { status: number; body?: unknown }): Promise<'drop' | undefined> {
    let verdict: 'drop' | undefined;
    for (const observer of [...this.observers]) {
      if ((await observer(request, phase, client, answer)) === 'drop') verdict = 'drop';
    }
    return verdict;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    this.handle(req, res).catch((error: unknown) => {
      // A failure inside the proxy (the upstream unreachable, the proxy closing) is the client's
      // lost connection, as a crashed server's would be; it never answers with the proxy's own words.
      if (!this.closing.signal.aborted) process.emitWarning(`fault proxy: ${req.method} ${req.url}: ${(error as Error).message}`);
      req.socket.destroy();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const client = this.clientOf(req);
    if (client === undefined) return sendStatus(res, unauthorizedStatus());
    const body = await readRequestBody(req);
    let request: KubeRequest;
    try {
      request = parseRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: 'whole' in body ? body.whole : undefined });
    } catch {
      // Not a resource request (discovery, /version, /openapi): relayed untouched, no fault applies.
      const response = await sendUpstream(await this.driverOf(client), req.method ?? 'GET', req.url ?? '/', endToEndHeaders(req.headers), body);
      const answer = await readAll(response);
      res.writeHead(response.statusCode ?? 502, { ...endToEndHeaders(response.headers), 'content-length': String(answer.length) }).end(answer);
      return;
    }
    if (WRITE_VERBS.includes(request.verb)) {
      request.writeIndex = (this.writes.get(client) ?? 0) + 1;
      this.writes.set(client, request.writeIndex);
    }
    const exchange = new Exchange(request, client, req, res, body, await this.driverOf(client));
    if ((await this.notify(request, 'received', client)) === 'drop') return exchange.drop();
    if (request.verb === 'watch' && this.refuseResume(exchange)) return;
    for (const fault of [...this.faults]) {
      if (fault.matches(request, client) && (await fault.onRequest(exchange))) return;
    }
    if (request.verb === 'watch') return this.relayWatch(exchange);
    if (streamsAnswer(request)) return this.pipeAnswer(exchange);
    const answer = await this.forwardObserved(exchange);
    if (answer) exchange.answer(answer);
  }

  /** A resume of a stream a fault expired: once, 410 Expired in the stream. */
  private refuseResume(exchange: Exchange): boolean {
    const { request, client } = exchange;
    if (request.sendInitialEvents || !isResume(request.resourceVersion)) return false;
    const pathname = new URL(request.path, 'https://proxy.invalid').pathname;
    // Only a resume from before the dropped events: one from a fresh list's revision is served.
    const refusal = this.refusals.find((r) => r.client === client && r.pathname === pathname && Number(request.resourceVersion) < r.oldest);
    if (!refusal) return false;
    this.refusals = this.refusals.filter((r) => r !== refusal);
    sendExpiredWatch(exchange.res, request.resourceVersion, refusal.oldest);
    refusal.onRefused();
    return true;
  }

  private async pipeAnswer(exchange: Exchange): Promise<void> {
    const response = await exchange.send(exchange.request.path, exchange.upstreamHeaders());
    if ((await this.notify(exchange.request, 'answered', exchange.client, { status: response.statusCode ?? 0 })) === 'drop') {
      response.destroy();
      return exchange.drop();
    }
    exchange.res.writeHead(response.statusCode ?? 502, endToEndHeaders(response.headers));
    response.pipe(exchange.res);
    exchange.res.once('close', () => response.destroy());
  }

  private async relayWatch(exchange: Exchange): Promise<void> {
    const { request, client, res } = exchange;
    const accept = narrowedAccept(exchange.req.headers.accept);
    const headers = exchange.upstreamHeaders(accept ? { accept } : {});
    const start = exchange.watchStart;
    const { request: upstream, response } = await (await this.driverOf(client)).answerWhole('GET', start?.path ?? request.path, headers, undefined);
    const contentType = String(response.headers['content-type'] ?? '');
    if (response.statusCode !== 200) {
      return exchange.answer({ status: response.statusCode ?? 502, headers: endToEndHeaders(response.headers), body: await readAll(response) });
    }
    if (!contentType.includes('json')) {
      // A protobuf-only client: its stream is relayed as bytes the proxy cannot read, so no stream fault acts on it.
      res.writeHead(200, endToEndHeaders(response.headers));
      response.pipe(res);
      res.once('close', () => upstream.destroy());
      return;
    }
    const watch = new RelayedWatch(request, client, res);
    this.watches.add(watch);
    watch.onEnd(() => this.watches.delete(watch));
    watch.open(endToEndHeaders(response.headers));
    for (const fault of this.faults) if (fault.matches(request, client)) fault.onWatch(watch, false);
    for (const line of start?.prelude ?? []) watch.push(line);
    watch.follow(upstream, response);
  }

  /** exec, attach, port-forward: the upgrade relayed, then both directions piped raw. */
  private serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.track(socket);
    this.handleUpgrade(req, socket, head).catch(() => socket.destroy());
  }

  private async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const client = this.clientOf(req);
    if (client === undefined) {
      const body = JSON.stringify(unauthorizedStatus());
      socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    let request: KubeRequest | undefined;
    try {
      request = parseRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    } catch {
      // not a resource path: relayed without observers
    }
    if (request && (await this.notify(request, 'received', client)) === 'drop') return void socket.destroy();
    const upstream = await (await this.driverOf(client)).send(req.method ?? 'GET', req.url ?? '/', endToEndHeaders(req.headers, ['connection', 'upgrade']));
    upstream.once('upgrade', (response: IncomingMessage, upstreamSocket: Socket, upstreamHead: Buffer) => {
      this.track(upstreamSocket);
      const lines = [`HTTP/1.1 101 ${response.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i < response.rawHeaders.length; i += 2) lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n');
      if (upstreamHead.length) socket.write(upstreamHead);
      if (head.length) upstreamSocket.write(head);
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
      upstreamSocket.once('close', () => socket.destroy());
      socket.once('close', () => upstreamSocket.destroy());
    });
    upstream.once('response', async (response: IncomingMessage) => {
      // Refused before the upgrade (a missing Pod, a bad container): the answer as it came.
      const body = await readAll(response);
      const headers = { ...endToEndHeaders(response.headers), 'content-length': String(body.length), connection: 'close' };
      const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? ''}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n');
      socket.end(body);
    });
    upstream.once('error', () => socket.destroy());
    upstream.end();
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
