/**
 * A schedule's request matcher made concrete for the run: objects named by role become the
 * names those objects have now (kept from what the recorder saw; a create's role is read from its
 * body), so a schedule written once aims at the same objects in every run.
 */
import type { KubeRequest, RequestMatch } from '../request/kube-request.ts';
import { matchesRequest } from '../request/request-match.ts';
import type { ObjectRef, ObjectRole, ScheduledRequestMatch } from '../schedule/schedule.ts';
import type { WatchedObject } from './object-change.ts';

/** The test's objects seen so far, by uid: their resource, role, sandbox and name. */
export type KnownObjects = Map<string, { resource: string; role: ObjectRole; sandbox?: string; namespace: string; name: string; object: WatchedObject }>;

type Classify = (resource: string, object: WatchedObject) => { role: ObjectRole; sandbox?: string } | undefined;

/** The run's readings of objects: which role an object plays, and whether a Sandbox is suspended in spec. */
export interface ObjectReadings {
  known: KnownObjects;
  classify: Classify;
  suspended: (object: WatchedObject) => boolean;
}

export function toRequestMatch(scheduled: ScheduledRequestMatch, readings: ObjectReadings): { match: RequestMatch; test(request: KubeRequest, client: number): boolean } {
  const { object, suspends, ...plain } = scheduled;
  const predicates: ((request: KubeRequest) => boolean)[] = [];
  if (suspends) predicates.push((request) => turnsSuspended(request, readings.suspended));
  if (object) predicates.push((request) => aimsAt(request, object, readings));
  const match: RequestMatch = predicates.length ? { ...plain, target: (request) => predicates.every((p) => p(request)) } : plain;
  return { match, test: (request, client) => matchesRequest(match, request, client) };
}

/** The request names an object playing `ref`'s role (a create: its body's labels say which). */
function aimsAt(request: KubeRequest, ref: ObjectRef, { known, classify }: ObjectReadings): boolean {
  const fits = (role: { role: ObjectRole; sandbox?: string } | undefined) => !!role && role.role === ref.role && (ref.sandbox === undefined || role.sandbox === ref.sandbox);
  if (request.name === undefined) {
    const body = request.body as WatchedObject | undefined;
    return !!body?.metadata && fits(classify(request.resource, body));
  }
  for (const o of known.values()) {
    if (o.resource === request.resource && o.name === request.name && (request.namespace === undefined || o.namespace === request.namespace) && fits(o)) return true;
  }
  return false;
}

/** A write whose body makes the Sandbox's spec suspended: an update or a merge or apply patch carrying the suspended spec. */
function turnsSuspended(request: KubeRequest, suspended: (object: WatchedObject) => boolean): boolean {
  if (request.resource !== 'sandboxes' || !['update', 'patch'].includes(request.verb) || request.patchType === 'json') return false;
  const body = request.body as { apiVersion?: string; spec?: unknown } | undefined;
  if (!body?.spec) return false;
  return suspended({ apiVersion: body.apiVersion ?? `${request.group}/${request.version}`, spec: body.spec });
}

/** `PATCH sandboxes openshell/w1--box (replica 0's 3rd write)`. */
export function describeRequest(request: KubeRequest, client: number): string {
  const what = `${request.resource}${request.subresource ? `/${request.subresource}` : ''}`;
  const where = [request.namespace, request.name].filter(Boolean).join('/');
  const write = request.writeIndex !== undefined ? `, its write #${request.writeIndex}` : '';
  return `${request.verb.toUpperCase()} ${what}${where ? ` ${where}` : ''} (replica ${client}${write})`;
}
