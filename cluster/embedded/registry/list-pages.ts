/**
 * Consistent paginated lists, as kube-apiserver serves `limit` and `continue`: which revision a
 * list reads, the snapshot at that revision, and its pages with the token for the next one.
 */
import { ApiError, errors } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import type { ListOptions } from './object-api-options.ts';

/** A resourceVersion as the store's revision; 400 when it is not one. */
export function parseRevision(value: string): number {
  const revision = Number(value);
  if (!Number.isInteger(revision) || revision < 0) throw errors.badRequest(`invalid resource version: ${value}`);
  return revision;
}

/** The revision a list reads and the object it resumes after: the continue token's, an Exact resourceVersion's, or the current one. */
export function listStart(options: ListOptions, current: number): { revision: number; startAfter?: string } {
  if (options.continue) return decodeContinue(options.continue);
  if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) return { revision: parseRevision(options.resourceVersion) };
  if (options.resourceVersion && options.resourceVersion !== '0') {
    const wanted = parseRevision(options.resourceVersion);
    if (wanted > current) throw errors.timeout(`Too large resource version: ${wanted}, current: ${current}`);
  }
  return { revision: current };
}

/** The objects at `revision`; a continue token whose revision has left the history is 410 in kube-apiserver's words. */
export function snapshotAt(store: ObjectStore, key: string, namespace: string | undefined, revision: number, continuing: boolean): KubeObject[] {
  try {
    return store.snapshot(key, namespace, revision);
  } catch (error) {
    if (!continuing || !(error instanceof ApiError && error.code === 410)) throw error;
    throw errors.gone(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
  }
}

/** The page of `matching` after `startAfter`; when `limit` cut it, the token for the rest and how many remain. */
export function pageOf(
  matching: KubeObject[],
  revision: number,
  startAfter: string | undefined,
  requestedLimit: number | undefined,
): { page: KubeObject[]; continue?: string; remainingItemCount?: number } {
  let start = 0;
  if (startAfter !== undefined) {
    start = matching.findIndex((o) => objectSortKey(o) > startAfter);
    if (start < 0) start = matching.length;
  }
  const limit = requestedLimit && requestedLimit > 0 ? requestedLimit : undefined;
  const page = limit ? matching.slice(start, start + limit) : matching.slice(start);
  const remaining = matching.length - start - page.length;
  if (!limit || remaining <= 0) return { page };
  return { page, continue: encodeContinue(revision, objectSortKey(page[page.length - 1])), remainingItemCount: remaining };
}

function objectSortKey(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name!;
}

function encodeContinue(revision: number, startAfter: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: startAfter })).toString('base64url');
}

function decodeContinue(token: string): { revision: number; startAfter: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: unknown; start: unknown };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') return { revision: parsed.rv, startAfter: parsed.start };
  } catch {
    // fall through to the error below
  }
  throw errors.badRequest('invalid continue token');
}
