import { randomUUID } from 'node:crypto';
import { ApiError, errors } from '../errors.ts';
import { isPlainObject } from '../types.ts';

/** Which requests a fault applies to; an omitted field matches anything. */
export interface FaultMatch {
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb?: string;
  /** Plural, optionally with group: `secrets`, `sandboxes.agents.x-k8s.io`. */
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface FaultSpec extends FaultMatch {
  /** Fail with this HTTP status (403, 409, 500, ...). */
  status?: number;
  reason?: string;
  message?: string;
  /** Delay the request by this many milliseconds before it is served. */
  latencyMs?: number;
  /** End watch streams after this many events. */
  closeWatchAfterEvents?: number;
  /** How many matching requests the fault applies to; omitted = until cleared. */
  times?: number;
}

export interface Fault extends FaultSpec {
  id: string;
  /** How many requests it has applied to so far. */
  hits: number;
}

export interface RequestAttributes {
  verb: string;
  group: string;
  plural: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function matches(fault: FaultMatch, request: RequestAttributes): boolean {
  const resource = request.group ? `${request.plural}.${request.group}` : request.plural;
  return (
    (!fault.verb || fault.verb === request.verb) &&
    (!fault.resource || fault.resource === resource || fault.resource === request.plural) &&
    (fault.subresource === undefined || fault.subresource === (request.subresource ?? '')) &&
    (!fault.namespace || fault.namespace === request.namespace) &&
    (!fault.name || fault.name === request.name)
  );
}

/**
 * Fault injection for reliability scenarios: failing, slowing or cutting requests that match.
 * Off until a fault is added; faults apply to client requests only, never to the cluster's
 * own controllers, just as a failing network or webhook would.
 */
export class FaultInjector {
  private faults: Fault[] = [];

  add(spec: FaultSpec): Fault {
    validateSpec(spec);
    const fault: Fault = { ...spec, id: randomUUID(), hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** The faults that apply to this request, counted as used. */
  take(request: RequestAttributes): { error?: ApiError; latencyMs: number; closeWatchAfterEvents?: number } {
    let latencyMs = 0;
    let error: ApiError | undefined;
    let closeWatchAfterEvents: number | undefined;
    for (const fault of this.faults) {
      if (!matches(fault, request)) continue;
      if (fault.times !== undefined && fault.hits >= fault.times) continue;
      fault.hits++;
      latencyMs += fault.latencyMs ?? 0;
      if (fault.closeWatchAfterEvents !== undefined) closeWatchAfterEvents = fault.closeWatchAfterEvents;
      if (fault.status && !error) {
        const reason = fault.reason ?? REASONS[fault.status] ?? 'InternalError';
        error = new ApiError(fault.status, reason, fault.message ?? `injected fault: ${reason} on ${request.verb} ${request.plural}${request.name ? ` "${request.name}"` : ''}`);
      }
    }
    this.faults = this.faults.filter((f) => f.times === undefined || f.hits < f.times);
    return { error, latencyMs, closeWatchAfterEvents };
  }
}

function validateSpec(spec: unknown): asserts spec is FaultSpec {
  if (!isPlainObject(spec)) throw errors.badRequest('a fault must be a JSON object');
  const { status, latencyMs, closeWatchAfterEvents, times } = spec;
  if (status === undefined && latencyMs === undefined && closeWatchAfterEvents === undefined) {
    throw errors.badRequest('a fault needs at least one of status, latencyMs, closeWatchAfterEvents');
  }
  if (status !== undefined && (typeof status !== 'number' || status < 400 || status > 599)) {
    throw errors.badRequest(`fault status must be an HTTP error code 400-599, got ${JSON.stringify(status)}`);
  }
  for (const [field, value] of Object.entries({ latencyMs, closeWatchAfterEvents, times })) {
    if (value !== undefined && (typeof value !== 'number' || value < 0)) throw errors.badRequest(`fault ${field} must be a non-negative number`);
  }
}
