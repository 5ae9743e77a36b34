import type { Readable } from 'node:stream';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import type { ExecOptions, ExecResult, ExecSession } from './exec-stream.ts';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  timestamps: boolean;
  previous: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  limitBytes?: number;
}

/**
 * What the API server asks of the node that runs a Pod: its container logs and exec.
 * The node agent implements it; without one, `pods/log` and `pods/exec` answer that no
 * node agent runs in this cluster.
 */
export interface NodeBackend {
  logs(pod: KubeObject, options: PodLogOptions, signal: AbortSignal): Readable;
  exec(pod: KubeObject, options: ExecOptions & { container: string }, session: ExecSession): Promise<ExecResult>;
}

/** What `pods/log` and `pods/exec` answer when no node agent runs: 503, saying so. */
export function noNodeAgent(): ApiError {
  return new ApiError(503, 'ServiceUnavailable', 'no node agent runs in this embedded cluster: container logs and exec need one');
}
