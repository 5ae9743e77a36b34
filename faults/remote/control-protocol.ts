/**
 * The control channel of a fault proxy served on its own (`npm run fault-proxy`): the test that
 * runs a fault schedule reaches the proxy in front of a driver it did not start through a Unix
 * socket, and drives it as it would drive a proxy in its own process — it sees every request of
 * the driver and decides what happens to it, and puts faults in force and heals them.
 *
 * Newline-delimited JSON, one message per line, in order both ways. Plain framing by hand: one
 * local peer, a handful of message types, no need for a protocol library.
 */
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { ProxyFaultSpec, UpstreamAnswer } from '../proxy/proxy-fault.ts';
import type { KubeRequest } from '../request/kube-request.ts';

/** A fault spec on the wire: its matcher without the `target` predicate, which stays with the test. */
export type WireFaultSpec = ProxyFaultSpec;

/** From the proxy to the test. */
export type ProxyMessage =
  /** The session is the test's (sessions take turns): the proxy's address. */
  | { t: 'ready'; url: string }
  /** A request of the driver; the proxy waits for a `verdict` with this `seq` before acting on it. */
  | { t: 'request'; seq: number; request: KubeRequest; phase: 'received' | 'answered'; client: number; answer?: UpstreamAnswer }
  /** A watch stream that was already open when the session began (no verdict). */
  | { t: 'watch'; seq: number; request: KubeRequest; client: number }
  /** Fault `fault` acted once more: on `request`, of `client`, doing `what`. */
  | { t: 'applied'; fault: number; request: KubeRequest; client: number; what: string }
  /** The answer to the test's message `ref`. */
  | { t: 'done'; ref: number; revision?: string }
  | { t: 'error'; ref: number; message: string };

/** From the test to the proxy. */
export type TestMessage =
  /**
   * Puts a fault in force. `targeted`: its matcher has a predicate the test evaluates (objects named
   * by role); it then matches only the requests the test says it does — in each verdict's
   * `targets`, and, among the open watch streams, those in `hits`.
   */
  | { t: 'activate'; ref: number; fault: number; spec: WireFaultSpec; targeted: boolean; hits: number[] }
  | { t: 'heal'; ref: number; fault: number }
  | { t: 'revision'; ref: number }
  /** What happens to request `seq`: `drop` closes the driver's connection; `targets` the targeted faults it matches. */
  | { t: 'verdict'; seq: number; drop: boolean; targets: number[] };

/** Sends one message. */
export function send(socket: Socket, message: ProxyMessage | TestMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onMessage` with each message that arrives on `socket`, in order. */
export function receive<M>(socket: Socket, onMessage: (message: M) => void): void {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  // The socket's own errors (a peer gone) end it; its owner learns from 'close'.
  lines.on('error', () => undefined);
  lines.on('line', (line) => {
    if (line.trim()) onMessage(JSON.parse(line) as M);
  });
}
