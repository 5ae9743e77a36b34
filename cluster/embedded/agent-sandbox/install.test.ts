import { expect, test } from '@playwright/test';
import { sandboxCrdOf, manifestDocuments, upstreamManifests } from '../../manifests/test-kit.ts';
import type { KubeObject } from '../types.ts';
import { EmbeddedCluster } from '../cluster.ts';
import { AgentSandboxController } from './agent-sandbox-controller.ts';
import { V1ALPHA1_DEPRECATION_WARNING } from './sandbox-crds.ts';
import { AGENT_SANDBOX_VERSIONS, installAgentSandbox, waitForCrdEstablished } from './install.ts';
import { AGENT_SANDBOX_PROFILES, type AgentSandboxVersion } from './profiles.ts';
import { POD_IP, podTemplate } from './test-kit.ts';

const CRD = 'sandboxes.agents.x-k8s.io';

async function withCluster(body: (cluster: EmbeddedCluster) => Promise<void>): Promise<void> {
  const cluster = await EmbeddedCluster.start();
  try {
    await body(cluster);
  } finally {
    await cluster.stop();
  }
}

function runPod(cluster: EmbeddedCluster, name: string): void {
  const pods = cluster.api.target('v1', 'pods', 'default');
  const pod = cluster.api.get(pods, name);
  cluster.api.update(pods, name, { ...pod, status: { phase: 'Running', podIP: POD_IP, podIPs: [{ ip: POD_IP }], conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
}

test('the known versions', () => {
  expect(AGENT_SANDBOX_VERSIONS).toEqual(['v0.4.6', 'v0.5.0', 'v0.5.4']);
});

test('an unknown version is refused before anything is written', async () => {
  await withCluster(async (cluster) => {
    await expect(installAgentSandbox(cluster, 'v0.6.0' as AgentSandboxVersion)).rejects.toThrow(
      'unknown Agent Sandbox version "v0.6.0"; known versions: v0.4.6, v0.5.0, v0.5.4',
    );
    expect(cluster.api.store.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD)).toBeUndefined();
  });
});

for (const version of AGENT_SANDBOX_VERSIONS) {
  test(`install ${version}: namespace, Established CRD with the release's versions, running controller`, async () => {
    await withCluster(async (cluster) => {
      const installation = await installAgentSandbox(cluster, version);
      try {
        expect(cluster.api.store.get('namespaces', undefined, 'agent-sandbox-system')).toBeDefined();
        const type = cluster.api.registry.get('agents.x-k8s.io', 'sandboxes')!;
        const versions = type.versions.map((v) => [v.name, v.served, v.storage, v.status, !!v.scale, v.deprecationWarning]);
        expect(versions).toEqual(
          version === 'v0.4.6'
            ? [['v1alpha1', true, true, true, true, undefined]]
            : [
                ['v1beta1', true, true, true, false, undefined],
                ['v1alpha1', true, false, true, true, V1ALPHA1_DEPRECATION_WARNING],
              ],
        );
        expect(!!type.converter).toBe(version !== 'v0.4.6');
        expect(installation.controller.profile.version).toBe(version);
        // Installing again is create-or-update: no conflict.
        const again = await installAgentSandbox(cluster, version);
        again.stop();
      } finally {
        installation.stop();
      }
    });
  });
}

test('upgrade v0.4.6 -> v0.5.4: a replicas-0 Sandbox stored as v1alpha1 is Suspended to the new controller; resume works', async () => {
  await withCluster(async (cluster) => {
    const { api } = cluster;
    const old = await installAgentSandbox(cluster, 'v0.4.6');
    api.create(api.target('agents.x-k8s.io/v1alpha1', 'sandboxes', 'default'), { metadata: { name: 'kept' }, spec: { podTemplate: podTemplate(), replicas: 0 } });
    await expect.poll(() => (api.store.get('sandboxes.agents.x-k8s.io', 'default', 'kept')?.status as { conditions?: unknown[] })?.conditions?.length).toBe(1);
    old.stop();

    const next = await installAgentSandbox(cluster, 'v0.5.4');
    try {
      const v1beta1 = api.target('agents.x-k8s.io/v1beta1', 'sandboxes', 'default');
      expect((api.get(v1beta1, 'kept').spec as { operatingMode: string }).operatingMode).toBe('Suspended');
      await expect
        .poll(() => ((api.get(v1beta1, 'kept').status as { conditions: { type: string; reason: string }[] }).conditions).find((c) => c.type === 'Suspended')?.reason)
        .toBe('PodTerminated');
      expect(api.store.get('pods', 'default', 'kept')).toBeUndefined();
      api.patch(v1beta1, 'kept', 'merge', { spec: { operatingMode: 'Running' } });
      await expect.poll(() => api.store.get('pods', 'default', 'kept')?.metadata.ownerReferences?.[0].apiVersion).toBe('agents.x-k8s.io/v1beta1');
    } finally {
      next.stop();
    }
  });
});

test('the real upstream v0.5.0 CRD works with the v0.5.0 controller', async () => {
  const upstream = upstreamManifests('v0.5.0');
  test.skip(!!upstream.missing, upstream.missing);
  const crd = sandboxCrdOf(upstream.paths['v0.5.0']) as KubeObject;
  const namespace = manifestDocuments(upstream.paths['v0.5.0']).find((d) => d.kind === 'Namespace')! as KubeObject;
  await withCluster(async (cluster) => {
    const { api } = cluster;
    api.create(api.target('v1', 'namespaces'), namespace);
    api.create(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), crd);
    await waitForCrdEstablished(api, CRD);
    const controller = new AgentSandboxController(api, AGENT_SANDBOX_PROFILES['v0.5.0']);
    try {
      const v1beta1 = api.target('agents.x-k8s.io/v1beta1', 'sandboxes', 'default');
      api.create(v1beta1, { metadata: { name: 'upstream' }, spec: { service: true, podTemplate: podTemplate() } });
      await expect.poll(() => !!api.store.get('pods', 'default', 'upstream')).toBe(true);
      runPod(cluster, 'upstream');
      const conditions = () => ((api.get(v1beta1, 'upstream').status ?? {}) as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions ?? [];
      await expect.poll(() => conditions().map((c) => [c.type, c.status, c.reason, c.message])).toEqual([['Ready', 'True', 'DependenciesReady', 'Pod is Ready; Service Exists']]);

      // Suspend through the deprecated v1alpha1, converted by the webhook the upstream CRD names.
      api.patch(api.target('agents.x-k8s.io/v1alpha1', 'sandboxes', 'default'), 'upstream', 'merge', { spec: { replicas: 0 } });
      await expect.poll(() => api.store.get('pods', 'default', 'upstream')).toBeUndefined();
      await expect.poll(() => conditions().map((c) => [c.type, c.status, c.reason])).toEqual([
        ['Ready', 'False', 'SandboxSuspended'],
        ['Suspended', 'True', 'PodTerminated'],
      ]);
      expect(api.store.get('services', 'default', 'upstream')).toBeDefined();
    } finally {
      controller.stop();
    }
  });
});
