/** Whether a request, sent by a client (a driver replica's index), is one a fault or trigger names. */
import { WRITE_VERBS, type KubeRequest, type RequestMatch } from './kube-request.ts';

export function matchesRequest(match: RequestMatch, request: KubeRequest, client: number): boolean {
  if (match.verb !== undefined && !(Array.isArray(match.verb) ? match.verb : [match.verb]).includes(request.verb)) return false;
  if (match.resource !== undefined && !resourceMatches(match.resource, request)) return false;
  if (match.subresource !== undefined && match.subresource !== (request.subresource ?? '')) return false;
  if (match.namespace !== undefined && match.namespace !== request.namespace) return false;
  if (match.name !== undefined && match.name !== request.name) return false;
  if (match.writes && !WRITE_VERBS.includes(request.verb)) return false;
  if (match.client !== undefined && match.client !== client) return false;
  if (match.fieldManager !== undefined && match.fieldManager !== request.fieldManager) return false;
  return !match.target || match.target(request);
}

/** `secrets` names the plural in any group; `sandboxes.agents.x-k8s.io` the plural in that group only. */
function resourceMatches(resource: string, request: KubeRequest): boolean {
  const dot = resource.indexOf('.');
  if (dot < 0) return resource === request.resource;
  return resource.slice(0, dot) === request.resource && resource.slice(dot + 1) === request.group;
}
