/**
 * What the fault proxy does to the requests and watch streams of the clients behind it: the
 * fault kinds it carries out itself, each one an answer or a stream behaviour a real
 * kube-apiserver can show that request (the schedule engine decides when a fault is on).
 */
import type { KubeRequest, RequestMatch } from '../request/kube-request.ts';

export type ProxyFaultSpec =
  /** Matching requests wait `ms` before they are forwarded. */
  | { kind: 'latency'; match: RequestMatch; ms: number }
  /**
   * Matching requests are answered with this error, as kube-apiserver words it: 429 with
   * Retry-After (max-inflight's Status), 500 (etcd's raw timeout, or ServerTimeout with
   * Retry-After when `retryAfterSeconds` is given), 503 (shutting down, Retry-After), 504
   * (Timeout). `commit`: forwarded first, so a write lands and only its answer is lost.
   */
  | { kind: 'error'; match: RequestMatch; status: 429 | 500 | 503 | 504; retryAfterSeconds?: number; commit?: boolean }
  /** The client's connection is reset (after the request was forwarded and answered, with `commit`). */
  | { kind: 'reset'; match: RequestMatch; commit?: boolean }
  /**
   * A genuine 409: a matching write conditioned on a resourceVersion meets a concurrent write of
   * a third party to its object just before it is forwarded. Unconditioned writes pass untouched.
   */
  | { kind: 'conflict'; match: RequestMatch }
  /**
   * A lagging API server's view at `revision`: reads that allow it (resourceVersion "0", or
   * not-older-than an earlier one) are answered as of `revision`, and watches opened meanwhile
   * start there and deliver nothing newer until healed. Consistent reads are never answered stale.
   */
  | { kind: 'stale-reads'; match: RequestMatch; revision: string }
  /** Matching watch streams end cleanly after `afterEvents` more events. */
  | { kind: 'watch-close'; match: RequestMatch; afterEvents: number }
  /**
   * Matching watch streams buffer their events; when healed they are delivered in order
   * (`deliver`), delivered and the stream ended (`close`), or dropped with the stream ended and
   * its resume refused with 410 Expired, so the client relists and never sees them (`expire`).
   */
  | { kind: 'watch-hold'; match: RequestMatch; release: 'deliver' | 'close' | 'expire' }
  /** Open matching watch streams end now, and resuming one (a resourceVersion other than "" or "0") gets 410 Expired, until healed. */
  | { kind: 'watch-expire'; match: RequestMatch };

/** A fault in force at the proxy. */
export interface ActiveFault {
  readonly spec: ProxyFaultSpec;
  /** How many requests or watch streams it acted on so far. */
  readonly applied: number;
  /** Ends it; resolves once what it held is released as its spec says. */
  heal(): Promise<void>;
}

/** Told each time a fault acts: on which request, from which client, and what it did (`answered 429`, `held 3 events`). */
export type AppliedListener = (request: KubeRequest, client: number, what: string) => void;

/** The upstream's answer to a request, as an observer sees it at `answered`. */
export interface UpstreamAnswer {
  status: number;
  /** The parsed JSON body, when there is one. */
  body?: unknown;
}

/**
 * Sees every request of every client: at `received`, before any fault applies; at `answered`,
 * once the upstream answered (not for watches), before the client gets the answer. Returning
 * `drop` closes the client's connection without an answer; a promise holds the request until
 * it settles (a crash trigger kills the driver there).
 */
export type RequestObserver = (request: KubeRequest, phase: 'received' | 'answered', client: number, answer?: UpstreamAnswer) => void | 'drop' | Promise<void | 'drop'>;
