/**
 * The admin endpoints of the embedded cluster's own fault hooks, faults only it can produce:
 * `controller-faults` (the Agent Sandbox controller's status-write conflicts and cache lag) and
 * `node-faults` (containers slow to stop). List (GET), add (POST, 201), heal one (DELETE <id>).
 * The controller and the node agent implement the hooks; a cluster without one answers 404
 * saying what to start it with.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.ts';
import { decodeObject, readBody } from './body.ts';
import { sendJson } from './responses.ts';

/** One family of fault hooks: the body of an add is checked by the hook (400 naming the field). */
export interface FaultHooks {
  add(body: unknown): { id: string };
  /** Heals it; false when no fault has that id. */
  remove(id: string): boolean;
  list(): { id: string }[];
}

export const FAULT_HOOK_PREFIXES = {
  'controller-faults': '/embedded.admin/v1/controller-faults',
  'node-faults': '/embedded.admin/v1/node-faults',
} as const;

export type FaultHookName = keyof typeof FAULT_HOOK_PREFIXES;

const WHAT_RUNS_THEM: Record<FaultHookName, string> = {
  'controller-faults': 'no Agent Sandbox controller runs in this embedded cluster (start it with one: `npm run cluster -- up --agent-sandbox v0.5.0`, or EmbeddedCluster.start({ agentSandbox: \'v0.5.0\' }))',
  'node-faults': 'no node agent runs in this embedded cluster (start it without --no-node, or EmbeddedCluster.start({ node: {} }))',
};

/** The hook family a path belongs to, if any. */
export function faultHookOf(pathname: string): FaultHookName | undefined {
  return (Object.keys(FAULT_HOOK_PREFIXES) as FaultHookName[]).find((name) => {
    const prefix = FAULT_HOOK_PREFIXES[name];
    return pathname === prefix || pathname.startsWith(`${prefix}/`);
  });
}

export async function serveFaultHooks(req: IncomingMessage, res: ServerResponse, url: URL, name: FaultHookName, hooks: FaultHooks | undefined): Promise<void> {
  if (!hooks) throw new ApiError(404, 'NotFound', `${name}: ${WHAT_RUNS_THEM[name]}`);
  const id = url.pathname.slice(FAULT_HOOK_PREFIXES[name].length + 1);
  if (req.method === 'GET' && !id) return sendJson(res, 200, { faults: hooks.list() });
  if (req.method === 'POST' && !id) return sendJson(res, 201, hooks.add(decodeObject(req, await readBody(req))));
  if (req.method === 'DELETE' && id) {
    if (!hooks.remove(id)) throw new ApiError(404, 'NotFound', `${name}: no fault "${id}" (healed already, or never added; GET ${FAULT_HOOK_PREFIXES[name]} lists them)`);
    return sendJson(res, 200, { faults: hooks.list() });
  }
  throw errors.methodNotAllowed(req.method ?? '');
}
