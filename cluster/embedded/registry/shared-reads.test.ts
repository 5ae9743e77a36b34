/**
 * Reads share the stored objects instead of copying them (ObjectApi.present): get, list, watch
 * and write results hand out the frozen stored object itself, so changing one throws instead of
 * changing the store; a caller copies (clone) before it changes what it read. The freezing is
 * always on, so every other test of the embedded cluster also runs against frozen objects and
 * fails where a caller forgets to copy.
 */
import { expect, test as base } from '@playwright/test';
import { sandboxCrd } from '../agent-sandbox/sandbox-crds.ts';
import { waitForCrdEstablished } from '../agent-sandbox/install.ts';
import { podTemplate } from '../agent-sandbox/test-kit.ts';
import { EmbeddedCluster } from '../cluster.ts';
import { clone, type KubeObject } from '../types.ts';

const test = base.extend<{ cluster: EmbeddedCluster }>({
  // eslint-disable-next-line no-empty-pattern
  cluster: async ({}, use) => {
    const cluster = await EmbeddedCluster.start();
    await use(cluster);
    await cluster.stop();
  },
});

/** Every object and array in `value`, with its path. */
function* nodes(value: unknown, path = ''): Generator<[string, object]> {
  if (typeof value !== 'object' || value === null) return;
  yield [path || '.', value];
  for (const [key, child] of Object.entries(value)) yield* nodes(child, `${path}.${key}`);
}

function expectDeeplyFrozen(object: KubeObject): void {
  const thawed = [...nodes(object)].filter(([, node]) => !Object.isFrozen(node)).map(([path]) => path);
  expect(thawed, 'parts of a read object that are not frozen').toEqual([]);
}

const podBody = (name: string) => ({
  metadata: { name, labels: { app: 'web' } },
  spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
});

test('get, list, watch and write results are the stored object itself, deeply frozen', ({ cluster }) => {
  const { api, store } = cluster;
  const pods = api.target('v1', 'pods', 'default');
  const seen: KubeObject[] = [];
  const stop = api.watch(pods, { resourceVersion: String(store.currentRevision()) }, (_type, object) => seen.push(object));
  const created = api.create(pods, podBody('web')).object;
  const patched = api.patch(pods, 'web', 'merge', { metadata: { labels: { tier: 'front' } } }).object;
  stop();

  const stored = store.get('pods', 'default', 'web')!;
  expect(patched).toBe(stored);
  expect(api.get(pods, 'web')).toBe(stored);
  expect(api.list(pods).items[0]).toBe(stored);
  expect(seen.at(-1)).toBe(stored);
  expect(seen[0]).toBe(created);
  for (const object of [created, stored]) expectDeeplyFrozen(object);
});

test('changing a read object throws and leaves the store as it was; a copy can be changed and written back', ({ cluster }) => {
  const { api } = cluster;
  const pods = api.target('v1', 'pods', 'default');
  api.create(pods, podBody('web'));
  const read = api.get(pods, 'web');
  const before = JSON.stringify(read);

  expect(() => {
    read.metadata.labels!.app = 'db';
  }).toThrow(TypeError);
  expect(() => {
    (read.spec as { containers: unknown[] }).containers.push({ name: 'extra' });
  }).toThrow(TypeError);
  expect(() => {
    delete read.metadata.labels;
  }).toThrow(TypeError);
  expect(JSON.stringify(api.get(pods, 'web'))).toBe(before);

  const copy = clone(read);
  copy.metadata.labels!.app = 'db';
  const updated = api.update(pods, 'web', copy).object;
  expect(updated.metadata.labels).toEqual({ app: 'db' });
  // The object read earlier is an older version, still whole and still frozen.
  expect(JSON.stringify(read)).toBe(before);
  expectDeeplyFrozen(read);
});

test('what a caller writes stays its own: the body passed to create or update is not frozen', ({ cluster }) => {
  const { api } = cluster;
  const configMaps = api.target('v1', 'configmaps', 'default');
  const body = { metadata: { name: 'settings', labels: { app: 'web' } }, data: { mode: 'a' } };
  api.create(configMaps, body);
  body.data.mode = 'b';
  body.metadata.labels.app = 'db';
  expect(api.get(configMaps, 'settings').data).toEqual({ mode: 'a' });
  api.update(configMaps, 'settings', body);
  body.data.mode = 'c';
  expect(api.get(configMaps, 'settings').data).toEqual({ mode: 'b' });
});

test('the scale subresource writes through a copy of what it read', ({ cluster }) => {
  const { api } = cluster;
  const deployments = api.target('apps/v1', 'deployments', 'default');
  api.create(deployments, {
    metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podBody('x').spec } },
  });
  const read = api.get(deployments, 'web');
  const scale = api.updateScale(deployments, 'web', { spec: { replicas: 3 } });
  expect(scale.spec).toEqual({ replicas: 3 });
  expect((api.get(deployments, 'web').spec as { replicas: number }).replicas).toBe(3);
  expect((read.spec as { replicas: number }).replicas).toBe(1);
});

test('a read through another version is a frozen conversion, shared by every watcher of that version', async ({ cluster }) => {
  const { api, store } = cluster;
  api.create(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), sandboxCrd('v0.5.4'));
  await waitForCrdEstablished(api, 'sandboxes.agents.x-k8s.io');
  const alpha = api.target('agents.x-k8s.io/v1alpha1', 'sandboxes', 'default');
  const beta = api.target('agents.x-k8s.io/v1beta1', 'sandboxes', 'default');
  const from = String(store.currentRevision());
  const watched = { alpha1: [] as KubeObject[], alpha2: [] as KubeObject[], beta: [] as KubeObject[] };
  const stops = [
    api.watch(alpha, { resourceVersion: from }, (_t, o) => watched.alpha1.push(o)),
    api.watch(alpha, { resourceVersion: from }, (_t, o) => watched.alpha2.push(o)),
    api.watch(beta, { resourceVersion: from }, (_t, o) => watched.beta.push(o)),
  ];
  api.create(alpha, { metadata: { name: 'box' }, spec: { podTemplate: podTemplate(), replicas: 1 } });
  api.patch(alpha, 'box', 'merge', { spec: { replicas: 0 } });
  for (const stop of stops) stop();

  expect(watched.alpha1.map((o) => (o.spec as { replicas?: number }).replicas)).toEqual([1, 0]);
  expect(watched.beta.map((o) => (o.spec as { operatingMode?: string }).operatingMode)).toEqual(['Running', 'Suspended']);
  // Both v1alpha1 watchers got one conversion per event; the v1beta1 watcher got the stored object.
  watched.alpha1.forEach((object, i) => expect(watched.alpha2[i]).toBe(object));
  expect(watched.beta.at(-1)).toBe(store.get('sandboxes.agents.x-k8s.io', 'default', 'box'));
  for (const object of [...watched.alpha1, api.get(alpha, 'box')]) {
    expect(object.apiVersion).toBe('agents.x-k8s.io/v1alpha1');
    expectDeeplyFrozen(object);
  }
});
