/** DeleteOptions of a DELETE request: its body (JSON, YAML or protobuf) with the query parameters over it, as kube-apiserver merges them. */
import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.ts';
import type { DeleteOptions } from '../registry/object-api.ts';
import { isPlainObject } from '../types.ts';
import { decodeObject, readBody } from './body.ts';
import { queryInt } from './request-info.ts';

export async function deleteOptions(req: IncomingMessage, url: URL): Promise<DeleteOptions> {
  const body = await readBody(req);
  const fromBody = body.length ? decodeObject(req, body) : {};
  if (!isPlainObject(fromBody)) throw errors.badRequest('DeleteOptions must be a JSON object');
  const options = fromBody as DeleteOptions & { dryRun?: unknown };
  const grace = queryInt(url, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const policy = url.searchParams.get('propagationPolicy');
  if (policy) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (options.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(options.propagationPolicy)) {
    throw errors.badRequest(`propagationPolicy: Unsupported value: "${options.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const dryRun = Array.isArray(options.dryRun) ? options.dryRun.includes('All') : url.searchParams.getAll('dryRun').includes('All');
  return { ...options, dryRun };
}
