import { randomUUID } from 'node:crypto';
import { ApiError, errors } from '../errors.ts';
import { isPlainObject } from '../types.ts';
import type { RequestAttributes } from '../api/request-log.ts';

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
  status: number;
  reason?: string;
  message?: string;
  /** How many matching requests the fault applies to; omitted = until cleared. */
  times?: number;
}

export interface Fault extends FaultSpec {
  id: string;
  /** How many requests it has applied to so far. */
  hits: number;
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
 * Faults on the Agent Sandbox controller's own calls (controller-client.ts): each matching call
 * fails with the fault's status, so tests can make exactly the controller's Pod delete or
 * annotation patch fail. Clients' requests are never touched here: faults on them are the fault
 * proxy's (faults/proxy/), in front of the API server as on any cluster.
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

  /** The error of the first fault that applies to this call, every applying fault counted as used. */
  take(request: RequestAttributes): { error?: ApiError } {
    let error: ApiError | undefined;
    for (const fault of this.faults) {
      if (!matches(fault, request)) continue;
      if (fault.times !== undefined && fault.hits >= fault.times) continue;
      fault.hits++;
      if (!error) {
        const reason = fault.reason ?? REASONS[fault.status] ?? 'InternalError';
        error = new ApiError(fault.status, reason, fault.message ?? `injected fault: ${reason} on ${request.verb} ${request.plural}${request.name ? ` "${request.name}"` : ''}`);
      }
    }
    this.faults = this.faults.filter((f) => f.times === undefined || f.hits < f.times);
    return { error };
  }
}

function validateSpec(spec: unknown): asserts spec is FaultSpec {
  if (!isPlainObject(spec)) throw errors.badRequest('a fault must be an object');
  const { status, times } = spec;
  if (typeof status !== 'number' || status < 400 || status > 599) throw errors.badRequest(`fault status must be an HTTP error code 400-599, got ${JSON.stringify(status)}`);
  if (times !== undefined && (typeof times !== 'number' || times < 0)) throw errors.badRequest('fault times must be a non-negative number');
}
