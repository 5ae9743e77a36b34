import { test, expect } from '@playwright/test';
import { ObjectApi } from '../registry/object-api.ts';
import type { KubeObject } from '../types.ts';
import { bareObjectApi } from '../test-kit.ts';
import { EndpointsController } from './endpoints-controller.ts';
import { GarbageCollector } from './garbage-collector.ts';

const NS = 'default';
const SLICE_NAME = /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

/** The object API and the two controllers involved, without the HTTPS server around them. */
function boot() {
  const api = bareObjectApi(NS);
  const controllers = [new GarbageCollector(api), new EndpointsController(api)];
  const pods = api.target('v1', 'pods', NS);
  const services = api.target('v1', 'services', NS);
  const endpoints = api.target('v1', 'endpoints', NS);
  const slicesTarget = api.target('discovery.k8s.io/v1', 'endpointslices', NS);

  return {
    api,
    stop: () => controllers.forEach((c) => c.stop()),
    createPod(name: string, labels: Record<string, string>, httpPort?: number) {
      const ports = httpPort ? [{ name: 'http', containerPort: httpPort }] : [];
      return api.create(pods, { metadata: { name, labels }, spec: { containers: [{ name: 'app', image: 'busybox:1', ports }] } }).object;
    },
    /** Plays the kubelet: phase Running with an IP, Ready as given. */
    setStatus(name: string, ip: string | undefined, ready: boolean) {
      const pod = api.get(pods, name);
      const status = {
        phase: ip ? 'Running' : 'Pending',
        ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      };
      return api.update(pods, name, { ...pod, status }, { subresource: 'status' }).object;
    },
    bind: (name: string) => api.bind(pods, name, 'node-1'),
    deletePod: (name: string) => api.delete(pods, name),
    createService: (body: Record<string, unknown>) => api.create(services, body).object,
    deleteService: (name: string) => api.delete(services, name),
    getEndpoints: (name: string): KubeObject | undefined => api.store.get('endpoints', NS, name),
    slices: (service: string): KubeObject[] =>
      api.list(slicesTarget, { labelSelector: `kubernetes.io/service-name=${service}` }).items,
    updateEndpoints: (name: string, body: KubeObject) => api.update(endpoints, name, body),
  };
}

type Cluster = ReturnType<typeof boot>;

/** A turn of the event loop after the controller's queued reconcile. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const ref = (pod: KubeObject) => ({ kind: 'Pod', namespace: NS, name: pod.metadata.name, uid: pod.metadata.uid });

function webService(c: Cluster): KubeObject {
  return c.createService({
    metadata: { name: 'web', labels: { tier: 'front' } },
    spec: {
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, targetPort: 'http' },
        { name: 'metrics', port: 9100, targetPort: 9100 },
      ],
    },
  });
}

function sliceSummary(slice: KubeObject) {
  return {
    ports: slice.ports,
    endpoints: ((slice.endpoints ?? []) as { addresses: string[]; conditions: unknown; targetRef: { name: string } }[]).map((e) => ({
      ip: e.addresses[0],
      pod: e.targetRef.name,
      conditions: e.conditions,
    })),
  };
}

test('Endpoints and EndpointSlices: ready vs not ready, named targetPort per Pod, terminating and unready Pods', async () => {
  const c = boot();
  try {
    const svc = webService(c);
    const a = c.createPod('a', { app: 'web' }, 8080);
    const b = c.createPod('b', { app: 'web' }, 8080);
    const d = c.createPod('d', { app: 'web' }, 9090);
    c.createPod('no-ip', { app: 'web' }, 8080);
    c.createPod('other', { app: 'db' }, 8080);
    c.createPod('terminating', { app: 'web' }, 8080);
    c.setStatus('a', '127.2.0.1', true);
    c.setStatus('b', '127.2.0.2', false);
    c.setStatus('d', '127.2.0.4', true);
    c.setStatus('no-ip', undefined, false);
    c.setStatus('other', '127.2.0.9', true);
    c.bind('terminating');
    c.setStatus('terminating', '127.2.0.5', true);
    // Bound to a node, so deletion is graceful: the Pod stays with a deletionTimestamp.
    expect(c.deletePod('terminating').removed).toBe(false);

    const ports8080 = [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9100, protocol: 'TCP' },
    ];
    const ports9090 = [
      { name: 'http', port: 9090, protocol: 'TCP' },
      { name: 'metrics', port: 9100, protocol: 'TCP' },
    ];
    await expect.poll(() => c.getEndpoints('web')?.subsets).toEqual([
      {
        addresses: [{ ip: '127.2.0.1', targetRef: ref(a) }],
        notReadyAddresses: [{ ip: '127.2.0.2', targetRef: ref(b) }],
        ports: ports8080,
      },
      { addresses: [{ ip: '127.2.0.4', targetRef: ref(d) }], ports: ports9090 },
    ]);
    const ep = c.getEndpoints('web')!;
    const owner = { apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true };
    expect(ep.metadata.ownerReferences).toEqual([owner]);
    expect(ep.metadata.labels).toEqual({ tier: 'front' });

    // Two port sets (the named targetPort resolves differently per Pod): two slices, as upstream.
    await expect.poll(() => c.slices('web').length).toBe(2);
    const slices = c.slices('web');
    for (const slice of slices) {
      expect(slice.metadata.name).toMatch(SLICE_NAME);
      expect(slice.addressType).toBe('IPv4');
      expect(slice.metadata.labels).toEqual({
        tier: 'front',
        'kubernetes.io/service-name': 'web',
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      });
      expect(slice.metadata.ownerReferences).toEqual([owner]);
    }
    const summaries = slices.map(sliceSummary).sort((x, y) => x.endpoints.length - y.endpoints.length);
    expect(summaries).toEqual([
      {
        ports: ports9090,
        endpoints: [{ ip: '127.2.0.4', pod: 'd', conditions: { ready: true, serving: true, terminating: false } }],
      },
      {
        ports: ports8080,
        endpoints: [
          { ip: '127.2.0.1', pod: 'a', conditions: { ready: true, serving: true, terminating: false } },
          { ip: '127.2.0.2', pod: 'b', conditions: { ready: false, serving: false, terminating: false } },
          // Terminating: never ready; serving follows its Ready condition (upstream EndpointSlice semantics).
          { ip: '127.2.0.5', pod: 'terminating', conditions: { ready: false, serving: true, terminating: true } },
        ],
      },
    ]);
    const endpoint = (slices.find((s) => (s.endpoints as unknown[]).length === 1)!.endpoints as Record<string, unknown>[])[0];
    expect(endpoint.targetRef).toEqual(ref(d));
    // The terminating Pod appears nowhere in Endpoints.
    expect(JSON.stringify(c.getEndpoints('web'))).not.toContain('127.2.0.5');
  } finally {
    c.stop();
  }
});

test('follows Pods: unready, ready again, deleted; writes only on change; slice names stay', async () => {
  const c = boot();
  try {
    webService(c);
    for (const [name, ip] of [['a', '127.2.0.1'], ['b', '127.2.0.2']] as const) {
      c.createPod(name, { app: 'web' }, 8080);
      c.setStatus(name, ip, true);
    }
    const ready = () => ((c.getEndpoints('web')?.subsets as { addresses?: { ip: string }[] }[] | undefined)?.[0]?.addresses ?? []).map((x) => x.ip);
    const notReady = () =>
      ((c.getEndpoints('web')?.subsets as { notReadyAddresses?: { ip: string }[] }[] | undefined)?.[0]?.notReadyAddresses ?? []).map((x) => x.ip);
    await expect.poll(ready).toEqual(['127.2.0.1', '127.2.0.2']);
    await expect.poll(() => c.slices('web').length).toBe(1);
    const sliceName = c.slices('web')[0].metadata.name;

    let endpointWrites = 0;
    let sliceWrites = 0;
    c.api.store.subscribe(c.api.store.currentRevision(), (event) => {
      if (event.resource === 'endpoints') endpointWrites++;
      if (event.resource === 'endpointslices.discovery.k8s.io') sliceWrites++;
    });

    // A change that does not matter to endpoints causes no write.
    const pods = c.api.target('v1', 'pods', NS);
    c.api.patch(pods, 'a', 'merge', { metadata: { annotations: { note: 'irrelevant' } } });
    await settle();
    await settle();
    expect({ endpointWrites, sliceWrites }).toEqual({ endpointWrites: 0, sliceWrites: 0 });

    c.setStatus('b', '127.2.0.2', false);
    await expect.poll(notReady).toEqual(['127.2.0.2']);
    expect(ready()).toEqual(['127.2.0.1']);
    await expect
      .poll(() => sliceSummary(c.slices('web')[0]).endpoints.map((e) => e.conditions))
      .toEqual([
        { ready: true, serving: true, terminating: false },
        { ready: false, serving: false, terminating: false },
      ]);
    expect({ endpointWrites, sliceWrites }).toEqual({ endpointWrites: 1, sliceWrites: 1 });

    c.setStatus('b', '127.2.0.2', true);
    await expect.poll(ready).toEqual(['127.2.0.1', '127.2.0.2']);

    c.deletePod('a');
    await expect.poll(ready).toEqual(['127.2.0.2']);
    await expect.poll(() => sliceSummary(c.slices('web')[0]).endpoints.map((e) => e.pod)).toEqual(['b']);

    c.deletePod('b');
    // No Pods: Endpoints without subsets and an empty placeholder slice, still the same one.
    await expect.poll(() => c.getEndpoints('web')?.subsets ?? 'none').toBe('none');
    await expect.poll(() => c.slices('web').map((s) => [s.metadata.name, s.endpoints])).toEqual([[sliceName, []]]);
  } finally {
    c.stop();
  }
});

test('Endpoints and EndpointSlices go with their Service; a removed Endpoints object comes back', async () => {
  const c = boot();
  try {
    webService(c);
    c.createPod('a', { app: 'web' }, 8080);
    c.setStatus('a', '127.2.0.1', true);
    await expect.poll(() => c.getEndpoints('web')?.subsets).toBeTruthy();
    await expect.poll(() => c.slices('web').length).toBe(1);

    // Someone deletes the Endpoints (or edits them): the controller restores them.
    c.api.delete(c.api.target('v1', 'endpoints', NS), 'web');
    await expect.poll(() => c.getEndpoints('web')?.subsets).toBeTruthy();
    c.updateEndpoints('web', { ...c.getEndpoints('web')!, subsets: [] });
    await expect.poll(() => (c.getEndpoints('web')?.subsets as unknown[] | undefined)?.length).toBe(1);

    c.deleteService('web');
    await expect.poll(() => c.getEndpoints('web')).toBeUndefined();
    await expect.poll(() => c.slices('web').length).toBe(0);
    // The Pod stays; nothing is recreated.
    await settle();
    expect(c.getEndpoints('web')).toBeUndefined();
  } finally {
    c.stop();
  }
});

test('headless and selector-less Services', async () => {
  const c = boot();
  try {
    c.createService({ metadata: { name: 'peers' }, spec: { clusterIP: 'None', selector: { app: 'db' } } });
    c.createService({ metadata: { name: 'external' }, spec: { ports: [{ port: 5432 }] } });
    const pod = c.createPod('db-0', { app: 'db' });
    c.setStatus('db-0', '127.2.0.7', true);

    // A headless Service without ports still lists its Pods (no ports); both objects say headless.
    await expect.poll(() => c.getEndpoints('peers')?.subsets).toEqual([{ addresses: [{ ip: '127.2.0.7', targetRef: ref(pod) }] }]);
    expect(c.getEndpoints('peers')!.metadata.labels).toEqual({ 'service.kubernetes.io/headless': '' });
    await expect.poll(() => c.slices('peers').map(sliceSummary)).toEqual([
      { ports: [], endpoints: [{ ip: '127.2.0.7', pod: 'db-0', conditions: { ready: true, serving: true, terminating: false } }] },
    ]);
    expect(c.slices('peers')[0].metadata.labels?.['service.kubernetes.io/headless']).toBe('');

    // Without a selector the Endpoints are the user's: none are made.
    await settle();
    expect(c.getEndpoints('external')).toBeUndefined();
    expect(c.slices('external')).toEqual([]);
  } finally {
    c.stop();
  }
});
