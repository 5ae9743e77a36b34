import { join } from 'node:path';
import type { Lane } from '../../lanes/lane.ts';
import type { ClusterHandle, ClusterProvider, ProviderOptions } from '../provider.ts';
import { fixtureImageCatalog } from '../../fixtures/images/catalog.ts';
import { EmbeddedCluster } from './cluster.ts';

/**
 * The embedded cluster as a lane provider: an in-process Kubernetes with its node agent (the
 * fixture images run as host processes) and the lane's Agent Sandbox profile. It lives in the
 * process that calls up() — the lane command — outside Playwright's workers, which restart
 * after every failure. The adapter between lanes and the self-contained cluster below it.
 */
export class EmbeddedProvider implements ClusterProvider {
  readonly name = 'embedded' as const;
  private readonly clusters = new Map<string, EmbeddedCluster>();

  async up(lane: Lane, options: ProviderOptions): Promise<ClusterHandle> {
    const kubeconfigPath = join(options.workDir, 'kubeconfig');
    options.progress(`embedded: starting the API server, controllers and node agent; installing Agent Sandbox ${lane.agentSandbox.version} (profile)`);
    const cluster = await EmbeddedCluster.start({ kubeconfigPath, node: { images: fixtureImageCatalog }, agentSandbox: lane.agentSandbox.version });
    this.clusters.set(lane.name, cluster);
    options.progress(`embedded: ready at ${cluster.url}`);
    return {
      provider: 'embedded',
      lane: lane.name,
      name: `embedded-${lane.name}`,
      kubeconfigPath,
      capabilities: ['fault-injection', 'external-driver-restart'],
      lacks: [],
      faults: { url: cluster.url, token: cluster.token, caCert: cluster.certificateAuthority },
    };
  }

  async down(handle: ClusterHandle): Promise<void> {
    const cluster = this.clusters.get(handle.lane);
    this.clusters.delete(handle.lane);
    await cluster?.stop();
  }
}
