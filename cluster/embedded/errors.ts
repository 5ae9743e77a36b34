/**
 * API errors as kube-apiserver reports them: a `kind: Status` body whose code, reason and
 * message match what clients (kubectl, client-go, @kubernetes/client-node) key on.
 */

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `resource` is the plural with its group, as the real server prints it: `pods`, `sandboxes.agents.x-k8s.io`. */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const errors = {
  badRequest: (message: string, causes?: StatusCause[]) =>
    new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined),
  unauthorized: () => new ApiError(401, 'Unauthorized', 'Unauthorized'),
  forbidden: (message: string) => new ApiError(403, 'Forbidden', message),
  notFound: (group: string, plural: string, name: string) =>
    new ApiError(404, 'NotFound', `${qualifiedResource(group, plural)} "${name}" not found`, {
      name,
      group: group || undefined,
      kind: plural,
    }),
  noRoute: () => new ApiError(404, 'NotFound', 'the server could not find the requested resource'),
  methodNotAllowed: (method: string) =>
    new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${method})`),
  alreadyExists: (group: string, plural: string, name: string) =>
    new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, plural)} "${name}" already exists`, {
      name,
      group: group || undefined,
      kind: plural,
    }),
  conflict: (group: string, plural: string, name: string, why: string) =>
    new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, plural)} "${name}": ${why}`, {
      name,
      group: group || undefined,
      kind: plural,
    }),
  staleResourceVersion: (group: string, plural: string, name: string) =>
    errors.conflict(
      group,
      plural,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    ),
  gone: (message: string) => new ApiError(410, 'Expired', message),
  tooLarge: (limitBytes: number) =>
    new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`),
  unsupportedMediaType: (contentType: string, accepted: string[]) =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
    ),
  invalid: (kind: string, group: string, name: string, causes: StatusCause[]) =>
    new ApiError(
      422,
      'Invalid',
      `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${aggregate(causes.map((c) => `${c.field}: ${c.message}`))}`,
      { name, group: group || undefined, kind, causes },
    ),
  internal: (message: string) => new ApiError(500, 'InternalError', `Internal error occurred: ${message}`),
  timeout: (message: string) => new ApiError(504, 'Timeout', message),
};

/** utilerrors.Aggregate's Error(): one message as is, several (deduplicated) in brackets. */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** Field error causes, worded as apimachinery's field.Error renders them. */
export const causes = {
  required: (field: string): StatusCause => ({ reason: 'FieldValueRequired', field, message: 'Required value' }),
  invalid: (field: string, value: unknown, detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  }),
  unsupported: (field: string, value: unknown, allowed: unknown[]): StatusCause => ({
    reason: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
  }),
  typeInvalid: (field: string, value: unknown, expected: string): StatusCause => ({
    reason: 'FieldValueTypeInvalid',
    field,
    message: `Invalid value: ${JSON.stringify(value)}: ${field} in body must be of type ${expected}: ${JSON.stringify(jsonType(value))}`,
  }),
  forbidden: (field: string, detail: string): StatusCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` }),
};

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
