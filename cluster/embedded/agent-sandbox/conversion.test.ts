/**
 * Golden pairs for the v0.5.x conversion webhook stand-in (conversion.ts), played through the
 * object API of an embedded cluster with the v0.5.4 Sandbox CRD (v1beta1 storage, v1alpha1
 * served) and no controller, so every change is the step's own. After each step the object is
 * read through both versions.
 */
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import type { KubeObject } from '../types.ts';
import { V1ALPHA1_STATE_ANNOTATION, convertSandbox } from './conversion.ts';
import { sandboxCrd } from './sandbox-crds.ts';
import { expectGolden, goldenCases, readGoldenInput, podTemplate } from './test-kit.ts';
import { waitForCrdEstablished } from './install.ts';

interface Step {
  name: string;
  via: 'v1alpha1' | 'v1beta1';
  /** Which Sandbox (default "box"). */
  object?: string;
  create?: Record<string, unknown>;
  patch?: Record<string, unknown>;
  /** GET through `via`, then PUT the same object back. */
  put?: boolean;
  /** A write to the status subresource. */
  status?: Record<string, unknown>;
}

function views(api: EmbeddedCluster['api'], name: string) {
  const read = (version: string) => api.get(api.target(`agents.x-k8s.io/${version}`, 'sandboxes', 'default'), name);
  const alpha = read('v1alpha1');
  const beta = read('v1beta1');
  return {
    v1alpha1: {
      replicas: (alpha.spec as { replicas?: number }).replicas ?? null,
      statusReplicas: (alpha.status as { replicas?: number } | undefined)?.replicas ?? null,
      snapshotVisible: V1ALPHA1_STATE_ANNOTATION in (alpha.metadata.annotations ?? {}),
    },
    v1beta1: {
      operatingMode: (beta.spec as { operatingMode?: string }).operatingMode,
      snapshotVisible: V1ALPHA1_STATE_ANNOTATION in (beta.metadata.annotations ?? {}),
    },
  };
}

for (const name of goldenCases('conversion')) {
  test(`conversion golden: ${name}`, async () => {
    const { steps } = readGoldenInput<{ steps: Step[] }>('conversion', name);
    const cluster = await EmbeddedCluster.start();
    try {
      const { api } = cluster;
      api.create(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), sandboxCrd('v0.5.4'));
      await waitForCrdEstablished(api, 'sandboxes.agents.x-k8s.io');
      const actual = steps.map((step) => {
        const target = api.target(`agents.x-k8s.io/${step.via}`, 'sandboxes', 'default');
        const object = step.object ?? 'box';
        if (step.create) api.create(target, { metadata: { name: object }, spec: { podTemplate: podTemplate(), ...step.create } });
        if (step.patch) api.patch(target, object, 'merge', step.patch);
        if (step.put) api.update(target, object, api.get(target, object));
        if (step.status) api.update(target, object, { ...api.get(target, object), status: step.status }, { subresource: 'status' });
        return { step: step.name, ...views(api, object) };
      });
      expectGolden('conversion', name, actual);
    } finally {
      await cluster.stop();
    }
  });
}

test('the webhook drops status.nodeName going to v1alpha1 and never invents one going to v1beta1', () => {
  const alpha: KubeObject = { apiVersion: 'agents.x-k8s.io/v1alpha1', kind: 'Sandbox', metadata: { name: 'a' }, spec: { replicas: 1 }, status: { replicas: 1, selector: 's' } };
  expect(convertSandbox(alpha, 'v1beta1').status).toEqual({ selector: 's' });
  const beta: KubeObject = { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', metadata: { name: 'b' }, spec: { operatingMode: 'Running' }, status: { nodeName: 'n' } };
  expect(convertSandbox(beta, 'v1alpha1')).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1 } });
  expect(convertSandbox(beta, 'v1alpha1').status).not.toHaveProperty('nodeName');
});
