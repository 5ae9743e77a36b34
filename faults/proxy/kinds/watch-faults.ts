/**
 * The fault kinds that act on watch streams, each something a real server does to a watch: end
 * it cleanly (its timeout, a restart, a load balancer), delay its events (a lagging etcd watch),
 * and refuse a resume from history it no longer has (410 Expired, so the client relists).
 */
import type { Exchange } from '../exchange.ts';
import { sendExpiredWatch } from '../kube-status.ts';
import type { ProxyFaultSpec } from '../proxy-fault.ts';
import type { RelayedWatch } from '../watch-relay.ts';
import { FaultBehaviour } from './fault-behaviour.ts';

type Spec<K extends ProxyFaultSpec['kind']> = Extract<ProxyFaultSpec, { kind: K }>;

/** A resume: a watch from a resourceVersion other than "" or "0" (those two start afresh). */
export function isResume(resourceVersion: string | undefined): resourceVersion is string {
  return !!resourceVersion && resourceVersion !== '0';
}

export class WatchCloseFault extends FaultBehaviour<Spec<'watch-close'>> {
  private readonly watches = new Set<RelayedWatch>();

  override onWatch(watch: RelayedWatch): void {
    this.watches.add(watch);
    watch.onEnd(() => this.watches.delete(watch));
    watch.closeAfter(this, this.spec.afterEvents, () => this.acted(watch.request, watch.client, `ended the stream after ${this.spec.afterEvents} events`));
  }

  protected override async onHeal(): Promise<void> {
    for (const watch of this.watches) watch.cancelClose(this);
    this.watches.clear();
  }
}

export class WatchHoldFault extends FaultBehaviour<Spec<'watch-hold'>> {
  private readonly watches = new Set<RelayedWatch>();

  override onWatch(watch: RelayedWatch): void {
    this.watches.add(watch);
    watch.hold(this);
    this.acted(watch.request, watch.client, 'held the stream');
  }

  protected override async onHeal(): Promise<void> {
    const { release } = this.spec;
    for (const watch of this.watches) {
      if (watch.isEnded) continue;
      const resumeFrom = watch.lastDelivered;
      const dropped = watch.heldRevision;
      const count = watch.release(this, release);
      if (release === 'expire') {
        // The history the client would resume from is gone: its oldest revision is past the dropped events.
        this.proxy.refuseNextResume(watch, (dropped ?? resumeFrom ?? 0) + 1, () => this.acted(watch.request, watch.client, 'refused the resume with 410 Expired', false));
      }
      const what = release === 'expire' ? `dropped ${count} events and ended the stream` : `delivered ${count} events${release === 'close' ? ' and ended the stream' : ''}`;
      this.acted(watch.request, watch.client, what, false);
    }
    this.watches.clear();
  }
}

export class WatchExpireFault extends FaultBehaviour<Spec<'watch-expire'>> {
  /**
   * The newest revision a stream it ended had delivered: the history up to it is what the server
   * "lost". A resume from a newer revision (one a fresh list just gave) is served, as a real
   * server that keeps minutes of history would serve it; without an ended stream nothing is refused.
   */
  private cutoff?: number;

  override onWatch(watch: RelayedWatch, atActivation: boolean): void {
    if (!atActivation) return;
    // Where the stream stood: its last event, else the revision it started from.
    const from = Number(watch.request.resourceVersion);
    const delivered = watch.lastDelivered ?? (Number.isSafeInteger(from) && from > 0 ? from : undefined);
    if (delivered !== undefined) this.cutoff = Math.max(this.cutoff ?? 0, delivered);
    watch.end();
    this.acted(watch.request, watch.client, 'ended the stream');
  }

  override async onRequest(exchange: Exchange): Promise<boolean> {
    const { request, client } = exchange;
    if (request.verb !== 'watch' || request.sendInitialEvents || !isResume(request.resourceVersion)) return false;
    if (this.cutoff === undefined || !(Number(request.resourceVersion) <= this.cutoff)) return false;
    sendExpiredWatch(exchange.res, request.resourceVersion, Number(request.resourceVersion) + 1);
    this.acted(request, client, 'refused the resume with 410 Expired');
    return true;
  }
}
