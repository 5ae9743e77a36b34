/** A request body as an object of the resource it was sent to, refused in kube-apiserver's words when it is not one. */
import { ApiError, causes, errors } from '../errors.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';
import { apiVersionOf, type Target } from './resource-type.ts';

/** A copy of the body with apiVersion, kind, name (from the URL) and namespace checked and set. */
export function objectOfBody(target: Target, body: unknown, urlName?: string): KubeObject {
  const { type, version } = target;
  if (!isPlainObject(body)) throw errors.badRequest('the body of the request must be a JSON or YAML object');
  const object = clone(body) as KubeObject;
  const expected = apiVersionOf(type.group, version.name);
  if (object.apiVersion !== undefined && object.apiVersion !== expected) {
    throw errors.badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (object.kind !== undefined && object.kind !== type.kind) throw wrongKind(target, object);
  object.apiVersion = expected;
  object.kind = type.kind;
  if (!isPlainObject(object.metadata)) object.metadata = {};
  const meta = object.metadata;
  if (urlName !== undefined) {
    if (meta.name && meta.name !== urlName) {
      throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${urlName})`);
    }
    meta.name = urlName;
  }
  if (type.namespaced) {
    if (meta.namespace && target.namespace && meta.namespace !== target.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = target.namespace ?? meta.namespace;
    if (!meta.namespace) throw errors.badRequest('a namespace must be given for a namespaced resource');
  } else {
    delete meta.namespace;
  }
  return object;
}

/**
 * A body whose kind is not the resource's: a built-in's decoder cannot convert it (400, through
 * transformDecodeError); a custom resource fails validation of `kind` (422).
 */
function wrongKind(target: Target, object: KubeObject): ApiError {
  const { type, version } = target;
  const kind = String(object.kind);
  if (!type.builtin) {
    return errors.invalid(kind, type.group, String(object.metadata?.name ?? ''), [causes.invalid('kind', kind, `must be ${type.kind}`)]);
  }
  const dataVersion = typeof object.apiVersion === 'string' ? object.apiVersion.split('/').pop()! : version.name;
  const internal = type.group === '' ? 'core' : type.group.split('.')[0];
  return errors.badRequest(
    `${kind} in version "${dataVersion}" cannot be handled as a ${type.kind}: converting (${dataVersion}.${kind}) to (${internal}.${type.kind}): unknown conversion`,
  );
}
