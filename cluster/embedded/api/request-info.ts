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

/**
 * A boolean query parameter as kube-apiserver decodes it into its options structs (apimachinery's
 * Convert_Slice_string_To_bool): absent, "0" or "false" in any case is false; ANY other value,
 * "True", "1", "yes" or even an empty one, is true. So a bad boolean is never an error.
 */
export function queryFlag(url: URL, name: string): boolean {
  const value = url.searchParams.get(name);
  if (value === null) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * An integer query parameter as Go's strconv.ParseInt(value, 10, 64) reads it: an optional sign
 * and decimal digits, in int64 range. Present but unparsable (also empty) is 400 with ParseInt's
 * own message, as the real server words it; the parameter's name is given as the cause's field.
 */
export function queryInt(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  const reject = (why: string) =>
    errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`, [{ reason: 'FieldValueInvalid', field: name, message: `Invalid value: ${JSON.stringify(value)}` }]);
  if (!/^[+-]?[0-9]+$/.test(value)) throw reject('invalid syntax');
  const n = BigInt(value);
  if (n > INT64_MAX || n < INT64_MIN) throw reject('value out of range');
  return Number(n);
}

/** The verb of a request, as authorization and fault injection name it: the method, and whether it names an object or watches. */
export function verbOf(method: string, named: boolean, watch: boolean): string {
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
