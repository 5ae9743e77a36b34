/**
 * What every fault kind is to the proxy: a fault in force (ActiveFault) that may act on each
 * matching request before it is forwarded, and on each matching watch stream. The proxy calls
 * the kinds in activation order; the first that answers a request ends its way upstream.
 */
import type { KubeRequest } from '../../request/kube-request.ts';
import { matchesRequest } from '../../request/request-match.ts';
import type { Exchange, UpstreamAnswerBytes } from '../exchange.ts';
import type { ActiveFault, AppliedListener, ProxyFaultSpec } from '../proxy-fault.ts';
import type { UpstreamIdentity } from '../upstream.ts';
import type { RelayedWatch } from '../watch-relay.ts';

/** What a fault kind may use of the proxy. */
export interface ProxyContext {
  readonly thirdParty: UpstreamIdentity;
  /** Aborted when the proxy closes: waits end with it. */
  readonly signal: AbortSignal;
  /** Forwards the exchange as the driver, shows the answer to the observers and returns it; undefined when an observer dropped it. */
  forwardObserved(exchange: Exchange): Promise<UpstreamAnswerBytes | undefined>;
  /** The next resume of this stream (same client, same path) is refused with 410 Expired, `oldest` the oldest revision left. */
  refuseNextResume(watch: RelayedWatch, oldest: number, onRefused: () => void): void;
}

export abstract class FaultBehaviour<Spec extends ProxyFaultSpec = ProxyFaultSpec> implements ActiveFault {
  private count = 0;
  protected healed = false;

  constructor(
    readonly spec: Spec,
    protected readonly proxy: ProxyContext,
    private readonly onApplied?: AppliedListener,
  ) {}

  get applied(): number {
    return this.count;
  }

  matches(request: KubeRequest, client: number): boolean {
    return !this.healed && matchesRequest(this.spec.match, request, client);
  }

  /** Counts one act (unless `counted` is false: a later step of one already counted) and tells the listener. */
  protected acted(request: KubeRequest, client: number, what: string, counted = true): void {
    if (counted) this.count++;
    this.onApplied?.(request, client, what);
  }

  /** A matching request before it is forwarded; true when the fault answered it (or dropped it). */
  onRequest(_exchange: Exchange): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** A matching watch stream: open when the fault was activated (`atActivation`), or opened while it is on. */
  onWatch(_watch: RelayedWatch, _atActivation: boolean): void {}

  async heal(): Promise<void> {
    if (this.healed) return;
    this.healed = true;
    await this.onHeal();
  }

  protected async onHeal(): Promise<void> {}
}
