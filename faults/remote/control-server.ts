/**
 * Serves a fault proxy's control channel on a Unix socket (control-protocol.ts): each connection
 * is one test's session, and sessions take turns — a schedule's faults act on every request of
 * the driver, so two tests' schedules at once would each see the other's faults. A session that
 * ends (its test finished, or its worker died) leaves nothing in force.
 */
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { FaultProxy } from '../proxy/fault-proxy.ts';
import type { ActiveFault, UpstreamAnswer } from '../proxy/proxy-fault.ts';
import type { KubeRequest } from '../request/kube-request.ts';
import { receive, send, type TestMessage } from './control-protocol.ts';

/**
 * How long a request of the driver waits for the test's verdict before it goes on as if there
 * were none: a test that stopped answering must not hold the driver forever.
 */
const VERDICT_DEADLINE_MS = 60_000;

export class ControlServer {
  private turn: Promise<void> = Promise.resolve();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly socketPath: string,
  ) {}

  /** Listens on `socketPath` (mode 0600: whoever holds it controls what the driver sees). */
  static async serve(proxy: FaultProxy, socketPath: string, log: (line: string) => void = () => undefined): Promise<ControlServer> {
    const server = createServer();
    const control = new ControlServer(server, socketPath);
    server.on('connection', (socket) => {
      control.sockets.add(socket);
      socket.once('close', () => control.sockets.delete(socket));
      socket.on('error', () => undefined);
      // Known from the start: a connection that ends while it waits for its turn must not hold up the next.
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const previous = control.turn;
      const session = previous.then(() => (socket.destroyed ? undefined : new ProxySession(proxy, socket, closed, log).run()));
      control.turn = session.catch(() => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    chmodSync(socketPath, 0o600);
    return control;
  }

  /** Ends every session (their faults heal) and stops listening; the socket file is removed. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    await this.turn;
    rmSync(this.socketPath, { force: true });
  }
}

interface SessionFault {
  active?: ActiveFault;
  /** The requests a targeted fault matches, as the test said. */
  hits?: WeakSet<KubeRequest>;
}

/** One test's session: the proxy's requests relayed to it for a verdict, its faults put in force and healed. */
class ProxySession {
  private nextSeq = 1;
  private readonly seqOf = new WeakMap<KubeRequest, number>();
  private readonly pending = new Map<number, { request: KubeRequest; decide: (verdict: 'drop' | undefined) => void }>();
  private readonly faults = new Map<number, SessionFault>();

  constructor(
    private readonly proxy: FaultProxy,
    private readonly socket: Socket,
    private readonly closed: Promise<void>,
    private readonly log: (line: string) => void,
  ) {}

  async run(): Promise<void> {
    const stopObserving = this.proxy.observe((request, phase, client, answer) => this.ask(request, phase, client, answer));
    this.log('session opened');
    send(this.socket, { t: 'ready', url: this.proxy.url });
    for (const { request, client } of this.proxy.openWatches()) send(this.socket, { t: 'watch', seq: this.seq(request), request, client });
    receive<TestMessage>(this.socket, (message) => void this.handle(message).catch((error: unknown) => this.socket.destroy(error as Error)));
    await this.closed;
    stopObserving();
    for (const { decide } of this.pending.values()) decide(undefined);
    this.pending.clear();
    for (const fault of this.faults.values()) await fault.active?.heal();
    this.faults.clear();
    this.log('session closed; its faults healed');
  }

  private seq(request: KubeRequest): number {
    let seq = this.seqOf.get(request);
    if (seq === undefined) this.seqOf.set(request, (seq = this.nextSeq++));
    return seq;
  }

  private ask(request: KubeRequest, phase: 'received' | 'answered', client: number, answer?: UpstreamAnswer): Promise<'drop' | undefined> {
    if (this.socket.destroyed) return Promise.resolve(undefined);
    const seq = this.seq(request);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        this.log(`no verdict on ${request.verb} ${request.resource} within ${VERDICT_DEADLINE_MS / 1000} s: let through`);
        resolve(undefined);
      }, VERDICT_DEADLINE_MS);
      this.pending.set(seq, {
        request,
        decide: (verdict) => {
          clearTimeout(timer);
          resolve(verdict);
        },
      });
      send(this.socket, { t: 'request', seq, request, phase, client, ...(answer && { answer }) });
    });
  }

  private async handle(message: TestMessage): Promise<void> {
    switch (message.t) {
      case 'verdict': {
        const waiting = this.pending.get(message.seq);
        if (!waiting) return;
        this.pending.delete(message.seq);
        for (const id of message.targets) this.faults.get(id)?.hits?.add(waiting.request);
        return waiting.decide(message.drop ? 'drop' : undefined);
      }
      case 'activate': {
        const fault: SessionFault = {};
        let spec = message.spec;
        if (message.targeted) {
          const hits = new WeakSet<KubeRequest>();
          const named = new Set(message.hits);
          const candidates = [...this.proxy.openWatches().map((w) => w.request), ...[...this.pending.values()].map((p) => p.request)];
          for (const request of candidates) if (named.has(this.seqOf.get(request) ?? -1)) hits.add(request);
          fault.hits = hits;
          spec = { ...spec, match: { ...spec.match, target: (request) => hits.has(request) } };
        }
        this.faults.set(message.fault, fault);
        try {
          fault.active = this.proxy.activate(spec, (request, client, what) =>
            send(this.socket, { t: 'applied', fault: message.fault, request, client, what }),
          );
        } catch (error) {
          this.faults.delete(message.fault);
          return send(this.socket, { t: 'error', ref: message.ref, message: (error as Error).message });
        }
        return send(this.socket, { t: 'done', ref: message.ref });
      }
      case 'heal': {
        const fault = this.faults.get(message.fault);
        this.faults.delete(message.fault);
        await fault?.active?.heal();
        return send(this.socket, { t: 'done', ref: message.ref });
      }
      case 'revision':
        try {
          return send(this.socket, { t: 'done', ref: message.ref, revision: await this.proxy.revision() });
        } catch (error) {
          return send(this.socket, { t: 'error', ref: message.ref, message: (error as Error).message });
        }
    }
  }
}
