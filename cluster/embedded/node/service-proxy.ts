import net from 'node:net';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import { oncePerTurn } from './once-per-turn.ts';

const ENDPOINTS_KEY = 'endpoints';
const ENDPOINTSLICES_KEY = 'endpointslices.discovery.k8s.io';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** How soon a listener that failed to bind (address in use, address not available) is tried again. */
const RETRY_MS = 1000;

export interface Backend {
  ip: string;
  port: number;
}

/** What the proxy serves for one Service port, for tests and diagnostics. */
export interface ProxyListener {
  namespace: string;
  service: string;
  portName: string;
  clusterIP: string;
  port: number;
  backends: Backend[];
  /** False while the address could not be bound (retried every second). */
  listening: boolean;
}

interface ServicePort {
  name?: string;
  port?: number;
  protocol?: string;
}

interface Entry {
  info: ProxyListener;
  server: net.Server;
  next: number;
  /** Settles when the current bind attempt succeeded or failed. */
  bound: Promise<void>;
  state: 'binding' | 'listening' | 'failed';
}

/** What should listen for one Service port. */
type Desired = Omit<ProxyListener, 'listening'>;

/**
 * kube-proxy for the embedded cluster, in user space: every TCP port of every ClusterIP Service
 * (not headless) gets a `net.Server` on `clusterIP:port` while the Service has at least one ready
 * endpoint; without one nothing listens, so a connection is refused as kube-proxy's REJECT rule
 * makes it. Connections are piped to the ready endpoints round-robin; a backend that cannot be
 * reached resets the client connection. Endpoints come from the Service's EndpointSlices
 * (`kubernetes.io/service-name`), or from its Endpoints object when it has no slices (a
 * selector-less Service with hand-written Endpoints). ClusterIPs are in 127.0.0.0/8, which
 * Linux binds without configuration.
 * Removing a listener leaves established connections alone (as conntrack does); stop() cuts them.
 */
export class ServiceProxy {
  private readonly entries = new Map<string, Entry>();
  /** Every proxied connection, client side and backend side. */
  private readonly sockets = new Set<net.Socket>();
  private unsubscribe?: () => void;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Changes are applied on a later turn, once per burst of events. */
  private readonly schedule = oncePerTurn(() => this.sync(), () => this.stopped);

  constructor(private readonly api: ObjectApi) {}

  start(): void {
    if (this.unsubscribe || this.stopped) return;
    this.unsubscribe = this.api.store.subscribe(this.api.store.currentRevision(), (event) => this.observe(event));
    this.sync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const closing = [...this.entries.values()].map((entry) => closeEntry(entry));
    this.entries.clear();
    await Promise.all(closing);
  }

  /** The Service ports served right now. */
  listeners(): ProxyListener[] {
    return [...this.entries.values()].map((e) => ({ ...e.info, backends: e.info.backends.map((b) => ({ ...b })) }));
  }

  private observe(event: StoreEvent): void {
    if (event.resource === 'services' || event.resource === ENDPOINTS_KEY || event.resource === ENDPOINTSLICES_KEY) this.schedule();
  }

  private sync(): void {
    const desired = new Map<string, Desired>();
    for (const svc of this.api.store.list('services')) {
      for (const d of this.desiredFor(svc)) desired.set(`${d.clusterIP}:${d.port}`, d);
    }
    for (const [address, entry] of this.entries) {
      const want = desired.get(address);
      if (!want || want.namespace !== entry.info.namespace || want.service !== entry.info.service) {
        this.entries.delete(address);
        void closeEntry(entry);
      }
    }
    for (const [address, want] of desired) {
      const entry = this.entries.get(address);
      if (entry) {
        entry.info.portName = want.portName;
        entry.info.backends = want.backends;
        if (entry.state === 'failed') this.listen(address, entry);
      } else {
        const created: Entry = {
          info: { ...want, listening: false },
          server: this.createServer(address),
          next: 0,
          bound: Promise.resolve(),
          state: 'failed',
        };
        this.entries.set(address, created);
        this.listen(address, created);
      }
    }
  }

  private desiredFor(svc: KubeObject): Desired[] {
    const spec = (isPlainObject(svc.spec) ? svc.spec : {}) as { type?: string; clusterIP?: string; ports?: ServicePort[] };
    const clusterIP = spec.clusterIP;
    if (spec.type === 'ExternalName' || !clusterIP || clusterIP === 'None' || !net.isIPv4(clusterIP)) return [];
    const namespace = svc.metadata.namespace!;
    const service = svc.metadata.name!;
    const result: Desired[] = [];
    for (const port of spec.ports ?? []) {
      if ((port.protocol ?? 'TCP') !== 'TCP' || typeof port.port !== 'number') continue;
      const portName = port.name ?? '';
      const backends = this.readyBackends(namespace, service, portName);
      if (backends.length) result.push({ namespace, service, portName, clusterIP, port: port.port, backends });
    }
    return result;
  }

  /** Ready endpoints of one Service port: from the EndpointSlices, or the Endpoints object when there are none. */
  private readyBackends(namespace: string, service: string, portName: string): Backend[] {
    const slices = this.api.store
      .list(ENDPOINTSLICES_KEY, namespace)
      .filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === service && s.addressType === 'IPv4');
    const backends: Backend[] = [];
    const seen = new Set<string>();
    const add = (ip: string, port: number) => {
      const key = `${ip}:${port}`;
      if (seen.has(key)) return;
      seen.add(key);
      backends.push({ ip, port });
    };
    if (slices.length) {
      for (const slice of slices) {
        const ports = (Array.isArray(slice.ports) ? slice.ports : []) as ServicePort[];
        const port = ports.find((p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === 'TCP')?.port;
        if (typeof port !== 'number') continue;
        const endpoints = (Array.isArray(slice.endpoints) ? slice.endpoints : []) as { addresses?: string[]; conditions?: { ready?: boolean } }[];
        // An unset `ready` means ready (discovery.k8s.io/v1 semantics).
        for (const e of endpoints) if (e.conditions?.ready !== false && e.addresses?.[0]) add(e.addresses[0], port);
      }
      return backends;
    }
    const endpoints = this.api.store.get(ENDPOINTS_KEY, namespace, service);
    const subsets = (Array.isArray(endpoints?.subsets) ? endpoints.subsets : []) as { addresses?: { ip?: string }[]; ports?: ServicePort[] }[];
    for (const subset of subsets) {
      const port = (subset.ports ?? []).find((p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === 'TCP')?.port;
      if (typeof port !== 'number') continue;
      for (const address of subset.addresses ?? []) if (address.ip) add(address.ip, port);
    }
    return backends;
  }

  private createServer(address: string): net.Server {
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
      const entry = this.entries.get(address);
      if (this.stopped || !entry || entry.server !== server || entry.info.backends.length === 0) {
        client.resetAndDestroy();
        return;
      }
      const backend = entry.info.backends[entry.next++ % entry.info.backends.length];
      this.pipe(client, backend);
    });
    // Bind errors are handled per attempt in listen(); anything later must not take the process down.
    server.on('error', () => {});
    return server;
  }

  private listen(address: string, entry: Entry): void {
    const { server, info } = entry;
    entry.state = 'binding';
    entry.bound = new Promise((settled) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        entry.state = 'failed';
        if (process.env.EMBEDDED_DEBUG) console.error(`[service-proxy] ${info.namespace}/${info.service} ${address}: ${error.message}`);
        if (this.entries.get(address) === entry) this.retryLater();
        settled();
      };
      const onListening = () => {
        server.off('error', onError);
        entry.state = 'listening';
        info.listening = true;
        settled();
      };
      server.once('error', onError);
      server.once('listening', onListening);
    });
    server.listen({ host: info.clusterIP, port: info.port, exclusive: true });
  }

  private retryLater(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) this.sync();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private pipe(client: net.Socket, backend: Backend): void {
    const upstream = net.connect({ host: backend.ip, port: backend.port, allowHalfOpen: true });
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('close', () => this.sockets.delete(client));
    upstream.on('close', () => this.sockets.delete(upstream));
    // A failed or reset backend resets the client; a failed client drops the backend connection.
    upstream.on('error', () => {
      if (!client.destroyed) client.resetAndDestroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.once('connect', () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    // Whichever side closes first without finishing cleanly takes the other with it.
    client.on('close', (hadError) => {
      if (hadError || !client.readableEnded) upstream.destroy();
    });
    upstream.on('close', (hadError) => {
      if ((hadError || !upstream.readableEnded) && !client.destroyed) client.resetAndDestroy();
    });
  }
}

/** Closes a listener, waiting for a bind still in progress first. Open connections are not waited for. */
async function closeEntry(entry: Entry): Promise<void> {
  // Closing a bound server at once frees its address for a listener set up in the same sync.
  if (entry.state === 'binding') await entry.bound;
  const { server } = entry;
  entry.info.listening = false;
  if (!server.listening) return;
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
