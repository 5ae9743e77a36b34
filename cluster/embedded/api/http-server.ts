import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AccessControl } from '../auth/access-control.ts';
import { authorizationAttributes, nonResourceAttributes } from '../auth/request-attributes.ts';
import { REVIEW_RESOURCES, ReviewApi } from '../auth/reviews.ts';
import type { UserInfo } from '../auth/user.ts';
import { ApiError, errors } from '../errors.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';
import { apiVersionOf, resourceKey } from '../registry/resource-type.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import { decodeObject, decodePatch, readBody } from './body.ts';
import { deleteOptions } from './delete-options.ts';
import { isWebSocketUpgrade, parseExecQuery, rejectUpgrade, serveExecOverWebSocket } from './exec-stream.ts';
import { faultHookOf, serveFaultHooks, type FaultHookName, type FaultHooks } from './fault-hooks-admin.ts';
import type { RequestAttributes, RequestLog } from './request-log.ts';
import { serveMetadata } from './metadata-routes.ts';
import { assertJsonAcceptable } from './negotiation.ts';
import { noNodeAgent, type NodeBackend } from './node-backend.ts';
import { servePodLogs } from './pod-logs.ts';
import { parseResourcePath, queryFlag, queryInt, verbOf, type ResourceRequest } from './request-info.ts';
import { sendError, sendJson, sendText, successStatus } from './responses.ts';
import { toTable, wantsTable } from './tables.ts';
import { WatchEventEncoder } from './watch-encoding.ts';
import { streamWatch } from './watch-stream.ts';

export interface ApiServerOptions {
  /** Who may do what: the admin token, ServiceAccount tokens, RBAC. */
  access: AccessControl;
  tls: { key: string; cert: string };
  bookmarkIntervalMs?: number;
}

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
  private readonly faultHooks = new Map<FaultHookName, FaultHooks>();
  private readonly bookmarkIntervalMs: number;
  private readonly access: AccessControl;
  private readonly reviews: ReviewApi;
  private readonly watchEncoder = new WatchEventEncoder();
  private closing = false;

  constructor(
    private readonly api: ObjectApi,
    private readonly requests: RequestLog,
    private readonly options: ApiServerOptions,
  ) {
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 10_000;
    this.access = options.access;
    this.reviews = new ReviewApi(options.access);
    this.server = createServer({ key: options.tls.key, cert: options.tls.cert, ALPNProtocols: ['http/1.1'] }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    // Every connection from its TCP accept on, not only once its TLS handshake is done: close()
    // must also end one still in its handshake, which would otherwise finish it afterwards, stay
    // open (a watch) and keep close() waiting for ever. What a client sets up while the server
    // closes (client-node's ListWatch can open its next watch after stop() returned) is ended at once.
    this.server.on('connection', (socket: Socket) => this.track(socket));
    this.server.on('secureConnection', (socket: Socket) => this.track(socket));
  }

  private track(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  setNodeBackend(backend: NodeBackend | undefined): void {
    this.nodeBackend = backend;
  }

  /** The fault hooks of the controller or the node agent, served on the admin endpoint (without them: 404 saying so). */
  setFaultHooks(name: FaultHookName, hooks: FaultHooks): void {
    this.faultHooks.set(name, hooks);
  }

  async listen(host = '127.0.0.1', port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.closing = true;
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
      // Discovery, OpenAPI, version and the fault hooks' admin endpoints are non-resource paths, authorized as such.
      if (!request) this.access.authorize(user, () => nonResourceAttributes(req.method, url.pathname));
      const hook = faultHookOf(url.pathname);
      if (hook) return await serveFaultHooks(req, res, url, hook, this.faultHooks.get(hook));
      if (serveMetadata(req, res, url, this.api.registry)) return;
      if (!request) throw errors.noRoute();
      await this.handleResource(req, res, url, request, warnings, user);
    } catch (error) {
      sendError(res, error, warnings);
    }
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
    const attributes: RequestAttributes = { verb, group: type.group, plural: type.plural, subresource: sub, namespace: request.namespace, name: request.name, labelSelector: url.searchParams.get('labelSelector') ?? undefined };
    this.access.authorize(user, () => authorizationAttributes(attributes, url));
    this.requests.record(attributes);

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
        const fieldSelector = name ? joinSelectors(url.searchParams.get('fieldSelector'), `metadata.name=${name}`) : url.searchParams.get('fieldSelector') ?? undefined;
        streamWatch(
          this.api,
          this.watchEncoder,
          target,
          {
            labelSelector: url.searchParams.get('labelSelector') ?? undefined,
            fieldSelector,
            resourceVersion: url.searchParams.get('resourceVersion') ?? undefined,
            table,
            allowWatchBookmarks: queryFlag(url, 'allowWatchBookmarks'),
            timeoutSeconds: queryInt(url, 'timeoutSeconds'),
            bookmarkIntervalMs: this.bookmarkIntervalMs,
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
        if (sub === 'log') return servePodLogs(res, url, this.api.get(target, name!), name!, this.nodeBackend);
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
      this.requests.record(attributes);
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
}

function joinSelectors(a: string | null, b: string): string {
  return a ? `${a},${b}` : b;
}
