/**
 * The fault kinds that act on single requests: latency (a slow server or network), error (an
 * answer kube-apiserver gives under load, shutdown or etcd trouble; with `commit` after the write
 * landed), reset (the connection lost, with `commit` after the write landed) and conflict (a
 * genuine 409 made by a real concurrent write).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { objectPath } from '../../request/resource-paths.ts';
import type { Exchange } from '../exchange.ts';
import { errorStatus, retryAfterOf } from '../kube-status.ts';
import type { ProxyFaultSpec } from '../proxy-fault.ts';
import { FaultBehaviour } from './fault-behaviour.ts';

type Spec<K extends ProxyFaultSpec['kind']> = Extract<ProxyFaultSpec, { kind: K }>;

export class LatencyFault extends FaultBehaviour<Spec<'latency'>> {
  override async onRequest(exchange: Exchange): Promise<boolean> {
    await sleep(this.spec.ms, undefined, { signal: this.proxy.signal });
    this.acted(exchange.request, exchange.client, `delayed ${this.spec.ms} ms`);
    return false;
  }
}

export class ErrorFault extends FaultBehaviour<Spec<'error'>> {
  override async onRequest(exchange: Exchange): Promise<boolean> {
    const { request, client } = exchange;
    // A watch's start meets 429 (API Priority and Fairness) or 503 (shutting down), never a 500 or
    // 504: storage errors come as an ERROR event in a 200 stream, and the timeout filter spares
    // long-running requests. Such a watch is relayed untouched.
    if (request.verb === 'watch' && (this.spec.status === 500 || this.spec.status === 504)) return false;
    // A watch has no answer to lose: `commit` applies to requests that end.
    if (this.spec.commit && request.verb !== 'watch') {
      if (!(await this.proxy.forwardObserved(exchange))) return true;
    }
    const status = errorStatus(this.spec.status, request, this.spec.retryAfterSeconds);
    exchange.answerStatus(status, retryAfterOf(this.spec.status, status, this.spec.retryAfterSeconds));
    this.acted(request, client, `answered ${this.spec.status}${this.spec.commit ? ' after the upstream did' : ''}`);
    return true;
  }
}

export class ResetFault extends FaultBehaviour<Spec<'reset'>> {
  override async onRequest(exchange: Exchange): Promise<boolean> {
    if (this.spec.commit && exchange.request.verb !== 'watch') {
      if (!(await this.proxy.forwardObserved(exchange))) return true;
    }
    exchange.drop();
    this.acted(exchange.request, exchange.client, `reset the connection${this.spec.commit ? ' after the upstream answered' : ''}`);
    return true;
  }
}

/** The annotation the third party's concurrent write sets: it changes the object, so its resourceVersion moves on. */
export const CONCURRENT_WRITE_ANNOTATION = 'sandbox-conformance.io/concurrent-write';

const CONDITIONABLE = new Set(['update', 'patch', 'delete']);

export class ConflictFault extends FaultBehaviour<Spec<'conflict'>> {
  private writes = 0;

  override async onRequest(exchange: Exchange): Promise<boolean> {
    const { request, client } = exchange;
    // Only a resourceVersion precondition can meet a concurrent write: a write without one is
    // applied to the current object (patches are retried inside the server), and a UID-only one
    // still names the same object after another write.
    if (!request.resourceVersionPrecondition || !request.name || !CONDITIONABLE.has(request.verb)) return false;
    const value = `${process.pid}-${Date.now()}-${++this.writes}`;
    const patched = await this.proxy.thirdParty.json('the concurrent write before a conditioned write', 'PATCH', objectPath(request), { metadata: { annotations: { [CONCURRENT_WRITE_ANNOTATION]: value } } }, 'application/merge-patch+json');
    if (patched.status !== 200) return false;
    const revision = (patched.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    this.acted(request, client, `wrote ${request.resource}/${request.name} concurrently (rv ${request.resourceVersionPrecondition} -> ${revision})`);
    return false;
  }
}
