/**
 * A fault proxy in another process, driven from the test through its control socket
 * (control-server.ts): the same ProxyControl a schedule run drives a proxy in its own process
 * through, so a driver someone else started (`--driver external=`), pointed at a proxy served
 * with `npm run fault-proxy`, meets the same faults at the same triggers.
 */
import { connect, type Socket } from 'node:net';
import type { ProxyControl } from '../engine/schedule-run.ts';
import type { ActiveFault, AppliedListener, ProxyFaultSpec, RequestObserver } from '../proxy/proxy-fault.ts';
import type { KubeRequest } from '../request/kube-request.ts';
import { receive, send, type ProxyMessage } from './control-protocol.ts';

/** How long the test waits for its turn at the proxy (another test's session ends first) and for each answer. */
const CONTROL_DEADLINE_MS = 60_000;

interface RemoteFault {
  spec: ProxyFaultSpec;
  target?: (request: KubeRequest) => boolean;
  onApplied?: AppliedListener;
  applied: number;
}

export class RemoteFaultProxy implements ProxyControl {
  private readonly observers = new Set<RequestObserver>();
  private readonly faults = new Map<number, RemoteFault>();
  private readonly answers = new Map<number, { resolve: (m: ProxyMessage & { t: 'done' }) => void; reject: (e: Error) => void }>();
  /** The watch streams the session knows of, by seq: a targeted fault's predicate is tried on them when it is switched on. */
  private readonly watches = new Map<number, KubeRequest>();
  private nextRef = 1;
  private nextFault = 1;
  private closedWith?: Error;

  private constructor(
    private readonly socket: Socket,
    readonly url: string,
    readonly control: string,
  ) {}

  /** Opens a session at the proxy whose control socket is `control`; resolves once it is this test's turn. */
  static async connect(control: string, deadlineMs = CONTROL_DEADLINE_MS): Promise<RemoteFaultProxy> {
    const socket = connect(control);
    const stage = `the fault proxy's control socket ${control}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`${stage}: no session within ${deadlineMs / 1000} s (is another test's session stuck?)`));
      }, deadlineMs);
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(`${stage}: cannot connect (${error.code ?? error.message}); is \`npm run fault-proxy -- --control ${control} …\` running?`));
      });
      let proxy: RemoteFaultProxy | undefined;
      const early: ProxyMessage[] = [];
      receive<ProxyMessage>(socket, (message) => {
        if (proxy) return proxy.onMessage(message);
        if (message.t !== 'ready') return void early.push(message);
        clearTimeout(timer);
        proxy = new RemoteFaultProxy(socket, message.url, control);
        socket.on('error', () => undefined);
        socket.once('close', () => proxy!.lost(new Error(`${stage}: the proxy ended the session`)));
        for (const m of early) proxy.onMessage(m);
        resolve(proxy);
      });
    });
  }

  activate(spec: ProxyFaultSpec, onApplied?: AppliedListener): ActiveFault {
    const id = this.nextFault++;
    const { target, ...match } = spec.match;
    const fault: RemoteFault = { spec, target, onApplied, applied: 0 };
    this.faults.set(id, fault);
    const hits = target ? [...this.watches].filter(([, request]) => target(request)).map(([seq]) => seq) : [];
    const activated = this.ask({ t: 'activate', ref: 0, fault: id, spec: { ...spec, match } as ProxyFaultSpec, targeted: !!target, hits });
    // A failure to switch it on is told when it is healed (every fault is, by the end of the fault phase).
    activated.catch(() => undefined);
    return {
      spec,
      get applied() {
        return fault.applied;
      },
      heal: async () => {
        this.faults.delete(id);
        await activated;
        if (!this.closedWith) await this.ask({ t: 'heal', ref: 0, fault: id });
      },
    };
  }

  observe(observer: RequestObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  async revision(): Promise<string> {
    const answer = await this.ask({ t: 'revision', ref: 0 });
    if (!answer.revision) throw new Error(`the fault proxy at ${this.control} gave no revision`);
    return answer.revision;
  }

  /** Ends the session: the proxy heals whatever it still holds in force for it. */
  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }

  private ask(message: Extract<Parameters<typeof send>[1], { ref: number }>): Promise<ProxyMessage & { t: 'done' }> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const ref = this.nextRef++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.answers.delete(ref);
        reject(new Error(`the fault proxy at ${this.control} did not answer "${message.t}" within ${CONTROL_DEADLINE_MS / 1000} s`));
      }, CONTROL_DEADLINE_MS);
      this.answers.set(ref, {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      send(this.socket, { ...message, ref });
    });
  }

  private onMessage(message: ProxyMessage): void {
    switch (message.t) {
      case 'request':
        if (message.request.verb === 'watch' && message.phase === 'received') this.watches.set(message.seq, message.request);
        void this.decide(message);
        return;
      case 'watch':
        this.watches.set(message.seq, message.request);
        return;
      case 'applied': {
        const fault = this.faults.get(message.fault);
        if (!fault) return;
        fault.applied++;
        fault.onApplied?.(message.request, message.client, message.what);
        return;
      }
      case 'done':
      case 'error': {
        const waiting = this.answers.get(message.ref);
        this.answers.delete(message.ref);
        if (message.t === 'done') waiting?.resolve(message);
        else waiting?.reject(new Error(`the fault proxy at ${this.control}: ${message.message}`));
        return;
      }
      case 'ready':
        return;
    }
  }

  /** The observers' verdict on one request, and which targeted faults match it (tried after the observers, who may have switched one on). */
  private async decide(message: ProxyMessage & { t: 'request' }): Promise<void> {
    let drop = false;
    for (const observer of [...this.observers]) {
      try {
        if ((await observer(message.request, message.phase, message.client, message.answer)) === 'drop') drop = true;
      } catch {
        // An observer's failure is its own to report; the request goes on.
      }
    }
    const targets = [...this.faults].filter(([, f]) => f.target?.(message.request)).map(([id]) => id);
    send(this.socket, { t: 'verdict', seq: message.seq, drop, targets });
  }

  private lost(error: Error): void {
    this.closedWith = error;
    for (const waiting of this.answers.values()) waiting.reject(error);
    this.answers.clear();
  }
}
