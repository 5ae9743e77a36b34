/** The non-resource paths kubectl reads before anything else: version, discovery (legacy and aggregated) and OpenAPI. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../errors.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { aggregatedContentType, aggregatedDiscovery, aggregatedVersion, coreVersions, groupList, resourceList } from './discovery.ts';
import { groupVersionDocument, openApiIndex } from './openapi.ts';
import { sendJson } from './responses.ts';

export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0+embedded' };

/** Answers version, discovery and OpenAPI requests. Returns false when the path is none of them. */
export function serveMetadata(req: IncomingMessage, res: ServerResponse, url: URL, registry: ResourceRegistry): boolean {
  const path = url.pathname.replace(/\/+$/, '') || '/';
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
