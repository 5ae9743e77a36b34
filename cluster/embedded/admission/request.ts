import { randomUUID } from 'node:crypto';
import { ApiError, qualifiedResource } from '../errors.ts';
import type { ResourceVersion } from '../registry/resource-type.ts';
import { isPlainObject } from '../types.ts';
import type { AdmissionAttributes, UserInfo } from './attributes.ts';

/** Who a request without a user is: the kubeconfig's token and the in-process controllers act as the cluster's administrator. */
export const ADMINISTRATOR: UserInfo = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };

/**
 * The CEL `request` variable: an admission/v1 AdmissionRequest as JSON, empty fields left out as
 * its omitempty tags do (so `request.name` is absent on a create by generateName). `kind` and
 * `resource` name the version the policy matched in; `requestKind` and `requestResource` the
 * version the client used.
 */
export function admissionRequest(attributes: AdmissionAttributes, namespace: string, matched: ResourceVersion): Record<string, unknown> {
  const { type, version } = attributes.target;
  const user = attributes.userInfo ?? ADMINISTRATOR;
  const options = (attributes.options ?? {}) as Record<string, unknown>;
  return omitEmpty({
    uid: randomUUID(),
    kind: { group: type.group, version: matched.name, kind: type.kind },
    resource: { group: type.group, version: matched.name, resource: type.plural },
    subResource: attributes.subresource ?? '',
    requestKind: { group: type.group, version: version.name, kind: type.kind },
    requestResource: { group: type.group, version: version.name, resource: type.plural },
    requestSubResource: attributes.subresource ?? '',
    name: attributes.name,
    namespace,
    operation: attributes.operation,
    userInfo: omitEmpty({ username: user.username, uid: user.uid ?? '', groups: user.groups ?? [], extra: user.extra ?? {} }),
    dryRun: options.dryRun === true,
    options: operationOptions(attributes.operation, options),
  });
}

/** CreateOptions, UpdateOptions or DeleteOptions as the request carried them. */
function operationOptions(operation: AdmissionAttributes['operation'], options: Record<string, unknown>): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const common = { kind, apiVersion: 'meta.k8s.io/v1', dryRun: options.dryRun === true ? ['All'] : [] };
  if (operation === 'DELETE') {
    const { gracePeriodSeconds, propagationPolicy, preconditions } = options;
    return omitEmpty({ ...common, gracePeriodSeconds, propagationPolicy, preconditions });
  }
  return omitEmpty({ ...common, fieldManager: options.fieldManager, fieldValidation: options.fieldValidation });
}

function omitEmpty(object: Record<string, unknown>): Record<string, unknown> {
  const empty = (v: unknown) => v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
  return Object.fromEntries(Object.entries(object).filter(([, v]) => !empty(v)));
}

/** A denial's reason picks its code (reasonToCode): Forbidden 403, Unauthorized 401, RequestEntityTooLarge 413, else Invalid 422. */
const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

/**
 * The error a denied request gets: admission.NewForbidden's wording (`secrets "x" is forbidden:
 * ...`) with the code and reason of the validation's `reason` (Invalid when it gives none).
 */
export function denial(attributes: AdmissionAttributes, policy: string, binding: string | undefined, message: string, reason: string | undefined): ApiError {
  const { type } = attributes.target;
  const resource = qualifiedResource(type.group, type.plural);
  const object = attributes.object ?? attributes.oldObject;
  const name = attributes.name || object?.metadata.name || object?.metadata.generateName || 'Unknown';
  const text = binding
    ? `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${message}`
    : `ValidatingAdmissionPolicy '${policy}' denied request: ${message}`;
  const status = reason && CODES[reason] ? reason : 'Invalid';
  return new ApiError(CODES[status], status, `${resource} "${name}" is forbidden: ${text}`, {
    name,
    group: type.group || undefined,
    kind: type.plural,
    causes: [{ message: text }],
  });
}
