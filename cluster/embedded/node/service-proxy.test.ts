import { test, expect } from '@playwright/test';
import http from 'node:http';
import net from 'node:net';
import { EndpointsController } from '../controllers/endpoints-controller.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { ObjectApi } from '../registry/object-api.ts';
import { ServiceProxy } from './service-proxy.ts';
import { bareObjectApi } from '../test-kit.ts';

const NS = 'default';

/** A Pod's server: answers every request with its name; `/hold` never answers. */
class Backend {
  readonly server: http.Server;
  port = 0;
  constructor(
    readonly name: string,
    readonly ip: string,
  ) {
    this.server = http.createServer((req, res) => {
      if (req.url === '/hold') return;
      res.end(name);
    });
  }
  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, this.ip, resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A port free on every address right now, for Service ports (ClusterIPs repeat across parallel workers). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '0.0.0.0', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** GET through the proxy on a fresh connection: the body, or the error code. */
function get(host: string, port: number, path = '/'): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function boot() {
  const api = bareObjectApi(NS);
  const controllers = [new GarbageCollector(api), new EndpointsController(api)];
  const proxy = new ServiceProxy(api);
  proxy.start();
  const pods = api.target('v1', 'pods', NS);
  const services = api.target('v1', 'services', NS);
  const backends: Backend[] = [];

  return {
    api,
    proxy,
    async backend(name: string, ip: string): Promise<Backend> {
      const backend = await new Backend(name, ip).listen();
      backends.push(backend);
      return backend;
    },
    /** A Pod whose container port `http` is the backend's port (so the Service's named targetPort finds it). */
    createPod(backend: Backend, labels: Record<string, string> = { app: 'web' }) {
      api.create(pods, {
        metadata: { name: backend.name, labels },
        spec: { containers: [{ name: 'app', image: 'busybox:1', ports: [{ name: 'http', containerPort: backend.port }] }] },
      });
    },
    /** Plays the kubelet. */
    setReady(backend: Backend, ready: boolean) {
      const pod = api.get(pods, backend.name);
      const status = {
        phase: 'Running',
        podIP: backend.ip,
        podIPs: [{ ip: backend.ip }],
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      };
      api.update(pods, backend.name, { ...pod, status }, { subresource: 'status' });
    },
    async createService(name: string, spec: Record<string, unknown> = {}): Promise<{ ip: string; port: number }> {
      const port = await freePort();
      const svc = api.create(services, {
        metadata: { name },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port, targetPort: 'http' }], ...spec },
      }).object;
      return { ip: (svc.spec as { clusterIP: string }).clusterIP, port };
    },
    async stop() {
      await proxy.stop();
      controllers.forEach((c) => c.stop());
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}

test('a ClusterIP Service answers only while it has a ready endpoint', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    c.createPod(a);
    const svc = await c.createService('web');
    expect(svc.ip).toMatch(/^127\.1\./);

    // Pod not ready yet: nothing listens, the connection is refused.
    expect(await get(svc.ip, svc.port)).toBe('ECONNREFUSED');
    expect(c.proxy.listeners()).toEqual([]);

    c.setReady(a, true);
    await expect.poll(() => get(svc.ip, svc.port)).toBe('a');
    expect(c.proxy.listeners()).toEqual([
      { namespace: NS, service: 'web', portName: 'http', clusterIP: svc.ip, port: svc.port, backends: [{ ip: a.ip, port: a.port }], listening: true },
    ]);

    c.setReady(a, false);
    await expect.poll(() => get(svc.ip, svc.port)).toBe('ECONNREFUSED');

    c.setReady(a, true);
    await expect.poll(() => get(svc.ip, svc.port)).toBe('a');

    // Service gone: listener gone.
    c.api.delete(c.api.target('v1', 'services', NS), 'web');
    await expect.poll(() => get(svc.ip, svc.port)).toBe('ECONNREFUSED');
    expect(c.proxy.listeners()).toEqual([]);
  } finally {
    await c.stop();
  }
});

test('connections are spread round-robin over the ready endpoints', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    const b = await c.backend('b', '127.2.0.2');
    c.createPod(a);
    c.createPod(b);
    c.setReady(a, true);
    c.setReady(b, true);
    const svc = await c.createService('web');
    await expect.poll(() => c.proxy.listeners()[0]?.backends.length ?? 0).toBe(2);

    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await get(svc.ip, svc.port));
    expect(new Set(answers)).toEqual(new Set(['a', 'b']));
    for (let i = 1; i < answers.length; i++) expect(answers[i]).not.toBe(answers[i - 1]);

    // One endpoint turns unready: all traffic goes to the other.
    c.setReady(a, false);
    await expect.poll(() => c.proxy.listeners()[0]?.backends.map((x) => x.ip)).toEqual([b.ip]);
    expect([await get(svc.ip, svc.port), await get(svc.ip, svc.port)]).toEqual(['b', 'b']);
  } finally {
    await c.stop();
  }
});

test('a backend that refuses resets the client connection', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    c.createPod(a);
    c.setReady(a, true);
    const svc = await c.createService('web');
    await expect.poll(() => get(svc.ip, svc.port)).toBe('a');
    // The process died but the Pod still reads ready (the kubelet has not noticed yet).
    await a.close();
    expect(await get(svc.ip, svc.port)).toBe('ECONNRESET');
  } finally {
    await c.stop();
  }
});

test('headless Services get no listener', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    c.createPod(a);
    c.setReady(a, true);
    const port = await freePort();
    c.api.create(c.api.target('v1', 'services', NS), {
      metadata: { name: 'peers' },
      spec: { clusterIP: 'None', selector: { app: 'web' }, ports: [{ name: 'http', port, targetPort: 'http' }] },
    });
    // The endpoint is ready (so the missing listener is down to headlessness) ...
    await expect
      .poll(() => (c.api.store.get('endpoints', NS, 'peers')?.subsets as { addresses?: unknown[] }[] | undefined)?.[0]?.addresses?.length)
      .toBe(1);
    // ... and a ClusterIP Service created after it is served, so the proxy has looked.
    const svc = await c.createService('web');
    await expect.poll(() => get(svc.ip, svc.port)).toBe('a');
    expect(c.proxy.listeners().map((l) => l.service)).toEqual(['web']);
  } finally {
    await c.stop();
  }
});

test('a Service without selector is served from hand-written Endpoints', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    const port = await freePort();
    const svc = c.api.create(c.api.target('v1', 'services', NS), { metadata: { name: 'external' }, spec: { ports: [{ name: 'http', port }] } }).object;
    const ip = (svc.spec as { clusterIP: string }).clusterIP;
    expect(await get(ip, port)).toBe('ECONNREFUSED');
    c.api.create(c.api.target('v1', 'endpoints', NS), {
      metadata: { name: 'external' },
      subsets: [{ addresses: [{ ip: a.ip }], ports: [{ name: 'http', port: a.port, protocol: 'TCP' }] }],
    });
    await expect.poll(() => get(ip, port)).toBe('a');
  } finally {
    await c.stop();
  }
});

test('stop() closes the listeners and cuts open connections', async () => {
  const c = boot();
  try {
    const a = await c.backend('a', '127.2.0.1');
    c.createPod(a);
    c.setReady(a, true);
    const svc = await c.createService('web');
    await expect.poll(() => get(svc.ip, svc.port)).toBe('a');

    // A request the backend never answers keeps a proxied connection open.
    const held = get(svc.ip, svc.port, '/hold');
    await expect.poll(() => countConnections(a.server)).toBe(1);

    await c.proxy.stop();
    expect(await held).toBe('ECONNRESET');
    expect(await get(svc.ip, svc.port)).toBe('ECONNREFUSED');
    expect(c.proxy.listeners()).toEqual([]);
    // A later change starts nothing.
    c.setReady(a, false);
    c.setReady(a, true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await get(svc.ip, svc.port)).toBe('ECONNREFUSED');
  } finally {
    await c.stop();
  }
});

function countConnections(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((_error, count) => resolve(count)));
}
