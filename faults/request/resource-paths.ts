/**
 * The API paths of a request's object and of its collection, rebuilt from the parsed request:
 * the proxy reads and writes the object a request names (a concurrent write, a read at an older
 * revision) on the same server, so it needs their paths without the request's own subresource
 * or query.
 */
import type { KubeRequest } from './kube-request.ts';

type Located = Pick<KubeRequest, 'group' | 'version' | 'resource' | 'namespace' | 'name'>;

function groupVersionPrefix(request: Located): string {
  return request.group ? `/apis/${request.group}/${request.version}` : `/api/${request.version}`;
}

/** The collection the request's resource lives in: `/api/v1/namespaces/ns/pods`, `/api/v1/namespaces`. */
export function collectionPath(request: Located): string {
  // A namespace is cluster-scoped: its own name is the request's namespace, not a scope above it.
  const scope = request.namespace && request.resource !== 'namespaces' ? `/namespaces/${encodeURIComponent(request.namespace)}` : '';
  return `${groupVersionPrefix(request)}${scope}/${request.resource}`;
}

/** The object the request names; an error for a request without a name (a list, a create). */
export function objectPath(request: Located): string {
  if (!request.name) throw new Error(`a ${request.resource} request without a name has no object path`);
  return `${collectionPath(request)}/${encodeURIComponent(request.name)}`;
}
