/**
 * The real @kubernetes/client-node (1.4.0) against the embedded cluster, on custom objects of a
 * small CRD: CustomObjectsApi and its patch types, generation and the status subresource, watches
 * and informers.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { applyPatch, ClientNodeFixture, failure, mergePatch, readOrGone, startWatch, strategicPatch } from './test-kit.ts';

const client = ClientNodeFixture.register();

// A small CRD with a status subresource, installed before the tests of this file.
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

async function installWidgetCrd(): Promise<void> {
  const existing = await readOrGone(() => client.extensions.readCustomResourceDefinition({ name: CRD_NAME }));
  if (existing === 'gone') await client.extensions.createCustomResourceDefinition({ body: widgetCrd });
  await expect
    .poll(async () => {
      const crd = await client.extensions.readCustomResourceDefinition({ name: CRD_NAME });
      return crd.status?.conditions?.find((c) => c.type === 'Established')?.status;
    })
    .toBe('True');
}

test.describe('custom resources', () => {
  test.beforeAll(async () => {
    await installWidgetCrd();
  });

  test('CustomObjectsApi: create, get, list, patch types; strategic merge is 415', async () => {
    const ns = await client.namespace('cr');
    const body = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1', labels: { color: 'red' } }, spec: { size: 1, color: 'red' } };
    const created = await client.custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body });
    expect(created.metadata.uid).toBeTruthy();
    await client.custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body: { ...body, metadata: { name: 'w2', labels: { color: 'blue' } } } });
    const got = await client.custom.getNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1' });
    expect(got.spec).toEqual({ size: 1, color: 'red' });
    const list = await client.custom.listNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', labelSelector: 'color=blue' });
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w2']);
    expect(list.kind).toBe('WidgetList');

    const merged = await client.custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { spec: { size: 2 } } }, mergePatch);
    expect(merged.spec).toEqual({ size: 2, color: 'red' });
    // CustomObjectsApi's default patch type is JSON patch.
    const jsonPatched = await client.custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: [{ op: 'replace', path: '/spec/color', value: 'green' }] });
    expect(jsonPatched.spec.color).toBe('green');
    const strategic = await failure(
      client.custom.patchNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { spec: { size: 3 } } }, strategicPatch),
    );
    expect(strategic.code).toBe(415);
    expect(strategic.status.reason).toBe('UnsupportedMediaType');
    const applied = await client.custom.patchNamespacedCustomObject(
      { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', name: 'w3', body: { ...body, metadata: { name: 'w3' } }, fieldManager: 'client-node-test' },
      applyPatch,
    );
    expect(applied.metadata.name).toBe('w3');
    // Schema validation of custom objects.
    const invalid = await failure(
      client.custom.createNamespacedCustomObject({ group: GROUP, version: 'v1', namespace: ns, plural: 'widgets', body: { ...body, metadata: { name: 'bad' }, spec: { size: 'big' } } }),
    );
    expect(invalid.code).toBe(422);
  });

  test('generation: bumped by spec changes only; status only through /status', async () => {
    const ns = await client.namespace('gen-cr');
    const base = { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets' };
    const created = await client.custom.createNamespacedCustomObject({
      ...base,
      body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 }, status: { ready: true } },
    });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined(); // status is dropped on create when it is a subresource

    const specChange = await client.custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { spec: { size: 2 } } }, mergePatch);
    expect(specChange.metadata.generation).toBe(2);
    const metaChange = await client.custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { metadata: { labels: { l: 'v' }, annotations: { a: 'b' } } } }, mergePatch);
    expect(metaChange.metadata.generation).toBe(2);
    expect(Number(metaChange.metadata.resourceVersion)).toBeGreaterThan(Number(specChange.metadata.resourceVersion));

    const statusChange = await client.custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { status: { ready: true, observedGeneration: 2 } } }, mergePatch);
    expect(statusChange.metadata.generation).toBe(2);
    expect(statusChange.status).toEqual({ ready: true, observedGeneration: 2 });
    // Spec changes through /status are ignored.
    const sneaky = await client.custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { spec: { size: 99 }, status: { ready: false } } }, mergePatch);
    expect(sneaky.spec).toEqual({ size: 2 });
    expect(sneaky.status.ready).toBe(false);

    // Status changes through the main resource are ignored (patch and replace).
    const viaMain = await client.custom.patchNamespacedCustomObject({ ...base, name: 'w', body: { status: { ready: true } } }, mergePatch);
    expect(viaMain.status.ready).toBe(false);
    const current = await client.custom.getNamespacedCustomObject({ ...base, name: 'w' });
    const replaced = await client.custom.replaceNamespacedCustomObject({ ...base, name: 'w', body: { ...current, status: { ready: true, observedGeneration: 7 } } });
    expect(replaced.status).toEqual({ ready: false, observedGeneration: 2 });
    expect(replaced.metadata.generation).toBe(2);
    const replacedStatus = await client.custom.replaceNamespacedCustomObjectStatus({ ...base, name: 'w', body: { ...replaced, status: { ready: true, observedGeneration: 2 } } });
    expect(replacedStatus.status.ready).toBe(true);
    expect(replacedStatus.metadata.generation).toBe(2);
  });
  test('watch and informer on custom objects, including /status writes', async () => {
    const ns = await client.namespace('cr-watch');
    const base = { group: GROUP, version: 'v1', namespace: ns, plural: 'widgets' };
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    const informer = k8s.makeInformer<k8s.KubernetesObject & { status?: { ready?: boolean } }>(client.kc, path, () => client.custom.listNamespacedCustomObject(base));
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata!.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name} ready=${o.status?.ready}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
    const start = (await client.custom.listNamespacedCustomObject(base)).metadata.resourceVersion as string;
    const w = await startWatch(client.kc, path, { resourceVersion: start });
    await informer.start();
    try {
      await client.custom.createNamespacedCustomObject({ ...base, body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } } });
      await client.custom.patchNamespacedCustomObjectStatus({ ...base, name: 'w', body: { status: { ready: true } } }, mergePatch);
      await client.custom.deleteNamespacedCustomObject({ ...base, name: 'w' });
      await expect.poll(() => w.events.map((e) => `${e.type} ${e.object.kind} ${e.object.metadata!.name}`)).toEqual(['ADDED Widget w', 'MODIFIED Widget w', 'DELETED Widget w']);
      expect((w.events[1].object as { status?: unknown }).status).toEqual({ ready: true });
      await expect.poll(() => log).toEqual(['add w', 'update w ready=true', 'delete w']);
    } finally {
      await w.stop();
      await informer.stop();
    }
  });
});
