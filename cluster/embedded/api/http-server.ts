import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AccessControl } from '../auth/access-control.ts';
import { authorizationAttributes, nonResourceAttributes } from '../auth/request-attributes.ts';
import { REVIEW_RESOURCES, ReviewApi } from '../auth/reviews.ts';
import type { UserInfo } from '../auth/user.ts';
import { ApiError, errors } from '../errors.ts';
import type { DeleteOptions, ObjectApi, Target } from '../registry/object-api.ts';
import { apiVersionOf, resourceKey } from '../registry/resource-type.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import { decodeObject, decodePatch, readBody } from './body.ts';
import { aggregatedContentType, aggregatedDiscovery, aggregatedVersion, coreVersions, groupList, resourceList } from './discovery.ts';
import { isWebSocketUpgrade, parseExecQuery, rejectUpgrade, serveExecOverWebSocket } from './exec-stream.ts';
import type { FaultInjector, RequestAttributes } from './faults.ts';
import { assertJsonAcceptable } from './negotiation.ts';
import type { NodeBackend } from './node-backend.ts';
import { groupVersionDocument, openApiIndex } from './openapi.ts';
import { parseResourcePath, queryFlag, queryInt, type ResourceRequest } from './request-info.ts';
import { toTable, wantsTable } from './tables.ts';
import { streamWatch } from './watch-stream.ts';

export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0+embedded' };

export interface ApiServerOptions {
  /** Who may do what: the admin token, ServiceAccount tokens, RBAC. */
  access: AccessControl;
  tls: { key: string; cert: string };
  bookmarkIntervalMs?: number;
}

const ADMIN_PREFIX = '/embedded.admin/v1/faults';

/**
 * The HTTPS front of the embedded cluster: bearer-token auth, discovery, OpenAPI, and the
 * resource verbs, translated onto the object API. HTTPS because kubectl sends a kubeconfig's
 * bearer token only over TLS.
 */
export class ApiServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket | Duplex>();
  private readonly closers = new Set<() => void>();
  private nodeBackend?: NodeBackend;
  private readonly bookmarkIntervalMs: number;
  private readonly access: AccessControl;
  private readonly reviews: ReviewApi;

  constructor(
    private readonly api: ObjectApi,
    private readonly faults: FaultInjector,
    private readonly options: ApiServerOptions,
  ) {
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 10_000;
    this.access = options.access;
    this.reviews = new ReviewApi(options.access);
    this.server = createServer({ key: options.tls.key, cert: options.tls.cert, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    this.server.on('secureConnection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  setNodeBackend(backend: NodeBackend | undefined): void {
    this.nodeBackend = backend;
  }

  async listen(host = '127.0.0.1', port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const close of this.closers) close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://embedded');
    const warnings: string[] = [];
    try {
      if (['/healthz', '/livez', '/readyz'].includes(url.pathname)) return sendText(res, 200, 'ok');
      const user = this.access.authenticate(req.headers.authorization);
      const request = parseResourcePath(url.pathname, (g, v, segment) => !!this.api.registry.lookup(g, v, segment));
      // Discovery, OpenAPI, version and the admin endpoint are non-resource paths, authorized as such.
      if (!request) this.access.authorize(user, () => nonResourceAttributes(req.method, url.pathname));
      if (url.pathname.startsWith(ADMIN_PREFIX)) return await this.handleAdmin(req, res, url);
      if (this.handleMetadata(req, res, url)) return;
      if (!request) throw errors.noRoute();
      await this.handleResource(req, res, url, request, warnings, user);
    } catch (error) {
      sendError(res, error, warnings);
    }
  }

  /** Version, discovery and OpenAPI. Returns false when the path is none of them. */
  private handleMetadata(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const registry = this.api.registry;
    if (req.method !== 'GET' && (path === '/version' || path === '/api' || path === '/apis' || path.startsWith('/openapi'))) {
      throw errors.methodNotAllowed(req.method ?? '');
    }
    if (path === '/version') return sendJson(res, 200, { ...KUBERNETES_VERSION, gitCommit: '0'.repeat(40), gitTreeState: 'clean', buildDate: '2026-01-01T00:00:00Z', goVersion: 'go1.23.0', compiler: 'gc', platform: 'linux/amd64' }), true;
    if (path === '/api' || path === '/apis') {
      const aggregated = aggregatedVersion(req.headers.accept);
      if (aggregated) {
        sendJson(res, 200, aggregatedDiscovery(registry, path === '/api', aggregated), [], aggregatedContentType(aggregated));
      } else {
        sendJson(res, 200, path === '/api' ? coreVersions(req.headers.host ?? '127.0.0.1') : groupList(registry));
      }
      return true;
    }
    if (path === '/openapi/v2') {
      // An empty protobuf document: every kubectl from 1.27 accepts it and leaves validation to the server.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '0' });
      res.end();
      return true;
    }
    if (path === '/openapi/v3') return sendJson(res, 200, openApiIndex(registry)), true;
    const openapi = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (openapi) {
      const doc = openapi[1] ? groupVersionDocument(registry, '', 'v1') : groupVersionDocument(registry, openapi[2], openapi[3]);
      if (!doc) throw errors.noRoute();
      return sendJson(res, 200, doc), true;
    }
    const legacy = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+)\/([^/]+)$/.exec(path);
    if (legacy) {
      const list = path.startsWith('/api/') ? resourceList(registry, '', 'v1') : resourceList(registry, legacy[1], legacy[2]);
      if (!list) throw errors.noRoute();
      return sendJson(res, 200, list), true;
    }
    const group = /^\/apis\/([^/]+)$/.exec(path);
    if (group) {
      const versions = registry.groups().get(group[1]);
      if (!versions) throw errors.noRoute();
      const gv = versions.map((v) => ({ groupVersion: `${group[1]}/${v}`, version: v }));
      return sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', name: group[1], versions: gv, preferredVersion: gv[0] }), true;
    }
    return false;
  }

  private async handleResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    request: ResourceRequest & { legacyWatch: boolean },
    warnings: string[],
    user: UserInfo,
  ): Promise<void> {
    const found = this.api.registry.lookup(request.group, request.version, request.plural);
    if (!found) throw errors.noRoute();
    const { type, version } = found;
    if (request.namespace && !type.namespaced) throw errors.noRoute();
    assertJsonAcceptable(req.headers.accept);
    const target: Target = { type, version, namespace: type.namespaced ? request.namespace : undefined };
    if (version.deprecationWarning) warnings.push(version.deprecationWarning);
    const sub = request.subresource;
    if (sub && !(sub === 'status' && version.status) && !(sub === 'scale' && version.scale) && !type.extraSubresources.includes(sub)) {
      throw errors.noRoute();
    }
    const watch = request.legacyWatch || queryFlag(url, 'watch');
    const verb = verbOf(req.method ?? 'GET', !!request.name, watch);
    if (REVIEW_RESOURCES.has(resourceKey(type.group, type.plural)) && verb !== 'create') throw errors.methodNotAllowed(req.method ?? '');
    const attributes: RequestAttributes = { verb, group: type.group, plural: type.plural, subresource: sub, namespace: request.namespace, name: request.name };
    this.access.authorize(user, () => authorizationAttributes(attributes, url));
    const fault = this.faults.take(attributes);
    if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));
    if (fault.error) throw fault.error;

    const table = wantsTable(req.headers.accept);
    const name = request.name;
    const dryRun = url.searchParams.getAll('dryRun').includes('All');
    const writeOptions = {
      dryRun,
      fieldManager: url.searchParams.get('fieldManager') ?? undefined,
      // An absent directive is Warn, as kube-apiserver resolves it (kubectl sends Strict itself).
      fieldValidation: (url.searchParams.get('fieldValidation') || 'Warn') as 'Strict' | 'Warn' | 'Ignore',
      force: queryFlag(url, 'force'),
      subresource: sub ?? '',
      userInfo: user,
    };
    const respond = (code: number, object: KubeObject, extra: string[] = []) =>
      sendJson(res, code, table && req.method === 'GET' ? toTable(type, version, [object], { resourceVersion: object.metadata.resourceVersion }) : object, [...warnings, ...extra]);

    switch (verb) {
      case 'watch': {
        if (!type.namespaced && request.namespace) throw errors.noRoute();
        const listTarget = name ? target : target;
        const fieldSelector = name ? joinSelectors(url.searchParams.get('fieldSelector'), `metadata.name=${name}`) : url.searchParams.get('fieldSelector') ?? undefined;
        streamWatch(
          this.api,
          listTarget,
          {
            labelSelector: url.searchParams.get('labelSelector') ?? undefined,
            fieldSelector,
            resourceVersion: url.searchParams.get('resourceVersion') ?? undefined,
            table,
            allowWatchBookmarks: queryFlag(url, 'allowWatchBookmarks'),
            timeoutSeconds: queryInt(url, 'timeoutSeconds'),
            bookmarkIntervalMs: this.bookmarkIntervalMs,
            closeAfterEvents: fault.closeWatchAfterEvents,
          },
          res,
          (stop) => {
            this.closers.add(stop);
            res.on('close', () => {
              stop();
              this.closers.delete(stop);
            });
          },
        );
        return;
      }
      case 'list': {
        const result = this.api.list(target, {
          labelSelector: url.searchParams.get('labelSelector') ?? undefined,
          fieldSelector: url.searchParams.get('fieldSelector') ?? undefined,
          limit: queryInt(url, 'limit'),
          continue: url.searchParams.get('continue') ?? undefined,
          resourceVersion: url.searchParams.get('resourceVersion') ?? undefined,
          resourceVersionMatch: url.searchParams.get('resourceVersionMatch') ?? undefined,
        });
        const listMeta = {
          resourceVersion: result.resourceVersion,
          ...(result.continue ? { continue: result.continue, remainingItemCount: result.remainingItemCount } : {}),
        };
        if (table) return sendJson(res, 200, toTable(type, version, result.items, listMeta), warnings);
        return sendJson(res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type.group, version.name), metadata: listMeta, items: result.items }, warnings);
      }
      case 'get': {
        if (sub === 'log') return this.serveLog(req, res, url, target, name!);
        if (sub === 'exec' || sub === 'attach') throw errors.badRequest(`${sub} needs a WebSocket upgrade (Upgrade: websocket, Sec-WebSocket-Protocol: v5.channel.k8s.io)`);
        if (sub === 'scale') return sendJson(res, 200, this.api.getScale(target, name!), warnings);
        return respond(200, this.api.get(target, name!));
      }
      case 'create': {
        const body = decodeObject(req, await readBody(req), sub === 'binding' ? 'Binding' : sub === 'token' ? 'TokenRequest' : type.kind);
        if (name && sub === 'token') return sendJson(res, 201, this.reviews.createToken(request.namespace!, name, isPlainObject(body) ? body : {}), warnings);
        if (REVIEW_RESOURCES.has(resourceKey(type.group, type.plural))) {
          if (name) throw errors.methodNotAllowed('POST');
          return sendJson(res, 201, this.reviews.create(type.plural, this.api.checkBody(target, body), user), warnings);
        }
        if (name && sub === 'binding') {
          const nodeName = isPlainObject(body) && isPlainObject(body.target) ? body.target.name : undefined;
          if (typeof nodeName !== 'string' || !nodeName) throw errors.badRequest('a Binding needs target.name (the node)');
          this.api.bind(target, name, nodeName);
          return sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, warnings);
        }
        if (name && (sub === 'exec' || sub === 'attach')) throw errors.badRequest(`${sub} needs a WebSocket upgrade`);
        if (name) throw errors.methodNotAllowed('POST');
        const result = this.api.create(target, body, writeOptions);
        return respond(201, result.object, result.warnings);
      }
      case 'update': {
        const body = decodeObject(req, await readBody(req), sub === 'scale' ? 'Scale' : type.kind);
        if (sub === 'scale') return sendJson(res, 200, this.api.updateScale(target, name!, body, writeOptions), warnings);
        const result = this.api.update(target, name!, body, writeOptions);
        return respond(200, result.object, result.warnings);
      }
      case 'patch': {
        const { patchType, patch } = decodePatch(req, await readBody(req), type.builtin);
        if (sub === 'scale') {
          const scale = this.api.getScale(target, name!);
          const { jsonMergePatch } = await import('../patch/merge-patch.ts');
          if (patchType !== 'merge' && patchType !== 'strategic') throw errors.unsupportedMediaType(patchType, ['application/merge-patch+json']);
          return sendJson(res, 200, this.api.updateScale(target, name!, jsonMergePatch(scale, patch), writeOptions), warnings);
        }
        const result = this.api.patch(target, name!, patchType, patch, writeOptions);
        return respond(result.created ? 201 : 200, result.object, result.warnings);
      }
      case 'delete': {
        const options = { ...(await deleteOptions(req, url)), userInfo: user };
        const result = this.api.delete(target, name!, options);
        if (!result.removed) return sendJson(res, 200, result.object, [...warnings, ...result.warnings]);
        return sendJson(res, 200, successStatus(result.object, type.group, type.plural), [...warnings, ...result.warnings]);
      }
      case 'deletecollection': {
        const options = { ...(await deleteOptions(req, url)), userInfo: user };
        const deleted = this.api.deleteCollection(target, { labelSelector: url.searchParams.get('labelSelector') ?? undefined, fieldSelector: url.searchParams.get('fieldSelector') ?? undefined }, options);
        return sendJson(res, 200, { kind: type.listKind, apiVersion: apiVersionOf(type.group, version.name), metadata: {}, items: deleted }, warnings);
      }
      default:
        throw errors.methodNotAllowed(req.method ?? '');
    }
  }

  private serveLog(req: IncomingMessage, res: ServerResponse, url: URL, target: Target, name: string): void {
    const pod = this.api.get(target, name);
    const containers = ((pod.spec as { containers?: { name: string }[] })?.containers ?? []).map((c) => c.name);
    const container = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
    if (!container) throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`);
    if (!containers.includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
    if (!(pod.spec as { nodeName?: string }).nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
    if (!this.nodeBackend) throw noNodeAgent();
    const abort = new AbortController();
    const stream = this.nodeBackend.logs(pod, {
      container,
      follow: queryFlag(url, 'follow'),
      timestamps: queryFlag(url, 'timestamps'),
      previous: queryFlag(url, 'previous'),
      tailLines: queryInt(url, 'tailLines'),
      sinceSeconds: queryInt(url, 'sinceSeconds'),
      limitBytes: queryInt(url, 'limitBytes'),
    }, abort.signal);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.on('close', () => abort.abort());
    stream.pipe(res);
    void req;
  }

  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    try {
      const user = this.access.authenticate(req.headers.authorization);
      const url = new URL(req.url ?? '/', 'https://embedded');
      const request = parseResourcePath(url.pathname, (g, v, segment) => !!this.api.registry.lookup(g, v, segment));
      if (!request || request.plural !== 'pods' || request.group !== '' || !request.name || (request.subresource !== 'exec' && request.subresource !== 'attach')) {
        throw errors.noRoute();
      }
      const attributes: RequestAttributes = { verb: 'create', group: '', plural: 'pods', subresource: request.subresource, namespace: request.namespace, name: request.name };
      this.access.authorize(user, () => authorizationAttributes(attributes, url));
      const fault = this.faults.take(attributes);
      if (fault.error) throw fault.error;
      const target = this.api.target('v1', 'pods', request.namespace);
      const pod = this.api.get(target, request.name);
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') throw errors.badRequest(`cannot exec into a container in a completed pod; current phase is ${phase}`);
      const options = parseExecQuery(url);
      const containers = ((pod.spec as { containers?: { name: string }[] })?.containers ?? []).map((c) => c.name);
      const container = options.container ?? containers[0];
      if (!containers.includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${request.name}`);
      if (!this.nodeBackend) {
        // As kube-apiserver does when it cannot reach the kubelet: a WebSocket client is upgraded and gets
        // the failure as the Status on channel 3, the only place @kubernetes/client-node's Exec reads one
        // (a refused upgrade reaches it as a bare "Unexpected server response: 503").
        if (!isWebSocketUpgrade(req)) throw noNodeAgent();
        serveExecOverWebSocket(req, socket, head, options, async () => ({ error: noNodeAgent() }));
        return;
      }
      // Checked after the Pod and the node agent: kubectl falls back to SPDY when the WebSocket upgrade
      // fails and prints the SPDY answer, so that answer must carry the real reason.
      if (!isWebSocketUpgrade(req)) {
        throw errors.badRequest('the embedded cluster serves exec over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io); SPDY is not supported: use kubectl 1.30 or newer, or KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true with kubectl 1.29');
      }
      const backend = this.nodeBackend;
      serveExecOverWebSocket(req, socket, head, options, (session) => backend.exec(pod, { ...options, container }, session));
    } catch (error) {
      rejectUpgrade(socket, error instanceof ApiError ? error : errors.internal((error as Error).message));
    }
  }

  private async handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const id = url.pathname.slice(ADMIN_PREFIX.length).replace(/^\//, '');
    if (req.method === 'GET' && !id) return sendJson(res, 200, { faults: this.faults.list() });
    if (req.method === 'POST' && !id) {
      const body = decodeObject(req, await readBody(req));
      return sendJson(res, 201, this.faults.add(body as never));
    }
    if (req.method === 'DELETE' && !id) {
      this.faults.clear();
      return sendJson(res, 200, { faults: [] });
    }
    if (req.method === 'DELETE' && id) {
      if (!this.faults.remove(id)) throw new ApiError(404, 'NotFound', `fault "${id}" not found`);
      return sendJson(res, 200, { faults: this.faults.list() });
    }
    throw errors.methodNotAllowed(req.method ?? '');
  }
}

function noNodeAgent(): ApiError {
  return new ApiError(503, 'ServiceUnavailable', 'no node agent runs in this embedded cluster: container logs and exec need one');
}

function verbOf(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function joinSelectors(a: string | null, b: string): string {
  return a ? `${a},${b}` : b;
}

async function deleteOptions(req: IncomingMessage, url: URL): Promise<DeleteOptions> {
  const body = await readBody(req);
  const fromBody = body.length ? decodeObject(req, body) : {};
  if (!isPlainObject(fromBody)) throw errors.badRequest('DeleteOptions must be a JSON object');
  const options = fromBody as DeleteOptions & { dryRun?: unknown };
  const grace = queryInt(url, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const policy = url.searchParams.get('propagationPolicy');
  if (policy) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (options.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(options.propagationPolicy)) {
    throw errors.badRequest(`propagationPolicy: Unsupported value: "${options.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const dryRun = Array.isArray(options.dryRun) ? options.dryRun.includes('All') : url.searchParams.getAll('dryRun').includes('All');
  return { ...options, dryRun };
}

function successStatus(object: KubeObject, group: string, plural: string): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: object.metadata.name, ...(group ? { group } : {}), kind: plural, uid: object.metadata.uid },
  };
}

function warningHeader(warnings: string[]): string[] {
  return [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`);
}

function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = [], contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | string[]> = { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(text)) };
  if (warnings.length) headers.Warning = warningHeader(warnings);
  res.writeHead(code, headers);
  res.end(text);
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain' });
  res.end(text);
}

function sendError(res: ServerResponse, error: unknown, warnings: string[]): void {
  const apiError = error instanceof ApiError ? error : errors.internal((error as Error)?.message ?? String(error));
  if (!(error instanceof ApiError) && process.env.EMBEDDED_DEBUG) console.error(error);
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, apiError.code, apiError.toStatus(), warnings);
}
