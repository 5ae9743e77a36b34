/** `pods/log`: a container's output streamed from the node agent, with kubectl's choices (container, follow, tail, since, limit). */
import type { ServerResponse } from 'node:http';
import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { noNodeAgent, type NodeBackend } from './node-backend.ts';
import { queryFlag, queryInt } from './request-info.ts';

export function servePodLogs(res: ServerResponse, url: URL, pod: KubeObject, name: string, nodeBackend: NodeBackend | undefined): void {
  const containers = ((pod.spec as { containers?: { name: string }[] })?.containers ?? []).map((c) => c.name);
  const container = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
  if (!container) throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`);
  if (!containers.includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  if (!(pod.spec as { nodeName?: string }).nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
  if (!nodeBackend) throw noNodeAgent();
  const abort = new AbortController();
  const stream = nodeBackend.logs(
    pod,
    {
      container,
      follow: queryFlag(url, 'follow'),
      timestamps: queryFlag(url, 'timestamps'),
      previous: queryFlag(url, 'previous'),
      tailLines: queryInt(url, 'tailLines'),
      sinceSeconds: queryInt(url, 'sinceSeconds'),
      limitBytes: queryInt(url, 'limitBytes'),
    },
    abort.signal,
  );
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  res.on('close', () => abort.abort());
  stream.pipe(res);
}
