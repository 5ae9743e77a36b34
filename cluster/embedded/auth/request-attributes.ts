import type { RequestAttributes } from '../api/request-log.ts';
import type { Attributes } from './rbac/policy-rules.ts';

/**
 * What RBAC is asked about a resource request, as kube-apiserver's RequestInfo fills it: a list or
 * watch narrowed to one object by `fieldSelector=metadata.name=x` carries that name, so rules with
 * resourceNames can allow it.
 */
export function authorizationAttributes(request: RequestAttributes, url: URL): Attributes {
  let name = request.name;
  if (!name && (request.verb === 'list' || request.verb === 'watch')) {
    const selector = url.searchParams.get('fieldSelector') ?? '';
    const only = selector.split(',').map((term) => /^metadata\.name==?(.*)$/.exec(term.trim())?.[1]);
    if (only.length === 1 && only[0]) name = only[0];
  }
  return { kind: 'resource', verb: request.verb, group: request.group, resource: request.plural, subresource: request.subresource, namespace: request.namespace, name };
}

/** A non-resource request (discovery, OpenAPI, /version): the lower-cased method and the path. */
export function nonResourceAttributes(method: string | undefined, path: string): Attributes {
  return { kind: 'path', verb: (method ?? 'GET').toLowerCase(), path };
}
