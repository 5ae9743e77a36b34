/** Our CRDs through the embedded API server's admission: defaults, enums, bounds, required fields. */
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { sandboxCrd } from './sandbox-crds.ts';
import { waitForCrdEstablished } from './install.ts';
import { podTemplate } from './test-kit.ts';

async function withCrd(version: 'v0.4.6' | 'v0.5.4', body: (api: ObjectApi) => void): Promise<void> {
  const cluster = await EmbeddedCluster.start();
  try {
    cluster.api.create(cluster.api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), sandboxCrd(version));
    await waitForCrdEstablished(cluster.api, 'sandboxes.agents.x-k8s.io');
    body(cluster.api);
  } finally {
    await cluster.stop();
  }
}

test('v0.4.6 (v1alpha1): defaults replicas 1 and shutdownPolicy Retain; replicas is 0..1; podTemplate.spec.containers required', async () => {
  await withCrd('v0.4.6', (api) => {
    const target = api.target('agents.x-k8s.io/v1alpha1', 'sandboxes', 'default');
    const created = api.create(target, { metadata: { name: 'a' }, spec: { podTemplate: podTemplate() } }).object;
    expect(created.spec).toMatchObject({ replicas: 1, shutdownPolicy: 'Retain' });
    expect(() => api.create(target, { metadata: { name: 'b' }, spec: { podTemplate: podTemplate(), replicas: 2 } })).toThrow(
      'spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1',
    );
    expect(() => api.create(target, { metadata: { name: 'c' }, spec: { podTemplate: { spec: {} } } })).toThrow('spec.podTemplate.spec.containers: Required value');
    expect(() => api.create(target, { metadata: { name: 'd' }, spec: {} })).toThrow('spec.podTemplate: Required value');
    expect(() => api.create(target, { metadata: { name: 'e' }, spec: { podTemplate: podTemplate(), shutdownPolicy: 'Forever' } })).toThrow(
      'spec.shutdownPolicy: Unsupported value: "Forever": supported values: "Retain", "Delete"',
    );
    // The PodSpec is structural, as upstream's: its fields survive, a container port's protocol is defaulted.
    const withExtras = podTemplate() as { spec: { terminationGracePeriodSeconds?: number; containers: { ports: Record<string, unknown>[] }[] } };
    withExtras.spec.terminationGracePeriodSeconds = 5;
    const stored = (api.create(target, { metadata: { name: 'f' }, spec: { podTemplate: withExtras } }).object.spec as { podTemplate: unknown }).podTemplate;
    withExtras.spec.containers[0].ports[0].protocol = 'TCP';
    expect(stored).toEqual(withExtras);
  });
});

test('v0.5.4 (v1beta1 storage, v1alpha1 deprecated): operatingMode defaults to Running and is an enum; v1alpha1 bounds still apply', async () => {
  await withCrd('v0.5.4', (api) => {
    const v1beta1 = api.target('agents.x-k8s.io/v1beta1', 'sandboxes', 'default');
    const v1alpha1 = api.target('agents.x-k8s.io/v1alpha1', 'sandboxes', 'default');
    expect(api.create(v1beta1, { metadata: { name: 'a' }, spec: { podTemplate: podTemplate() } }).object.spec).toMatchObject({ operatingMode: 'Running', shutdownPolicy: 'Retain' });
    expect(() => api.create(v1beta1, { metadata: { name: 'b' }, spec: { podTemplate: podTemplate(), operatingMode: 'Paused' } })).toThrow(
      'spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"',
    );
    expect(() => api.create(v1alpha1, { metadata: { name: 'c' }, spec: { podTemplate: podTemplate(), replicas: 2 } })).toThrow('spec.replicas');
    api.create(v1alpha1, { metadata: { name: 'd' }, spec: { podTemplate: podTemplate(), replicas: 0 } });
    expect((api.get(v1beta1, 'd').spec as { operatingMode: string }).operatingMode).toBe('Suspended');
  });
});
