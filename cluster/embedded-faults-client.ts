/**
 * A harness process's client of the embedded cluster's own fault hooks (controller status-write
 * conflicts and cache lag, containers slow to stop): faults only the embedded cluster can make,
 * reached over HTTPS with nothing but the cluster's administrator kubeconfig, since the test
 * workers do not run in the cluster's process. Another cluster has no such endpoints (404).
 */
import type * as k8s from '@kubernetes/client-node';
import { request, type RequestOptions } from 'node:https';
import type { ControllerFault, ControllerFaultSpec } from './embedded/agent-sandbox/controller-faults.ts';
import type { NodeFault, NodeFaultSpec } from './embedded/node/node-faults.ts';

export type { ControllerFault, ControllerFaultSpec, NodeFault, NodeFaultSpec };

/** A fault in force on the embedded cluster; `heal()` ends it (a second call does nothing). */
export interface EmbeddedFault {
  readonly id: string;
  heal(): Promise<void>;
}

/** Each request's deadline: the admin endpoints answer at once, so a silent one is a dead cluster. */
const REQUEST_DEADLINE_MS = 10_000;

const CONTROLLER_FAULTS = '/embedded.admin/v1/controller-faults';
const NODE_FAULTS = '/embedded.admin/v1/node-faults';

/** Refused by the cluster: its HTTP status and the Status body's message (which names the field and what to send). */
export class EmbeddedFaultError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddedFaultError';
  }
}

/** `{statusConflicts: N}`: the controller's next N status writes fail with 409; `{cacheLagMs: M}`: its cache lags M ms more until healed. */
export function addControllerFault(kubeconfig: k8s.KubeConfig, spec: ControllerFaultSpec): Promise<EmbeddedFault> {
  return add(kubeconfig, CONTROLLER_FAULTS, spec);
}

/** The controller faults in force, with how far each has acted. */
export async function listControllerFaults(kubeconfig: k8s.KubeConfig): Promise<ControllerFault[]> {
  return ((await call(kubeconfig, 'GET', CONTROLLER_FAULTS)) as { faults: ControllerFault[] }).faults;
}

/** One Pod's containers take SIGTERM `stop.delayMs` late, or ignore it (`stop.ignoreSigterm`) and are SIGKILLed at the end of the grace period. */
export function addNodeFault(kubeconfig: k8s.KubeConfig, spec: NodeFaultSpec): Promise<EmbeddedFault> {
  return add(kubeconfig, NODE_FAULTS, spec);
}

/** The node faults in force, with how many containers each has acted on. */
export async function listNodeFaults(kubeconfig: k8s.KubeConfig): Promise<NodeFault[]> {
  return ((await call(kubeconfig, 'GET', NODE_FAULTS)) as { faults: NodeFault[] }).faults;
}

async function add(kubeconfig: k8s.KubeConfig, path: string, spec: unknown): Promise<EmbeddedFault> {
  const { id } = (await call(kubeconfig, 'POST', path, spec)) as { id: string };
  let healing: Promise<void> | undefined;
  return {
    id,
    heal: () => (healing ??= call(kubeconfig, 'DELETE', `${path}/${id}`).then(() => undefined)),
  };
}

async function call(kubeconfig: k8s.KubeConfig, method: string, path: string, body?: unknown): Promise<unknown> {
  const server = kubeconfig.getCurrentCluster()?.server;
  if (!server) throw new Error(`${method} ${path}: the kubeconfig has no current cluster`);
  const url = new URL(path, server);
  const options: RequestOptions = { method, headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) } };
  await kubeconfig.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return reject(new EmbeddedFaultError(res.statusCode ?? 0, `${method} ${url.pathname}: ${res.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
        }
        if ((res.statusCode ?? 0) >= 300) {
          const message = (parsed as { message?: string }).message ?? text;
          return reject(new EmbeddedFaultError(res.statusCode ?? 0, `${method} ${url.pathname}: ${res.statusCode} ${message}`));
        }
        resolve(parsed);
      });
    });
    req.setTimeout(REQUEST_DEADLINE_MS, () => req.destroy(new Error(`${method} ${url.pathname}: the embedded cluster did not answer within ${REQUEST_DEADLINE_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
