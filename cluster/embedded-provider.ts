import { join } from 'node:path';
import type { ClusterHandle, ClusterProvider, ClusterRequest, FixtureImage, ProviderOptions } from './cluster-provider.ts';
import { describeRealism } from './embedded/agent-sandbox/realism.ts';
import type { EmbeddedCluster } from './embedded/cluster.ts';
import type { ImageCatalog } from './embedded/node/images.ts';

/**
 * The embedded cluster as a provider: an in-process Kubernetes with its node agent (the fixture
 * images run as host processes) and the requested Agent Sandbox profile. It lives in the
 * process that calls up() — the lane command — outside Playwright's workers, which restart
 * after every failure. The adapter between requests and the self-contained cluster, which
 * itself knows nothing outside cluster/embedded/.
 */
export class EmbeddedProvider implements ClusterProvider {
  readonly name = 'embedded' as const;
  private readonly clusters = new Map<string, EmbeddedCluster>();

  async up(request: ClusterRequest, options: ProviderOptions): Promise<ClusterHandle> {
    const kubeconfigPath = join(options.workDir, 'kubeconfig');
    options.progress(`embedded: starting the API server, controllers and node agent; installing Agent Sandbox ${request.agentSandbox.version} (profile)`);
    // Loaded when a cluster is brought up, not with the provider: the embedded Kubernetes is most
    // of what `npm run lane` would load, and its --help, --list and bad usage need none of it.
    const { EmbeddedCluster } = await import('./embedded/cluster.ts');
    const cluster = await EmbeddedCluster.start({
      kubeconfigPath,
      node: { images: embeddedImageCatalog(request.images) },
      agentSandbox: request.agentSandbox.version,
      agentSandboxRealism: request.agentSandboxRealism,
    });
    this.clusters.set(request.lane, cluster);
    const realism = cluster.agentSandboxRealism!;
    // The seed is the run's (the lane runner prints it with what it drives); not repeated here.
    options.progress(`embedded: ready at ${cluster.url}; Agent Sandbox ${request.agentSandbox.version} controller: ${describeRealism(realism)}`);
    return {
      provider: 'embedded',
      lane: request.lane,
      name: `embedded-${request.lane}`,
      kubeconfigPath,
      capabilities: ['admission-policy'],
      lacks: [],
      agentSandboxRealism: describeRealism(realism),
    };
  }

  async down(handle: ClusterHandle): Promise<void> {
    const cluster = this.clusters.get(handle.lane);
    this.clusters.delete(handle.lane);
    await cluster?.stop();
  }
}

/**
 * The embedded node's view of fixture images: each repository (any tag, so a Pod naming
 * `:latest` still finds the program) runs its entrypoint as a host command.
 */
export function embeddedImageCatalog(images: readonly FixtureImage[]): ImageCatalog {
  return Object.fromEntries(images.map(({ image, entrypoint }) => [repository(image), { entrypoint }]));
}

/** `repo` of `repo:tag` (a port in the registry host, `host:5000/repo`, is not a tag). */
function repository(image: string): string {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(0, colon) : image;
}
