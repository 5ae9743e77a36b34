import { errors } from '../errors.ts';

/** What a resource URL names, as kube-apiserver's RequestInfo resolver reads it. */
export interface ResourceRequest {
  group: string;
  version: string;
  namespace?: string;
  plural: string;
  name?: string;
  subresource?: string;
}

/**
 * Parses `/api/v1/...` and `/apis/<group>/<version>/...` resource paths, including the legacy
 * `/watch/` prefix. `isPlural` says whether a path segment is a resource of that group version,
 * which tells `/api/v1/namespaces/x/pods` (pods in x) from `/api/v1/namespaces/x/status`.
 */
export function parseResourcePath(
  path: string,
  isPlural: (group: string, version: string, segment: string) => boolean,
): (ResourceRequest & { legacyWatch: boolean }) | undefined {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    rest = parts.slice(1);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1];
    rest = parts.slice(2);
  } else {
    return undefined;
  }
  const version = rest[0];
  rest = rest.slice(1);
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  if (rest.length === 0) return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && isPlural(group, version, rest[2])) {
    const [, namespace, plural, name, subresource, ...extra] = rest;
    if (extra.length) throw errors.noRoute();
    return { group, version, namespace, plural, name, subresource, legacyWatch };
  }
  const [plural, name, subresource, ...extra] = rest;
  if (extra.length) throw errors.noRoute();
  return { group, version, plural, name, subresource, legacyWatch };
}

/** A query flag as Kubernetes reads booleans in URLs. */
export function queryFlag(url: URL, name: string): boolean {
  const value = url.searchParams.get(name);
  return value === 'true' || value === '1';
}

export function queryInt(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw errors.badRequest(`invalid value for ${name}: ${JSON.stringify(value)}`);
  return n;
}
