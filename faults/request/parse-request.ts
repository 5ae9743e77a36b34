/**
 * A request to the Kubernetes API, read the way kube-apiserver's RequestInfo resolver reads it
 * (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): verb, group, version, resource,
 * subresource, namespace and name from the method and path, the read parameters from the query,
 * and from a write's body the patch type and the preconditions it carries.
 */
import { parse as parseYaml } from 'yaml';
import type { KubeRequest, KubeVerb } from './kube-request.ts';

export interface RawRequest {
  method: string;
  /** Path and query as sent (`/api/v1/namespaces/ns/pods?watch=true`). */
  url: string;
  /** Lower-case header names, as Node's IncomingMessage has them. */
  headers?: Record<string, string | string[] | undefined>;
  /** The whole body; undefined when there is none or it was not read. */
  body?: Buffer;
}

/** Subresources of a namespace: without discovery these are the only third segments that are not a namespaced resource. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Subresources whose requests are long-running connections: RequestInfo's `connect`. */
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);

const PATCH_TYPES: Record<string, KubeRequest['patchType']> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** Parses a request to a resource path; an Error naming the path for anything else (discovery, /version, /openapi). */
export function parseRequest(raw: RawRequest): KubeRequest {
  const url = new URL(raw.url, 'https://proxy.invalid');
  const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let rest: string[];
  let group: string;
  let version: string;
  if (segments[0] === 'api' && segments.length >= 3) {
    [group, version, rest] = ['', segments[1], segments.slice(2)];
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else {
    throw new Error(`not a resource request: ${url.pathname}`);
  }
  // The legacy watch prefix (`/api/v1/watch/namespaces/ns/pods`), still served.
  const legacyWatch = rest[0] === 'watch';
  if (legacyWatch) rest = rest.slice(1);

  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    // Without discovery the proxy cannot know a resource's scope: like RequestInfo, any third
    // segment but a namespace's own subresources is taken as a namespaced resource.
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource) throw new Error(`not a resource request: ${url.pathname}`);

  const query = url.searchParams;
  const request: KubeRequest = {
    verb: 'get',
    group,
    version,
    resource,
    subresource,
    namespace,
    name,
    path: raw.url,
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
    limit: query.has('limit') ? Number(query.get('limit')) : undefined,
    continue: query.get('continue') ?? undefined,
    sendInitialEvents: query.has('sendInitialEvents') ? isTrue(query.get('sendInitialEvents')) : undefined,
    fieldManager: query.get('fieldManager') ?? undefined,
  };
  request.verb = verbOf(raw.method, request, legacyWatch || isTrue(query.get('watch')));
  // RequestInfo names the object of a list or watch narrowed to one name by its field selector.
  if ((request.verb === 'list' || request.verb === 'watch') && !request.name) request.name = nameFromFieldSelector(request.fieldSelector);
  readBody(raw, request);
  return dropUndefined(request);
}

/** The methods whose verb does not depend on a name or the watch flag. */
const WRITE_VERB_OF_METHOD: Record<string, KubeVerb> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

function verbOf(method: string, request: KubeRequest, watch: boolean): KubeVerb {
  if (request.subresource && CONNECT_SUBRESOURCES.has(request.subresource)) return 'connect';
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD') return watch ? 'watch' : request.name ? 'get' : 'list';
  if (upper === 'DELETE') return request.name ? 'delete' : 'deletecollection';
  const verb = WRITE_VERB_OF_METHOD[upper];
  if (!verb) throw new Error(`no Kubernetes verb for the HTTP method ${method} (${request.path})`);
  return verb;
}

/** Query flags as Go's strconv.ParseBool reads them. */
function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1' || value === 'True' || value === 'TRUE' || value === 't' || value === 'T';
}

function nameFromFieldSelector(selector: string | undefined): string | undefined {
  for (const term of selector?.split(',') ?? []) {
    const match = /^metadata\.name==?(.*)$/.exec(term.trim());
    if (match) return match[1];
  }
  return undefined;
}

function headerValue(raw: RawRequest, name: string): string | undefined {
  const value = raw.headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body (JSON, YAML for apply), the patch type and the preconditions it carries. */
function readBody(raw: RawRequest, request: KubeRequest): void {
  const contentType = (headerValue(raw, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (request.verb === 'patch') request.patchType = PATCH_TYPES[contentType];
  if (!raw.body?.length || contentType.includes('protobuf')) return;
  request.body = decodeBody(raw.body, request.patchType === 'apply');
  if (request.body === undefined) return;
  const preconditions = preconditionsOf(request);
  request.resourceVersionPrecondition = preconditions.resourceVersion;
  request.uidPrecondition = preconditions.uid;
}

function decodeBody(body: Buffer, yaml: boolean): unknown {
  const text = body.toString('utf8');
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch {
    // A body the proxy cannot read is relayed as it is; it just conditions nothing it can see.
    return undefined;
  }
}

function preconditionsOf(request: KubeRequest): { resourceVersion?: string; uid?: string } {
  const body = request.body;
  if (request.verb === 'delete' || request.verb === 'deletecollection') {
    const preconditions = field(body, 'preconditions');
    return { resourceVersion: text(field(preconditions, 'resourceVersion')), uid: text(field(preconditions, 'uid')) };
  }
  if (request.verb === 'patch' && request.patchType === 'json') {
    const found: { resourceVersion?: string; uid?: string } = {};
    for (const op of Array.isArray(body) ? body : []) {
      if (field(op, 'op') !== 'add' && field(op, 'op') !== 'replace') continue;
      if (field(op, 'path') === '/metadata/resourceVersion') found.resourceVersion = text(field(op, 'value'));
      if (field(op, 'path') === '/metadata/uid') found.uid = text(field(op, 'value'));
    }
    return found;
  }
  if (request.verb === 'update' || request.verb === 'patch') {
    const metadata = field(body, 'metadata');
    return { resourceVersion: text(field(metadata, 'resourceVersion')), uid: text(field(metadata, 'uid')) };
  }
  return {};
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** A precondition is a non-empty string; anything else conditions nothing. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function dropUndefined(request: KubeRequest): KubeRequest {
  for (const key of Object.keys(request) as (keyof KubeRequest)[]) if (request[key] === undefined) delete request[key];
  return request;
}
