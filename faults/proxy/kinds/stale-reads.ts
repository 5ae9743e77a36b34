/**
 * A lagging API server's view (an HA apiserver whose watch cache is behind): the reads that
 * allow it are answered as the cluster stood at the fault's revision, read from the upstream's
 * own history with `resourceVersionMatch=Exact`, and watches opened meanwhile start there and
 * deliver nothing newer until healed. Nothing is invented: every object and resourceVersion a
 * client sees is one the cluster had.
 */
import type { KubeRequest } from '../../request/kube-request.ts';
import { collectionPath } from '../../request/resource-paths.ts';
import type { Exchange } from '../exchange.ts';
import { notFoundStatus } from '../kube-status.ts';
import type { ProxyFaultSpec } from '../proxy-fault.ts';
import type { RelayedWatch } from '../watch-relay.ts';
import { FaultBehaviour } from './fault-behaviour.ts';

interface ListBody {
  apiVersion?: string;
  kind?: string;
  items?: Record<string, unknown>[];
}

/**
 * The revision a read may be answered at when it allows a stale answer, undefined when it must be
 * consistent or exact (kube-apiserver's "Semantics for get and list"): resourceVersion "0" (Any)
 * or another one as not-older-than (unset match or NotOlderThan). Not: no resourceVersion (most
 * recent), Exact, a continue token, or a list with a limit and a resourceVersion and no match
 * (the legacy exact read).
 */
export function staleReadRevision(request: KubeRequest, faultRevision: number): number | undefined {
  const rv = request.resourceVersion;
  if (!rv || request.continue || request.resourceVersionMatch === 'Exact') return undefined;
  if (request.resourceVersionMatch !== undefined && request.resourceVersionMatch !== 'NotOlderThan') return undefined;
  if (rv === '0') return faultRevision;
  if (request.verb === 'list' && request.limit && !request.resourceVersionMatch) return undefined;
  const requested = Number(rv);
  if (!Number.isInteger(requested)) return undefined;
  return Math.max(faultRevision, requested);
}

/** `request.path` with these query parameters set (or removed, for undefined). */
function withQuery(path: string, params: Record<string, string | undefined>): string {
  const url = new URL(path, 'https://proxy.invalid');
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) url.searchParams.delete(key);
    else url.searchParams.set(key, value);
  }
  return url.pathname + url.search;
}

/** A list's item as the object it is (items of a typed list carry no kind or apiVersion). */
function itemAsObject(list: ListBody, item: Record<string, unknown>): Record<string, unknown> {
  return { kind: list.kind?.replace(/List$/, ''), apiVersion: list.apiVersion, ...item };
}

export class StaleReadsFault extends FaultBehaviour<Extract<ProxyFaultSpec, { kind: 'stale-reads' }>> {
  private readonly revision: number;
  private readonly heldWatches = new Set<RelayedWatch>();

  constructor(...args: ConstructorParameters<typeof FaultBehaviour<Extract<ProxyFaultSpec, { kind: 'stale-reads' }>>>) {
    super(...args);
    this.revision = Number(this.spec.revision);
    if (!Number.isInteger(this.revision) || this.revision <= 0) throw new Error(`stale-reads: revision must be a cluster resourceVersion (a positive integer), got ${JSON.stringify(this.spec.revision)}`);
  }

  override async onRequest(exchange: Exchange): Promise<boolean> {
    const { request } = exchange;
    // Subresources (logs, status, scale) are not read from the watch cache this fault models.
    if (request.subresource) return false;
    if (request.verb === 'watch') return this.startWatch(exchange);
    if (request.verb !== 'get' && request.verb !== 'list') return false;
    const at = staleReadRevision(request, this.revision);
    if (at === undefined) return false;
    return request.verb === 'list' ? this.staleList(exchange, at) : this.staleGet(exchange, at);
  }

  /** A list as the driver (RBAC holds), at the revision; a compacted revision (410) is answered fresh. */
  private async staleList(exchange: Exchange, at: number): Promise<boolean> {
    const answer = await exchange.forward(withQuery(exchange.request.path, { resourceVersion: String(at), resourceVersionMatch: 'Exact' }));
    if (answer.status === 410) return false;
    exchange.answer(answer);
    this.acted(exchange.request, exchange.client, `answered the list at revision ${at}`);
    return true;
  }

  /**
   * The GET as the driver first, so RBAC decides as it would (its 401 or 403 is the answer), then
   * the object at the revision from an Exact list as the third party (the driver may get but not
   * list): a 404 when it did not exist then.
   */
  private async staleGet(exchange: Exchange, at: number): Promise<boolean> {
    const { request, client } = exchange;
    const fresh = await exchange.forward();
    if (fresh.status !== 200 && fresh.status !== 404) {
      exchange.answer(fresh);
      return true;
    }
    const list = await this.proxy.thirdParty.json('reading the object at the stale revision', 'GET', this.exactListPath(request, at, `metadata.name=${request.name}`));
    if (list.status !== 200) {
      // Compacted (410) or unreadable at that revision: the fresh answer is one a server could give too.
      exchange.answer(fresh);
      return true;
    }
    const body = list.body as ListBody;
    const item = body.items?.[0];
    if (item) exchange.answerJson(itemAsObject(body, item));
    else exchange.answerStatus(notFoundStatus(request));
    this.acted(request, client, `answered the get at revision ${at}${item ? '' : ' (absent then: 404)'}`);
    return true;
  }

  private exactListPath(request: KubeRequest, at: number, fieldSelector: string | undefined): string {
    const query = new URLSearchParams({ resourceVersion: String(at), resourceVersionMatch: 'Exact' });
    if (request.labelSelector) query.set('labelSelector', request.labelSelector);
    if (fieldSelector) query.set('fieldSelector', fieldSelector);
    return `${collectionPath(request)}?${query}`;
  }

  /**
   * A watch from "0" (Get State and Start at Any) starts at the fault's revision: the objects as
   * they stood then as ADDED events (from an Exact list as the third party), then the upstream's
   * watch from that revision. A sendInitialEvents watch is left alone: its initial-events-end
   * bookmark vouches that the state is synced to a revision at least the requested one (a
   * consistent read when none is requested), which a lagging cache makes the client wait for
   * rather than answer stale.
   */
  private async startWatch(exchange: Exchange): Promise<boolean> {
    const { request, client } = exchange;
    if (request.sendInitialEvents || request.resourceVersion !== '0') return false;
    const list = await this.proxy.thirdParty.json('listing the state a stale watch starts from', 'GET', this.exactListPath(request, this.revision, request.fieldSelector));
    if (list.status !== 200) return false;
    const body = list.body as ListBody;
    const prelude = (body.items ?? []).map((item) => JSON.stringify({ type: 'ADDED', object: itemAsObject(body, item) }));
    exchange.watchStart = { path: withQuery(request.path, { resourceVersion: String(this.revision) }), prelude };
    this.acted(request, client, `started the watch at revision ${this.revision} with ${prelude.length} ADDED events`);
    return false;
  }

  override onWatch(watch: RelayedWatch, atActivation: boolean): void {
    if (atActivation || watch.request.sendInitialEvents || watch.request.subresource) return;
    // Only a watch from "0" or from at most the view's revision lands on the lagging view; one with
    // no resourceVersion is a consistent start, and one from newer is served fresh too.
    const from = watch.request.resourceVersion;
    if (!from || (from !== '0' && !(Number(from) <= Number(this.revision)))) return;
    this.heldWatches.add(watch);
    watch.holdAbove(this, this.revision, () => this.acted(watch.request, watch.client, `held the watch's events above revision ${this.revision}`));
    watch.onEnd(() => this.heldWatches.delete(watch));
  }

  protected override async onHeal(): Promise<void> {
    for (const watch of this.heldWatches) {
      const delivered = watch.release(this, 'deliver');
      if (delivered) this.acted(watch.request, watch.client, `delivered ${delivered} held events`, false);
    }
    this.heldWatches.clear();
  }
}
