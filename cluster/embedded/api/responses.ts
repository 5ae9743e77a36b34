/** How the API server answers: JSON bodies with their Warning headers, plain text, and errors as a `kind: Status`. */
import type { ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';

/** Encoded to UTF-8 once: the length and the body come from the same bytes (a list of 10k Pods is ~7 MB). */
export function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = [], contentType = 'application/json'): void {
  const bytes = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | string[]> = { 'Content-Type': contentType, 'Content-Length': String(bytes.length) };
  if (warnings.length) headers.Warning = warningHeader(warnings);
  res.writeHead(code, headers);
  res.end(bytes);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain' });
  res.end(text);
}

/** Any error as the Status kube-apiserver would send (500 for one that is not an ApiError); a response already under way is ended. */
export function sendError(res: ServerResponse, error: unknown, warnings: string[]): void {
  const apiError = error instanceof ApiError ? error : errors.internal((error as Error)?.message ?? String(error));
  if (!(error instanceof ApiError) && process.env.EMBEDDED_DEBUG) console.error(error);
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, apiError.code, apiError.toStatus(), warnings);
}

/** The Status a delete that removed the object answers with. */
export function successStatus(object: KubeObject, group: string, plural: string): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: object.metadata.name, ...(group ? { group } : {}), kind: plural, uid: object.metadata.uid },
  };
}

function warningHeader(warnings: string[]): string[] {
  return [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`);
}
