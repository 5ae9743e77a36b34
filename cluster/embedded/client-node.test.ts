/**
 * The real @kubernetes/client-node (1.4.0) against the embedded cluster: typed APIs, the generic
 * KubernetesObjectApi, custom objects, every patch content type, deletion semantics, watches,
 * informers, fault injection and exec, all through the library's own HTTP and WebSocket code.
 */
import { request as httpsRequest } from 'node:https';
import { PassThrough } from 'node:stream';
import { test, expect } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { EmbeddedCluster } from './cluster.ts';

// ---------------------------------------------------------------------------------------------
// helpers

type Status = { kind?: string; status?: string; code?: number; reason?: string; message?: string; details?: Record<string, unknown> };

/** Awaits a call that must fail with an ApiException; returns its code and the decoded Status body. */
async function failure(call: Promise<unknown>): Promise<{ code: number; status: Status }> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    if (!(error instanceof k8s.ApiException)) throw error;
    const body = (error as k8s.ApiException<unknown>).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as Status;
    return { code: (error as k8s.ApiException<unknown>).code, status };
  }
  throw new Error(`expected the call to fail, it returned ${JSON.stringify(result)}`);
}

/** A 404 from a read means gone; anything else is returned as the object. */
async function readOrGone<T>(read: () => Promise<T>): Promise<T | 'gone'> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof k8s.ApiException && (error as k8s.ApiException<unknown>).code === 404) return 'gone';
    throw error;
  }
}

interface WatchEvent {
  type: string;
  object: { kind?: string; code?: number; reason?: string; message?: string; metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown }; [k: string]: unknown };
}

/** A running client-node Watch collecting its events; `stop()` aborts it and waits for `done`. */
interface RunningWatch {
  events: WatchEvent[];
  /** Resolves with the error given to `done` (null for a clean end of stream). */
  done: Promise<unknown>;
  ended(): boolean;
  stop(): Promise<void>;
}

async function startWatch(kc: k8s.KubeConfig, path: string, params: Record<string, string | number | boolean | undefined>): Promise<RunningWatch> {
  const events: WatchEvent[] = [];
  let ended = false;
  let resolveDone!: (err: unknown) => void;
  const done = new Promise<unknown>((resolve) => (resolveDone = resolve));
  const controller = await new k8s.Watch(kc).watch(
    path,
    params,
    (type, object) => events.push({ type, object }),
    (err) => {
      ended = true;
      resolveDone(err);
    },
  );
  return {
    events,
    done,
    ended: () => ended,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

function rv(object: { metadata?: { resourceVersion?: string } } | undefined): number {
  return Number(object?.metadata?.resourceVersion);
}

/** The embedded admin API for faults, over HTTPS with the cluster's CA and bearer token. */
function admin(cluster: EmbeddedCluster, method: string, path: string, body?: unknown): Promise<{ code: number; body: unknown }> {
  const url = new URL(path, cluster.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method,
        ca: cluster.certificateAuthority,
        agent: false,
        headers: {
          Authorization: `Bearer ${cluster.token}`,
          ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ code: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
const strategicPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
const applyPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

function podBody(name: string, extra: Partial<k8s.V1PodSpec> = {}, labels?: Record<string, string>): k8s.V1Pod {
  return {
    metadata: { name, labels },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...extra },
  };
}

// A small CRD with a status subresource, installed once per worker's cluster.
const GROUP = 'clienttest.example.com';
const CRD_NAME = `widgets.${GROUP}`;
const widgetCrd: k8s.V1CustomResourceDefinition = {
  metadata: { name: CRD_NAME },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' }, observedGeneration: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------
// one cluster shared by the tests of a worker; every test works in its own namespace

let cluster: EmbeddedCluster;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let custom: k8s.CustomObjectsApi;
let objects: k8s.KubernetesObjectApi;
let extensions: k8s.ApiextensionsV1Api;
let nsCounter = 0;

test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start();
  kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
});

test.afterAll(async () => {
  await cluster?.stop();
});

async function namespace(prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${++nsCounter}`;
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}

async function installWidgetCrd(): Promise<void> {
  const existing = await readOrGone(() => extensions.readCustomResourceDefinition({ name: CRD_NAME }));
  if (existing === 'gone') await extensions.createCustomResourceDefinition({ body: widgetCrd });
  await expect
    .poll(async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: CRD_NAME });
      return crd.status?.conditions?.find((c) => c.type === 'Established')?.status;
    })
    .toBe('True');
}

// ---------------------------------------------------------------------------------------------

test.describe('typed APIs: create, read, list', () => {
  test('CoreV1Api create/read round-trips and fills server fields', async () => {
    const ns = await namespace('crud');
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm', labels: { app: 'x' } }, data: { a: '1' } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toBeTruthy();
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.metadata?.namespace).toBe(ns);
    const read = await core.readNamespacedConfigMap({ name: 'cm', namespace: ns });
    expect(read.data).toEqual({ a: '1' });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const again = await failure(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' } } }));
    expect(again.code).toBe(409);
    expect(again.status.reason).toBe('AlreadyExists');
    const missing = await failure(core.readNamespacedConfigMap({ name: 'nope', namespace: ns }));
    expect(missing.code).toBe(404);
    expect(missing.status.reason).toBe('NotFound');
  });

  test('list with labelSelector and fieldSelector, namespaced and across namespaces', async () => {
    const ns = await namespace('sel');
    const other = await namespace('sel-other');
    for (const [name, tier] of [['web-1', 'web'], ['web-2', 'web'], ['db-1', 'db'], ['plain', undefined]] as const) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: tier ? { tier } : undefined } } });
    }
    await core.createNamespacedConfigMap({ namespace: other, body: { metadata: { name: 'web-9', labels: { tier: 'web' } } } });
    const names = (list: k8s.V1ConfigMapList) => list.items.map((i) => i.metadata!.name).sort();

    expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier=web' }))).toEqual(['web-1', 'web-2']);
    expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier in (web,db)' }))).toEqual(['db-1', 'web-1', 'web-2']);
    expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: '!tier' }))).toEqual(['plain']);
    expect(names(await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier!=web' }))).toEqual(['db-1', 'plain']);
    expect(names(await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=db-1' }))).toEqual(['db-1']);
    expect(names(await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name!=db-1', labelSelector: 'tier' }))).toEqual(['web-1', 'web-2']);

    const everywhere = await core.listConfigMapForAllNamespaces({ labelSelector: 'tier=web' });
    const mine = everywhere.items.filter((i) => i.metadata!.namespace === ns || i.metadata!.namespace === other);
    expect(mine.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`).sort()).toEqual([`${ns}/web-1`, `${ns}/web-2`, `${other}/web-9`]);
    const byNamespace = await core.listConfigMapForAllNamespaces({ fieldSelector: `metadata.namespace=${other}` });
    expect(byNamespace.items.map((i) => i.metadata!.name)).toContain('web-9');
    expect(byNamespace.items.every((i) => i.metadata!.namespace === other)).toBe(true);

    // Pods: the pod-specific field selectors.
    await core.createNamespacedPod({ namespace: ns, body: podBody('p1') });
    const pending = await core.listNamespacedPod({ namespace: ns, fieldSelector: 'status.phase=Pending,spec.nodeName=' });
    expect(pending.items.map((p) => p.metadata!.name)).toEqual(['p1']);
    const bad = await failure(core.listNamespacedPod({ namespace: ns, fieldSelector: 'spec.bogus=1' }));
    expect(bad.code).toBe(400);
  });

  test('limit + continue pagination: every object once, remainingItemCount, a consistent snapshot', async () => {
    const ns = await namespace('page');
    for (let i = 0; i < 25; i++) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${String(i).padStart(2, '0')}` } } });
    }
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    let pages = 0;
    let listRv: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, limit: 10, _continue: token });
      pages++;
      seen.push(...page.items.map((i) => i.metadata!.name!));
      remaining.push(page.metadata?.remainingItemCount);
      token = page.metadata?._continue || undefined;
      listRv ??= page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(listRv);
      // Writes between pages do not show up in the pages still to come.
      if (pages === 1) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm-99-late' } } });
    } while (token);
    expect(pages).toBe(3);
    expect(remaining).toEqual([15, 5, undefined]);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen).not.toContain('cm-99-late');
    const bad = await failure(core.listNamespacedConfigMap({ namespace: ns, limit: 10, _continue: 'not-a-token' }));
    expect(bad.code).toBe(400);
  });

  test('generateName gives distinct server-chosen names', async () => {
    const ns = await namespace('gen');
    const a = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'job-' } } });
    const b = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'job-' } } });
    expect(a.metadata?.name).toMatch(/^job-[a-z0-9]{5}$/);
    expect(b.metadata?.name).toMatch(/^job-[a-z0-9]{5}$/);
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
    expect(a.metadata?.generateName).toBe('job-');
  });

  test('AppsV1Api: Deployment create, read, list, scale subresource', async () => {
    const ns = await namespace('apps');
    const deployment: k8s.V1Deployment = {
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
      },
    };
    const created = await apps.createNamespacedDeployment({ namespace: ns, body: deployment });
    expect(created.metadata?.generation).toBe(1);
    const list = await apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app=web' });
    expect(list.items.map((d) => d.metadata!.name)).toEqual(['web']);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: ns });
    expect(scale.spec?.replicas).toBe(2);
    await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: ns, body: { spec: { replicas: 5 } } }, mergePatch);
    const read = await apps.readNamespacedDeployment({ name: 'web', namespace: ns });
    expect(read.spec?.replicas).toBe(5);
    expect(read.metadata?.generation).toBe(2);
  });
  test('deleteCollection by label selector; dryRun=All writes nothing', async () => {
    const ns = await namespace('coll');
    for (const name of ['a', 'b', 'c']) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: { batch: name === 'c' ? 'keep' : 'drop' } } } });
    }
    await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'batch=drop' });
    expect((await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata!.name)).toEqual(['c']);

    const dry = await core.createNamespacedConfigMap({ namespace: ns, dryRun: 'All', body: { metadata: { name: 'dry' }, data: { a: '1' } } });
    expect(dry.metadata?.name).toBe('dry');
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'dry', namespace: ns }))).toBe('gone');
    await core.patchNamespacedConfigMap({ name: 'c', namespace: ns, dryRun: 'All', body: { data: { x: 'y' } } }, mergePatch);
    expect((await core.readNamespacedConfigMap({ name: 'c', namespace: ns })).data).toBeUndefined();
    await core.deleteNamespacedConfigMap({ name: 'c', namespace: ns, dryRun: 'All' });
    expect((await core.readNamespacedConfigMap({ name: 'c', namespace: ns })).metadata?.name).toBe('c');
  });
});

test.describe('updates and patches', () => {
  test('replace with a stale resourceVersion is a 409 Conflict', async () => {
    const ns = await namespace('stale');
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' }, data: { v: '1' } } });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { ...created, data: { v: '2' } } });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    const stale = await failure(core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { ...created, data: { v: '3' } } }));
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe('Conflict');
    expect(stale.status.message).toContain('the object has been modified');
    expect((await core.readNamespacedConfigMap({ name: 'cm', namespace: ns })).data).toEqual({ v: '2' });
    // Without a resourceVersion a replace is unconditional.
    const { resourceVersion: _drop, ...meta } = replaced.metadata!;
    const forced = await core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: meta, data: { v: '4' } } });
    expect(forced.data).toEqual({ v: '4' });
  });

  test('JSON merge patch and JSON patch', async () => {
    const ns = await namespace('patch');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm', labels: { a: '1', b: '2' } }, data: { x: '1', y: '2' } } });
    const merged = await core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: { labels: { b: null, c: '3' } }, data: { y: '20' } } }, mergePatch);
    expect(merged.metadata?.labels).toEqual({ a: '1', c: '3' });
    expect(merged.data).toEqual({ x: '1', y: '20' });
    const patched = await core.patchNamespacedConfigMap(
      {
        name: 'cm',
        namespace: ns,
        body: [
          { op: 'test', path: '/data/x', value: '1' },
          { op: 'replace', path: '/data/x', value: '10' },
          { op: 'add', path: '/data/z', value: '30' },
          { op: 'remove', path: '/data/y' },
        ],
      },
      jsonPatch,
    );
    expect(patched.data).toEqual({ x: '10', z: '30' });
    const failedTest = await failure(
      core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: [{ op: 'test', path: '/data/x', value: 'nope' }] }, jsonPatch),
    );
    expect(failedTest.code).toBe(422);
    // A merge patch carrying a stale resourceVersion is refused like a stale update.
    const stale = await failure(core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: { resourceVersion: '1' }, data: { x: '0' } } }, mergePatch));
    expect(stale.code).toBe(409);
  });

  test('strategic merge: Pod containers merge by name, a scheduling gate goes with $patch: delete', async () => {
    const ns = await namespace('smp');
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'gated' },
        spec: {
          schedulingGates: [{ name: 'example.com/gate-a' }, { name: 'example.com/gate-b' }],
          containers: [
            { name: 'main', image: 'busybox:1.36', env: [{ name: 'A', value: '1' }] },
            { name: 'side', image: 'busybox:1.36' },
          ],
        },
      },
    });
    const patched = await core.patchNamespacedPod(
      {
        name: 'gated',
        namespace: ns,
        body: {
          spec: {
            containers: [{ name: 'side', image: 'busybox:1.37' }],
            schedulingGates: [{ name: 'example.com/gate-a', $patch: 'delete' }],
          },
        },
      },
      strategicPatch,
    );
    expect(patched.spec?.containers.map((c) => [c.name, c.image])).toEqual([
      ['main', 'busybox:1.36'],
      ['side', 'busybox:1.37'],
    ]);
    expect(patched.spec?.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
    expect(patched.spec?.schedulingGates).toEqual([{ name: 'example.com/gate-b' }]);
    // Adding a gate back is forbidden on a Pod.
    const add = await failure(
      core.patchNamespacedPod({ name: 'gated', namespace: ns, body: { spec: { schedulingGates: [{ name: 'example.com/gate-c' }] } } }, strategicPatch),
    );
    expect(add.code).toBe(422);
  });

  test('strategic merge: Deployment template env merges by name (AppsV1Api)', async () => {
    const ns = await namespace('smp-deploy');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [
                { name: 'main', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
                { name: 'side', image: 'busybox:1.36' },
              ],
            },
          },
        },
      },
    });
    const patched = await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: ns,
        body: { spec: { template: { spec: { containers: [{ name: 'main', env: [{ name: 'B', value: '20' }, { name: 'C', value: '3' }, { name: 'A', $patch: 'delete' }] }] } } } },
      },
      strategicPatch,
    );
    const containers = patched.spec!.template.spec!.containers;
    expect(containers.map((c) => c.name)).toEqual(['main', 'side']);
    expect(containers[0].image).toBe('nginx:1.27');
    expect(containers[0].env).toEqual([
      { name: 'B', value: '20' },
      { name: 'C', value: '3' },
    ]);
    expect(patched.metadata?.generation).toBe(2);
  });

  test('server-side apply creates when absent, then updates, recording the field manager', async () => {
    const ns = await namespace('ssa');
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns, labels: { owner: 'ssa' } }, data: { a: '1' } };
    const created = await core.patchNamespacedConfigMap({ name: 'applied', namespace: ns, body: manifest, fieldManager: 'client-node-test' }, applyPatch);
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.data).toEqual({ a: '1' });
    const updated = await core.patchNamespacedConfigMap(
      { name: 'applied', namespace: ns, body: { ...manifest, data: { a: '2', b: '3' } }, fieldManager: 'client-node-test' },
      applyPatch,
    );
    expect(updated.metadata?.uid).toBe(created.metadata?.uid);
    expect(updated.data).toEqual({ a: '2', b: '3' });
    expect(updated.metadata?.managedFields?.some((m) => m.manager === 'client-node-test' && m.operation === 'Apply')).toBe(true);
    // Apply without a field manager is refused (PatchOptions validation, as upstream: 422).
    const noManager = await failure(core.patchNamespacedConfigMap({ name: 'applied', namespace: ns, body: manifest }, applyPatch));
    expect(noManager.code).toBe(422);
    expect(noManager.status.message).toContain('fieldManager');
    // The generic client applies too.
    const viaObjects = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied-2', namespace: ns }, data: { k: 'v' } } as k8s.V1ConfigMap,
      undefined,
      undefined,
      'client-node-test',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(viaObjects.data).toEqual({ k: 'v' });
  });

  test('immutable Secret refuses data changes with 422 but takes metadata changes', async () => {
    const ns = await namespace('immut');
    const secret = await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, immutable: true, stringData: { password: 'hunter2' } } });
    expect(secret.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(secret.type).toBe('Opaque');
    const change = await failure(core.patchNamespacedSecret({ name: 's', namespace: ns, body: { data: { password: Buffer.from('x').toString('base64') } } }, mergePatch));
    expect(change.code).toBe(422);
    expect(change.status.reason).toBe('Invalid');
    expect(change.status.message).toContain('field is immutable');
    const unset = await failure(core.replaceNamespacedSecret({ name: 's', namespace: ns, body: { ...secret, immutable: false } }));
    expect(unset.code).toBe(422);
    const relabelled = await core.patchNamespacedSecret({ name: 's', namespace: ns, body: { metadata: { labels: { rotated: 'no' } } } }, mergePatch);
    expect(relabelled.metadata?.labels).toEqual({ rotated: 'no' });
  });

  test('KubernetesObjectApi: create, read, list, patch, replace, delete via discovery', async () => {
    const ns = await namespace('generic');
    const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns, labels: { via: 'objects' } }, data: { a: '1' } };
    const created = await objects.create<k8s.V1ConfigMap>(spec);
    expect(created.metadata?.uid).toBeTruthy();
    const read = await objects.read<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    expect(read.data).toEqual({ a: '1' });
    const list = await objects.list<k8s.V1ConfigMap>('v1', 'ConfigMap', ns, undefined, undefined, undefined, undefined, 'via=objects');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['g']);
    const patched = await objects.patch<k8s.V1ConfigMap>(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns }, data: { b: '2' } },
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    expect(patched.data).toEqual({ a: '1', b: '2' });
    const stale = await failure(objects.replace({ ...read, data: { c: '3' } }));
    expect(stale.code).toBe(409);
    const replaced = await objects.replace<k8s.V1ConfigMap>({ ...patched, data: { c: '3' } });
    expect(replaced.data).toEqual({ c: '3' });
    // Apps group through the same generic client.
    const deployment = await objects.create<k8s.V1Deployment>({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    } as k8s.V1Deployment);
    expect(deployment.metadata?.generation).toBe(1);
    await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'g', namespace: ns }))).toBe('gone');
  });
});

test.describe('custom resources', () => {
  test.beforeAll(async () => {
    await installWidgetCrd();
  });

  test('CustomObjectsApi: create, get, list, patch types; strategic merge is 415', async () => {
    const ns = await namespace('cr');
    const body = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1', labels: { color: 'red' } }, spec: { size: 1, color: 'red' } };
    const created = await custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body });
    expect(created.metadata.uid).toBeTruthy();
    await custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body: { ...body, metadata: { name: 'w2', labels: { color: 'blue' } } } });
    const got = await custom.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1' });
    expect(got.spec).toEqual({ size: 1, color: 'red' });
    const list = await custom.listNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', labelSelector: 'color=blue' });
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w2']);
    expect(list.kind).toBe('WidgetList');

    const merged = await custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { spec: { size: 2 } } }, mergePatch);
    expect(merged.spec).toEqual({ size: 2, color: 'red' });
    // CustomObjectsApi's default patch type is JSON patch.
    const jsonPatched = await custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: [{ op: 'replace', path: '/spec/color', value: 'green' }] });
    expect(jsonPatched.spec.color).toBe('green');
    const strategic = await failure(
      custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { spec: { size: 3 } } }, strategicPatch),
    );
    expect(strategic.code).toBe(415);
    expect(strategic.status.reason).toBe('UnsupportedMediaType');
    const applied = await custom.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w3', body: { ...body, metadata: { name: 'w3' } }, fieldManager: 'client-node-test' },
      applyPatch,
    );
    expect(applied.metadata.name).toBe('w3');
    // Schema validation of custom objects.
    const invalid = await failure(
      custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body: { ...body, metadata: { name: 'bad' }, spec: { size: 'big' } } }),
    );
    expect(invalid.code).toBe(422);
  });

  test('generation: bumped by spec changes only; status only through /status', async () => {
    const ns = await namespace('gen-cr');
    const base = { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets' };
    const created = await custom.createNamespacedCustomObject({
      ...base,
      body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 }, status: { ready: true } },
    });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined(); // status is dropped on create when it is a subresource

    const specChange = await custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { spec: { size: 2 } } }, mergePatch);
    expect(specChange.metadata.generation).toBe(2);
    const metaChange = await custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { metadata: { labels: { l: 'v' }, annotations: { a: 'b' } } } }, mergePatch);
    expect(metaChange.metadata.generation).toBe(2);
    expect(Number(metaChange.metadata.resourceVersion)).toBeGreaterThan(Number(specChange.metadata.resourceVersion));

    const statusChange = await custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { status: { ready: true, observedGeneration: 2 } } }, mergePatch);
    expect(statusChange.metadata.generation).toBe(2);
    expect(statusChange.status).toEqual({ ready: true, observedGeneration: 2 });
    // Spec changes through /status are ignored.
    const sneaky = await custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { spec: { size: 99 }, status: { ready: false } } }, mergePatch);
    expect(sneaky.spec).toEqual({ size: 2 });
    expect(sneaky.status.ready).toBe(false);

    // Status changes through the main resource are ignored (patch and replace).
    const viaMain = await custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { status: { ready: true } } }, mergePatch);
    expect(viaMain.status.ready).toBe(false);
    const current = await custom.getNamespacedCustomObject({ ...base, name: 'w' });
    const replaced = await custom.replaceNamespacedCustomObject({ ...base, name: 'w', body: { ...current, status: { ready: true, observedGeneration: 7 } } });
    expect(replaced.status).toEqual({ ready: false, observedGeneration: 2 });
    expect(replaced.metadata.generation).toBe(2);
    const replacedStatus = await custom.replaceNamespacedCustomObjectStatus({ ...base, name: 'w', body: { ...replaced, status: { ready: true, observedGeneration: 2 } } });
    expect(replacedStatus.status.ready).toBe(true);
    expect(replacedStatus.metadata.generation).toBe(2);
  });
  test('watch and informer on custom objects, including /status writes', async () => {
    const ns = await namespace('cr-watch');
    const base = { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets' };
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    const informer = k8s.makeInformer<k8s.KubernetesObject & { status?: { ready?: boolean } }>(kc, path, () => custom.listNamespacedCustomObject(base));
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name} ready=${o.status?.ready}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    const start = (await custom.listNamespacedCustomObject(base)).metadata.resourceVersion as string;
    const w = await startWatch(kc, path, { resourceVersion: start });
    await informer.start();
    try {
      await custom.createNamespacedCustomObject({ ...base, body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });
      await custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { status: { ready: true } } }, mergePatch);
      await custom.deleteNamespacedCustomObject({ ...base, name: 'w' });
      await expect.poll(() => w.events.map((e) => `${e.type} ${e.object.kind} ${e.object.metadata!.name}`)).toEqual(['ADDED Widget w', 'MODIFIED Widget w', 'DELETED Widget w']);
      expect((w.events[1].object as { status?: unknown }).status).toEqual({ ready: true });
      await expect.poll(() => log).toEqual(['add w', 'update w ready=true', 'delete w']);
    } finally {
      await w.stop();
      await informer.stop();
    }
  });
});

test.describe('deletion', () => {
  test('preconditions: uid and resourceVersion mismatches are 409 Precondition failed', async () => {
    const ns = await namespace('precond');
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' } } });
    const wrongUid = await failure(core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns, body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } }));
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.status.reason).toBe('Conflict');
    expect(wrongUid.status.message).toContain('Precondition failed');
    const wrongRv = await failure(core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns, body: { preconditions: { resourceVersion: '1' } } }));
    expect(wrongRv.code).toBe(409);
    expect(wrongRv.status.message).toContain('Precondition failed');
    const status = await core.deleteNamespacedConfigMap({
      name: 'cm',
      namespace: ns,
      body: { preconditions: { uid: cm.metadata!.uid, resourceVersion: cm.metadata!.resourceVersion } },
    });
    expect(status.status).toBe('Success');
    expect(status.details?.uid).toBe(cm.metadata!.uid);
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'cm', namespace: ns }))).toBe('gone');
    expect((await failure(core.deleteNamespacedConfigMap({ name: 'cm', namespace: ns }))).code).toBe(404);
  });

  test('finalizers hold an object with a deletionTimestamp until they are patched away', async () => {
    const ns = await namespace('fin');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await core.deleteNamespacedConfigMap({ name: 'held', namespace: ns });
    const held = await core.readNamespacedConfigMap({ name: 'held', namespace: ns });
    expect(held.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(held.metadata?.finalizers).toEqual(['example.com/hold']);
    // No new finalizers on an object that is going away.
    const add = await failure(core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } } }, mergePatch));
    expect(add.code).toBe(422);
    await core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'held', namespace: ns }))).toBe('gone');
  });

  async function ownerAndDependent(ns: string, options: { blockOwnerDeletion?: boolean; dependentFinalizer?: boolean } = {}) {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner' } } });
    const dependent = await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'dependent',
          finalizers: options.dependentFinalizer ? ['example.com/slow'] : undefined,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: options.blockOwnerDeletion }],
        },
      },
    });
    return { owner, dependent };
  }

  test('propagationPolicy Background: the owner goes at once, the dependent after it', async () => {
    const ns = await namespace('bg');
    await ownerAndDependent(ns);
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Background' });
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
    await expect.poll(() => readOrGone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace: ns }))).toBe('gone');
  });

  test('propagationPolicy Orphan: the dependent stays, without its owner reference', async () => {
    const ns = await namespace('orphan');
    await ownerAndDependent(ns);
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Orphan' });
    await expect.poll(() => readOrGone(() => core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
    const dependent = await core.readNamespacedConfigMap({ name: 'dependent', namespace: ns });
    expect(dependent.metadata?.ownerReferences ?? []).toEqual([]);
    expect(dependent.metadata?.deletionTimestamp).toBeUndefined();
  });

  test('propagationPolicy Foreground: the owner waits, with foregroundDeletion, until blocking dependents are gone', async () => {
    const ns = await namespace('fg');
    await ownerAndDependent(ns, { blockOwnerDeletion: true, dependentFinalizer: true });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns, propagationPolicy: 'Foreground' });
    const owner = await core.readNamespacedConfigMap({ name: 'owner', namespace: ns });
    expect(owner.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(owner.metadata?.finalizers).toContain('foregroundDeletion');
    // The garbage collector deletes the dependent; its own finalizer keeps it (and so the owner) around.
    await expect.poll(async () => (await core.readNamespacedConfigMap({ name: 'dependent', namespace: ns })).metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const stillOwner = await core.readNamespacedConfigMap({ name: 'owner', namespace: ns });
    expect(stillOwner.metadata?.finalizers).toContain('foregroundDeletion');
    await core.patchNamespacedConfigMap({ name: 'dependent', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    expect(await readOrGone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace: ns }))).toBe('gone');
    await expect.poll(() => readOrGone(() => core.readNamespacedConfigMap({ name: 'owner', namespace: ns }))).toBe('gone');
  });

  test('namespace deletion: Terminating, contents deleted, no new contents, then the namespace goes', async () => {
    const ns = await namespace('nsdel');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'plain' } } });
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'secret' }, stringData: { a: 'b' } } });
    await core.createNamespacedPod({ namespace: ns, body: podBody('pod') });
    // A finalizer keeps one object, and so the namespace, around long enough to look at.
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await core.deleteNamespace({ name: ns });
    const terminating = await core.readNamespace({ name: ns });
    expect(terminating.status?.phase).toBe('Terminating');
    expect(terminating.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const refused = await failure(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'late' } } }));
    expect(refused.code).toBe(403);
    expect(refused.status.message).toContain('being terminated');
    await expect.poll(async () => (await core.listNamespacedPod({ namespace: ns })).items.length).toBe(0);
    await expect.poll(async () => (await core.listNamespacedSecret({ namespace: ns })).items.length).toBe(0);
    await expect
      .poll(async () => (await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => [c.metadata!.name, !!c.metadata!.deletionTimestamp]))
      .toEqual([['held', true]]);
    expect((await core.readNamespace({ name: ns })).status?.phase).toBe('Terminating');
    await core.patchNamespacedConfigMap({ name: 'held', namespace: ns, body: { metadata: { finalizers: null } } }, mergePatch);
    await expect.poll(() => readOrGone(() => core.readNamespace({ name: ns }))).toBe('gone');
  });
});

test.describe('watch', () => {
  test('namespaced and cluster-wide Pod watches: commit order, increasing resourceVersions', async () => {
    const ns = await namespace('w-a');
    const other = await namespace('w-b');
    const start = (await core.listPodForAllNamespaces()).metadata!.resourceVersion!;
    const all = await startWatch(kc, '/api/v1/pods', { resourceVersion: start });
    const mine = await startWatch(kc, `/api/v1/namespaces/${ns}/pods`, { resourceVersion: start });
    try {
      await core.createNamespacedPod({ namespace: ns, body: podBody('p1') });
      await core.createNamespacedPod({ namespace: other, body: podBody('p2') });
      await core.patchNamespacedPod({ name: 'p1', namespace: ns, body: { metadata: { labels: { step: 'two' } } } }, mergePatch);
      await core.deleteNamespacedPod({ name: 'p2', namespace: other });
      await core.deleteNamespacedPod({ name: 'p1', namespace: ns });
      const expected = [
        ['ADDED', `${ns}/p1`],
        ['ADDED', `${other}/p2`],
        ['MODIFIED', `${ns}/p1`],
        ['DELETED', `${other}/p2`],
        ['DELETED', `${ns}/p1`],
      ];
      const summary = (w: RunningWatch) =>
        w.events.filter((e) => [ns, other].includes(e.object.metadata!.namespace!)).map((e) => [e.type, `${e.object.metadata!.namespace}/${e.object.metadata!.name}`]);
      await expect.poll(() => summary(all)).toEqual(expected);
      await expect.poll(() => summary(mine)).toEqual(expected.filter(([, key]) => key.startsWith(`${ns}/`)));
      expect(mine.events.every((e) => e.object.metadata?.namespace === ns)).toBe(true);
      for (const w of [all, mine]) {
        const rvs = w.events.map((e) => rv(e.object));
        expect(rvs.every((v, i) => i === 0 || v > rvs[i - 1])).toBe(true);
        expect(w.events.every((e) => e.object.kind === 'Pod')).toBe(true);
      }
      expect(all.ended()).toBe(false);
    } finally {
      await all.stop();
      await mine.stop();
    }
  });

  test('a watch without resourceVersion starts with ADDED for what exists; label selectors filter', async () => {
    const ns = await namespace('w-init');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a', labels: { keep: 'yes' } } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
    const w = await startWatch(kc, `/api/v1/namespaces/${ns}/configmaps`, { labelSelector: 'keep=yes' });
    try {
      await expect.poll(() => w.events.map((e) => [e.type, e.object.metadata!.name])).toEqual([['ADDED', 'a']]);
      // Leaving the selector is a DELETED, entering it an ADDED.
      await core.patchNamespacedConfigMap({ name: 'b', namespace: ns, body: { metadata: { labels: { keep: 'yes' } } } }, mergePatch);
      await core.patchNamespacedConfigMap({ name: 'a', namespace: ns, body: { metadata: { labels: { keep: 'no' } } } }, mergePatch);
      await expect
        .poll(() => w.events.map((e) => [e.type, e.object.metadata!.name]))
        .toEqual([
          ['ADDED', 'a'],
          ['ADDED', 'b'],
          ['DELETED', 'a'],
        ]);
    } finally {
      await w.stop();
    }
  });

  test('resuming from the last seen resourceVersion replays exactly the missed changes', async () => {
    const ns = await namespace('w-resume');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const start = (await core.listNamespacedConfigMap({ namespace: ns })).metadata!.resourceVersion!;
    const first = await startWatch(kc, path, { resourceVersion: start });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'seen' } } });
    await expect.poll(() => first.events.length).toBe(1);
    await first.stop();
    const lastSeen = first.events.at(-1)!.object.metadata!.resourceVersion!;

    const changes: string[] = [];
    for (let i = 0; i < 10; i++) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `m-${i}` } } });
      changes.push(`ADDED m-${i}`);
    }
    for (let i = 0; i < 5; i++) {
      await core.patchNamespacedConfigMap({ name: `m-${i}`, namespace: ns, body: { data: { i: String(i) } } }, mergePatch);
      changes.push(`MODIFIED m-${i}`);
    }
    for (let i = 5; i < 10; i++) {
      await core.deleteNamespacedConfigMap({ name: `m-${i}`, namespace: ns });
      changes.push(`DELETED m-${i}`);
    }
    expect(changes).toHaveLength(20);

    const resumed = await startWatch(kc, path, { resourceVersion: lastSeen });
    try {
      await expect.poll(() => resumed.events.length).toBeGreaterThanOrEqual(20);
      // A marker change after the 20: if anything extra had been replayed it would sit before it.
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'marker' } } });
      await expect.poll(() => resumed.events.length).toBe(21);
      expect(resumed.events.map((e) => `${e.type} ${e.object.metadata!.name}`)).toEqual([...changes, 'ADDED marker']);
      const rvs = resumed.events.map((e) => rv(e.object));
      expect(rvs[0]).toBeGreaterThan(Number(lastSeen));
      expect(rvs.every((v, i) => i === 0 || v > rvs[i - 1])).toBe(true);
    } finally {
      await resumed.stop();
    }
  });

  test('timeoutSeconds ends the stream cleanly', async () => {
    const ns = await namespace('w-timeout');
    const w = await startWatch(kc, `/api/v1/namespaces/${ns}/configmaps`, { timeoutSeconds: 1 });
    const err = await w.done;
    expect(err).toBeNull();
    expect(w.ended()).toBe(true);
  });

  test('a watch on a missing resource fails through done', async () => {
    const w = await startWatch(kc, '/apis/nope.example.com/v1/things', {});
    const err = (await w.done) as { statusCode?: number } | null;
    expect(err?.statusCode).toBe(404);
  });
});

test.describe('watch: bookmarks and expiry (dedicated clusters)', () => {
  test('BOOKMARK events arrive when allowWatchBookmarks is set, and only then', async () => {
    const own = await EmbeddedCluster.start({ bookmarkIntervalMs: 200 });
    const config = new k8s.KubeConfig();
    config.loadFromString(own.kubeconfig());
    const api = config.makeApiClient(k8s.CoreV1Api);
    const start = (await api.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const withBookmarks = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: start, allowWatchBookmarks: true });
    const without = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: start });
    try {
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'one' } } });
      await expect.poll(() => withBookmarks.events.filter((e) => e.type === 'BOOKMARK').length).toBeGreaterThanOrEqual(2);
      await expect.poll(() => without.events.length).toBe(1);
      expect(without.events.map((e) => e.type)).toEqual(['ADDED']);
      const added = withBookmarks.events.find((e) => e.type === 'ADDED')!;
      const bookmarks = withBookmarks.events.filter((e) => e.type === 'BOOKMARK');
      for (const b of bookmarks) {
        expect(b.object.kind).toBe('ConfigMap');
        expect(b.object.apiVersion).toBe('v1');
        expect(rv(b.object)).toBeGreaterThanOrEqual(Number(start));
      }
      const last = bookmarks.at(-1)!;
      expect(rv(last.object)).toBeGreaterThanOrEqual(rv(added.object));
      // A bookmark's resourceVersion is a valid place to resume from.
      const resumed = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: last.object.metadata!.resourceVersion });
      try {
        await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'two' } } });
        await expect.poll(() => resumed.events.map((e) => `${e.type} ${e.object.metadata!.name}`)).toEqual(['ADDED two']);
      } finally {
        await resumed.stop();
      }
    } finally {
      await withBookmarks.stop();
      await without.stop();
      await own.stop();
    }
  });

  test('a resourceVersion older than the history answers an ERROR event with 410 Expired', async () => {
    const own = await EmbeddedCluster.start({ historyLimit: 5 });
    const config = new k8s.KubeConfig();
    config.loadFromString(own.kubeconfig());
    const api = config.makeApiClient(k8s.CoreV1Api);
    try {
      const old = (await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' } } })).metadata!.resourceVersion!;
      for (let i = 0; i < 20; i++) {
        await api.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: { data: { i: String(i) } } }, mergePatch);
      }
      const w = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: old });
      expect(await w.done).toBeNull();
      expect(w.events).toHaveLength(1);
      const [event] = w.events;
      expect(event.type).toBe('ERROR');
      expect(event.object.kind).toBe('Status');
      expect(event.object.code).toBe(410);
      expect(event.object.reason).toBe('Expired');
      // A recent resourceVersion still works.
      const recent = (await api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' })).metadata!.resourceVersion!;
      const fresh = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: recent });
      try {
        await api.patchNamespacedConfigMap({ name: 'cm', namespace: 'default', body: { data: { i: 'last' } } }, mergePatch);
        await expect.poll(() => fresh.events.map((e) => e.type)).toEqual(['MODIFIED']);
      } finally {
        await fresh.stop();
      }
      // An informer restarted from a resourceVersion that expired meanwhile gets the 410, relists, and
      // reconciles its cache: deletions it missed become delete callbacks, new objects add callbacks.
      // (makeInformer's ListWatch, built directly for latestResourceVersion())
      const informer = new k8s.ListWatch('/api/v1/namespaces/default/configmaps', new k8s.Watch(config), () => api.listNamespacedConfigMap({ namespace: 'default' }), false);
      const log: string[] = [];
      informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
      informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
      await informer.start();
      try {
        await expect.poll(() => log).toEqual(['add cm']);
        const restartFrom = informer.latestResourceVersion();
        await informer.stop();
        await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'while-away' } } });
        for (let i = 0; i < 10; i++) {
          await api.patchNamespacedConfigMap({ name: 'while-away', namespace: 'default', body: { data: { i: String(i) } } }, mergePatch);
        }
        await api.deleteNamespacedConfigMap({ name: 'cm', namespace: 'default' });
        // The informer's own watch from there would now be answered with 410.
        const expired = await startWatch(config, '/api/v1/namespaces/default/configmaps', { resourceVersion: restartFrom });
        await expired.done;
        expect(expired.events.map((e) => [e.type, e.object.code])).toEqual([['ERROR', 410]]);
        await informer.start();
        await expect.poll(() => informer.list('default').map((c) => c.metadata!.name)).toEqual(['while-away']);
        expect(log).toEqual(['add cm', 'delete cm', 'add while-away']);
        expect(informer.get('while-away', 'default')?.data).toEqual({ i: '9' });
      } finally {
        await informer.stop();
      }
    } finally {
      await own.stop();
    }
  });
});

test.describe('informer', () => {
  test('add, update and delete callbacks fire; the cache follows', async () => {
    const ns = await namespace('inf');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'before' } } });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name} ${o.data?.v ?? ''}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await expect.poll(() => log).toEqual(['add before']);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'x' } } });
      await core.patchNamespacedConfigMap({ name: 'x', namespace: ns, body: { data: { v: '1' } } }, mergePatch);
      await core.deleteNamespacedConfigMap({ name: 'before', namespace: ns });
      await expect.poll(() => log).toEqual(['add before', 'add x', 'update x 1', 'delete before']);
      expect(informer.list(ns).map((c) => c.metadata!.name)).toEqual(['x']);
      expect(informer.get('x', ns)?.data).toEqual({ v: '1' });
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  test('recovers when fault injection cuts its watch, losing no event', async () => {
    const ns = await namespace('inf-cut');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    const errors: unknown[] = [];
    let connects = 0;
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    informer.on('error', (e) => errors.push(e));
    informer.on('connect', () => connects++);
    const fault = cluster.faults.add({ verb: 'watch', resource: 'configmaps', namespace: ns, closeWatchAfterEvents: 1, times: 3 });
    await informer.start();
    try {
      const expected: string[] = [];
      for (let i = 0; i < 6; i++) {
        await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `c${i}` } } });
        expected.push(`add c${i}`);
      }
      for (let i = 0; i < 3; i++) {
        await core.patchNamespacedConfigMap({ name: `c${i}`, namespace: ns, body: { data: { n: '1' } } }, mergePatch);
        expected.push(`update c${i}`);
      }
      await core.deleteNamespacedConfigMap({ name: 'c5', namespace: ns });
      expected.push('delete c5');
      await expect.poll(() => log).toEqual(expected);
      // Three watches were cut after one event each: the informer reconnected three times.
      expect(cluster.faults.list().find((f) => f.id === fault.id)).toBeUndefined();
      expect(connects).toBeGreaterThanOrEqual(4);
      expect(errors).toEqual([]);
      expect(informer.list(ns).map((c) => c.metadata!.name).sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    } finally {
      await informer.stop();
      cluster.faults.remove(fault.id);
    }
  });
});

test.describe('fault injection through the client', () => {
  test('a 403 fault on deleting secrets fails once, then deletes work', async () => {
    const ns = await namespace('fault');
    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, stringData: { a: 'b' } } });
    cluster.faults.add({ verb: 'delete', resource: 'secrets', namespace: ns, status: 403, times: 1 });
    const denied = await failure(core.deleteNamespacedSecret({ name: 's', namespace: ns }));
    expect(denied.code).toBe(403);
    expect(denied.status.reason).toBe('Forbidden');
    expect((await core.readNamespacedSecret({ name: 's', namespace: ns })).metadata?.name).toBe('s');
    await core.deleteNamespacedSecret({ name: 's', namespace: ns });
    expect(await readOrGone(() => core.readNamespacedSecret({ name: 's', namespace: ns }))).toBe('gone');
  });

  test('the HTTP admin API adds faults (POST), lists them (GET) and clears them (DELETE)', async () => {
    // A dedicated cluster: clearing all faults must not disturb other tests.
    const own = await EmbeddedCluster.start();
    try {
      const config = new k8s.KubeConfig();
      config.loadFromString(own.kubeconfig());
      const api = config.makeApiClient(k8s.CoreV1Api);
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' } } });

      const once = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'get', resource: 'configmaps', status: 500, message: 'boom', times: 1 });
      expect(once.code).toBe(201);
      const failed = await failure(api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' }));
      expect(failed.code).toBe(500);
      expect(failed.status.message).toBe('boom');
      expect((await api.readNamespacedConfigMap({ name: 'cm', namespace: 'default' })).metadata?.name).toBe('cm');

      const sticky = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'list', resource: 'configmaps', status: 503 });
      expect(sticky.code).toBe(201);
      const listed = await admin(own, 'GET', '/embedded.admin/v1/faults');
      expect((listed.body as { faults: { id: string }[] }).faults.map((f) => f.id)).toEqual([(sticky.body as { id: string }).id]);
      expect((await failure(api.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(503);
      expect((await failure(api.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(503);
      const cleared = await admin(own, 'DELETE', '/embedded.admin/v1/faults');
      expect(cleared.code).toBe(200);
      expect(own.faults.list()).toEqual([]);
      expect((await api.listNamespacedConfigMap({ namespace: 'default' })).items.map((c) => c.metadata?.name)).toContain('cm');

      const invalid = await admin(own, 'POST', '/embedded.admin/v1/faults', { verb: 'get' });
      expect(invalid.code).toBe(400);
      const unauthorized = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(new URL('/embedded.admin/v1/faults', own.url), { ca: own.certificateAuthority, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(unauthorized).toBe(401);
    } finally {
      await own.stop();
    }
  });
});

test.describe('exec', () => {
  test('without a node agent exec fails with a Status saying so', async () => {
    const ns = await namespace('exec');
    await core.createNamespacedPod({ namespace: ns, body: podBody('p') });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const statuses: k8s.V1Status[] = [];
    let socketClosed: Promise<void> | undefined;
    let failureMessage: string | undefined;
    try {
      const ws = await new k8s.Exec(kc).exec(ns, 'p', 'main', ['echo', 'hi'], stdout, stderr, null, false, (s) => statuses.push(s));
      socketClosed = new Promise((resolve) => {
        if (ws.readyState === ws.CLOSED) resolve();
        else ws.once('close', () => resolve());
      });
    } catch (error) {
      failureMessage = (error as { message?: string }).message;
    }
    if (socketClosed) await socketClosed;
    expect(failureMessage).toBeUndefined();
    expect(statuses).toHaveLength(1);
    expect(statuses[0].status).toBe('Failure');
    expect(statuses[0].message).toContain('no node agent');
  });

  test('exec into a container the Pod does not have is refused before the upgrade', async () => {
    const ns = await namespace('exec-bad');
    await core.createNamespacedPod({ namespace: ns, body: podBody('p') });
    const exec = new k8s.Exec(kc).exec(ns, 'p', 'nope', ['true'], new PassThrough(), null, null, false);
    // client-node reports a refused upgrade by its HTTP status only.
    await expect(exec).rejects.toMatchObject({ message: expect.stringContaining('400') });
    const missing = new k8s.Exec(kc).exec(ns, 'no-such-pod', 'main', ['true'], new PassThrough(), null, null, false);
    await expect(missing).rejects.toMatchObject({ message: expect.stringContaining('404') });
  });
});
