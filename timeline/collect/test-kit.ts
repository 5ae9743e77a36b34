/**
 * The kit for the collect room's own tests: `live`, one embedded cluster per worker with a node
 * agent and Agent Sandbox v0.5.0 (realism off: these tests are about what is recorded, not the
 * controller's timing), the client's kubeconfig for it, and a namespace per test file.
 */
import { test as base } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';

export interface LiveCluster {
  cluster: EmbeddedCluster;
  kubeconfig: k8s.KubeConfig;
}

export const test = base.extend<{}, { live: LiveCluster }>({
  live: [
    async ({}, use) => {
      const cluster = await EmbeddedCluster.start({ node: {}, agentSandbox: 'v0.5.0', agentSandboxRealism: { enabled: false } });
      try {
        const kubeconfig = new k8s.KubeConfig();
        kubeconfig.loadFromString(cluster.kubeconfig());
        await use({ cluster, kubeconfig });
      } finally {
        await cluster.stop();
      }
    },
    { scope: 'worker' },
  ],
});

/** Creates namespace `name` in the live cluster unless it is there already. */
export function ensureNamespace({ cluster }: LiveCluster, name: string): void {
  const namespaces = cluster.api.target('v1', 'namespaces');
  if (!cluster.api.list(namespaces, { fieldSelector: `metadata.name=${name}` }).items.length) cluster.api.create(namespaces, { metadata: { name } });
}

export { expect } from '@playwright/test';
