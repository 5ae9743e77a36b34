/**
 * The real @kubernetes/client-node (1.4.0) against the embedded cluster: replace with optimistic
 * concurrency, every patch content type (merge, JSON, strategic, server-side apply), immutable
 * Secrets, and the generic KubernetesObjectApi found through discovery.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { applyPatch, ClientNodeFixture, failure, jsonPatch, mergePatch, readOrGone, strategicPatch } from './test-kit.ts';

const client = ClientNodeFixture.register();

test.describe('updates and patches', () => {
  test('replace with a stale resourceVersion is a 409 Conflict', async () => {
    const ns = await client.namespace('stale');
    const created = await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm' }, data: { v: '1' } } });
    const replaced = await client.core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { ...created, data: { v: '2' } } });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    const stale = await failure(client.core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { ...created, data: { v: '3' } } }));
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe('Conflict');
    expect(stale.status.message).toContain('the object has been modified');
    expect((await client.core.readNamespacedConfigMap({ name: 'cm', namespace: ns })).data).toEqual({ v: '2' });
    // Without a resourceVersion a replace is unconditional.
    const { resourceVersion: _drop, ...meta } = replaced.metadata!;
    const forced = await client.core.replaceNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: meta, data: { v: '4' } } });
    expect(forced.data).toEqual({ v: '4' });
  });

  test('JSON merge patch and JSON patch', async () => {
    const ns = await client.namespace('patch');
    await client.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cm', labels: { a: '1', b: '2' } }, data: { x: '1', y: '2' } } });
    const merged = await client.core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: { labels: { b: null, c: '3' } }, data: { y: '20' } } }, mergePatch);
    expect(merged.metadata?.labels).toEqual({ a: '1', c: '3' });
    expect(merged.data).toEqual({ x: '1', y: '20' });
    const patched = await client.core.patchNamespacedConfigMap(
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
      client.core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: [{ op: 'test', path: '/data/x', value: 'nope' }] }, jsonPatch),
    );
    expect(failedTest.code).toBe(422);
    // A merge patch carrying a stale resourceVersion is refused like a stale update.
    const stale = await failure(client.core.patchNamespacedConfigMap({ name: 'cm', namespace: ns, body: { metadata: { resourceVersion: '1' }, data: { x: '0' } } }, mergePatch));
    expect(stale.code).toBe(409);
  });

  test('strategic merge: Pod containers merge by name, a scheduling gate goes with $patch: delete', async () => {
    const ns = await client.namespace('smp');
    await client.core.createNamespacedPod({
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
    const patched = await client.core.patchNamespacedPod(
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
      client.core.patchNamespacedPod({ name: 'gated', namespace: ns, body: { spec: { schedulingGates: [{ name: 'example.com/gate-c' }] } } }, strategicPatch),
    );
    expect(add.code).toBe(422);
  });

  test('strategic merge: Deployment template env merges by name (AppsV1Api)', async () => {
    const ns = await client.namespace('smp-deploy');
    await client.apps.createNamespacedDeployment({
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
    const patched = await client.apps.patchNamespacedDeployment(
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
    const ns = await client.namespace('ssa');
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns, labels: { owner: 'ssa' } }, data: { a: '1' } };
    const created = await client.core.patchNamespacedConfigMap({ name: 'applied', namespace: ns, body: manifest, fieldManager: 'client-node-test' }, applyPatch);
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.data).toEqual({ a: '1' });
    const updated = await client.core.patchNamespacedConfigMap(
      { name: 'applied', namespace: ns, body: { ...manifest, data: { a: '2', b: '3' } }, fieldManager: 'client-node-test' },
      applyPatch,
    );
    expect(updated.metadata?.uid).toBe(created.metadata?.uid);
    expect(updated.data).toEqual({ a: '2', b: '3' });
    expect(updated.metadata?.managedFields?.some((m) => m.manager === 'client-node-test' && m.operation === 'Apply')).toBe(true);
    // Apply without a field manager is refused (PatchOptions validation, as upstream: 422).
    const noManager = await failure(client.core.patchNamespacedConfigMap({ name: 'applied', namespace: ns, body: manifest }, applyPatch));
    expect(noManager.code).toBe(422);
    expect(noManager.status.message).toContain('fieldManager');
    // The generic client applies too.
    const viaObjects = await client.objects.patch(
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
    const ns = await client.namespace('immut');
    const secret = await client.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 's' }, immutable: true, stringData: { password: 'hunter2' } } });
    expect(secret.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(secret.type).toBe('Opaque');
    const change = await failure(client.core.patchNamespacedSecret({ name: 's', namespace: ns, body: { data: { password: Buffer.from('x').toString('base64') } } }, mergePatch));
    expect(change.code).toBe(422);
    expect(change.status.reason).toBe('Invalid');
    expect(change.status.message).toContain('field is immutable');
    const unset = await failure(client.core.replaceNamespacedSecret({ name: 's', namespace: ns, body: { ...secret, immutable: false } }));
    expect(unset.code).toBe(422);
    const relabelled = await client.core.patchNamespacedSecret({ name: 's', namespace: ns, body: { metadata: { labels: { rotated: 'no' } } } }, mergePatch);
    expect(relabelled.metadata?.labels).toEqual({ rotated: 'no' });
  });

  test('KubernetesObjectApi: create, read, list, patch, replace, delete via discovery', async () => {
    const ns = await client.namespace('generic');
    const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns, labels: { via: 'objects' } }, data: { a: '1' } };
    const created = await client.objects.create<k8s.V1ConfigMap>(spec);
    expect(created.metadata?.uid).toBeTruthy();
    const read = await client.objects.read<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    expect(read.data).toEqual({ a: '1' });
    const list = await client.objects.list<k8s.V1ConfigMap>('v1', 'ConfigMap', ns, undefined, undefined, undefined, undefined, 'via=objects');
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['g']);
    const patched = await client.objects.patch<k8s.V1ConfigMap>(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns }, data: { b: '2' } },
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    expect(patched.data).toEqual({ a: '1', b: '2' });
    const stale = await failure(client.objects.replace({ ...read, data: { c: '3' } }));
    expect(stale.code).toBe(409);
    const replaced = await client.objects.replace<k8s.V1ConfigMap>({ ...patched, data: { c: '3' } });
    expect(replaced.data).toEqual({ c: '3' });
    // Apps group through the same generic client.
    const deployment = await client.objects.create<k8s.V1Deployment>({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    } as k8s.V1Deployment);
    expect(deployment.metadata?.generation).toBe(1);
    await client.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    expect(await readOrGone(() => client.core.readNamespacedConfigMap({ name: 'g', namespace: ns }))).toBe('gone');
  });
});
