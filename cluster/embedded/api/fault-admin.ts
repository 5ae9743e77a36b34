/** The embedded cluster's own admin endpoint for fault injection: list (GET), add (POST), clear (DELETE), remove one (DELETE <id>). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.ts';
import { decodeObject, readBody } from './body.ts';
import type { FaultInjector } from './faults.ts';
import { sendJson } from './responses.ts';

export const FAULT_ADMIN_PREFIX = '/embedded.admin/v1/faults';

export async function serveFaultAdmin(req: IncomingMessage, res: ServerResponse, url: URL, faults: FaultInjector): Promise<void> {
  const id = url.pathname.slice(FAULT_ADMIN_PREFIX.length).replace(/^\//, '');
  if (req.method === 'GET' && !id) return sendJson(res, 200, { faults: faults.list() });
  if (req.method === 'POST' && !id) {
    const body = decodeObject(req, await readBody(req));
    return sendJson(res, 201, faults.add(body as never));
  }
  if (req.method === 'DELETE' && !id) {
    faults.clear();
    return sendJson(res, 200, { faults: [] });
  }
  if (req.method === 'DELETE' && id) {
    if (!faults.remove(id)) throw new ApiError(404, 'NotFound', `fault "${id}" not found`);
    return sendJson(res, 200, { faults: faults.list() });
  }
  throw errors.methodNotAllowed(req.method ?? '');
}
