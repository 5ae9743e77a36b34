/**
 * The answers the proxy writes itself, each in kube-apiserver's own shape: a metav1.Status body
 * (apimachinery pkg/api/errors), and Retry-After exactly when the server sets it (whenever
 * `details.retryAfterSeconds` is above 0, responsewriters/writers.go).
 */
import type { ServerResponse } from 'node:http';
import type { KubeRequest } from '../request/kube-request.ts';

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  /** Omitted for errors that are not a StatusError (Go's omitempty of an empty reason). */
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
  code: number;
}

function status(code: number, message: string, reason?: string, details?: KubeStatus['details']): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), ...(details ? { details } : {}), code };
}

/** `pods`, `sandboxes.agents.x-k8s.io`: schema.GroupResource's String(). */
function qualifiedResource(request: KubeRequest): string {
  return request.group ? `${request.resource}.${request.group}` : request.resource;
}

/** The errors of the `error` fault kind, one per status it offers. */
export function errorStatus(code: 429 | 500 | 503 | 504, request: KubeRequest, retryAfterSeconds?: number): KubeStatus {
  switch (code) {
    case 429:
      // max-in-flight's rejection (maxinflight.go): always with a Retry-After, 1 s by default.
      return status(429, 'Too many requests, please try again later.', 'TooManyRequests', { retryAfterSeconds: retryAfterSeconds ?? 1 });
    case 500:
      if (retryAfterSeconds === undefined) return status(500, 'etcdserver: request timed out');
      return status(500, `The ${request.verb} operation against ${qualifiedResource(request)} could not be completed at this time, please try again.`, 'ServerTimeout', {
        name: request.verb,
        group: request.group,
        kind: request.resource,
        retryAfterSeconds,
      });
    case 503:
      // During shutdown (waitgroup.go) with Retry-After 1; NewServiceUnavailable carries no details.
      return status(503, 'apiserver is shutting down', 'ServiceUnavailable');
    case 504:
      return status(504, 'Timeout: request did not complete within the allotted timeout', 'Timeout', retryAfterSeconds ? { retryAfterSeconds } : {});
  }
}

/** The Retry-After an error answer carries, when any. */
export function retryAfterOf(code: number, body: KubeStatus, retryAfterSeconds?: number): number | undefined {
  if (code === 503) return retryAfterSeconds ?? 1;
  return body.details?.retryAfterSeconds;
}

export function notFoundStatus(request: KubeRequest): KubeStatus {
  return status(404, `${qualifiedResource(request)} "${request.name}" not found`, 'NotFound', { name: request.name, group: request.group || undefined, kind: request.resource });
}

export function unauthorizedStatus(): KubeStatus {
  return status(401, 'Unauthorized', 'Unauthorized');
}

/** The watch cache's answer to a resume from history it no longer has (watch_cache_history.go). */
export function expiredStatus(resourceVersion: string, oldest: number): KubeStatus {
  return status(410, `too old resource version: ${resourceVersion} (${oldest})`, 'Expired');
}

export function sendStatus(res: ServerResponse, body: KubeStatus, retryAfterSeconds?: number): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-cache, private' };
  if (retryAfterSeconds) headers['retry-after'] = String(retryAfterSeconds);
  res.writeHead(body.code, headers).end(text);
}

/** A watch refused in its stream, as kube-apiserver refuses a resume from compacted history: HTTP 200, one ERROR event, the end. */
export function sendExpiredWatch(res: ServerResponse, resourceVersion: string, oldest: number): void {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  res.end(JSON.stringify({ type: 'ERROR', object: expiredStatus(resourceVersion, oldest) }) + '\n');
}
