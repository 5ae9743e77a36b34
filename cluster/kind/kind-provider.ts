import { KubeConfig } from '@kubernetes/client-node';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveAgentSandboxManifest, type ManifestOptions } from '../manifests/agent-sandbox-manifests.ts';
import type { ClusterHandle, ClusterProvider, ClusterRequest, ProviderOptions } from '../cluster-provider.ts';
import { KIND_NOT_FOUND, KUBECTL_NOT_FOUND, kindAvailability, kubectlCommand, type KindAvailability } from './availability.ts';
import { COMMAND_TIMEOUTS_MS, CommandError, Commands, type Timeouts } from './commands.ts';
import { buildAndLoadFixtureImages } from './fixture-images.ts';
import { installAgentSandbox } from './agent-sandbox-install.ts';
import { KIND_NODE_IMAGE } from './pins.ts';

export { DOCKER_NOT_FOUND, KIND_NOT_FOUND, KUBECTL_NOT_FOUND, kindTooOld } from './availability.ts';
export { KIND_NODE_IMAGE, KIND_VERSION } from './pins.ts';

/** The cluster configuration passed to `kind create cluster --config`. */
export const KIND_CONFIG = fileURLToPath(new URL('./kind-config.yaml', import.meta.url));

/** The kind cluster of a lane: one per lane, so lanes can run side by side and be kept apart. */
export function kindClusterName(request: Pick<ClusterRequest, 'lane'>): string {
  return `sandbox-conformance-${request.lane}`;
}

export interface KindProviderOptions {
  /** Environment for the kind, docker and kubectl processes (merged over process.env); tests put stubs first on PATH. */
  env?: Record<string, string | undefined>;
  /** The node image (default KIND_NODE_IMAGE). */
  nodeImage?: string;
  /** The kind cluster config (default cluster/kind/kind-config.yaml). */
  configPath?: string;
  /** Where the Agent Sandbox manifests come from (default: AGENT_SANDBOX_MANIFESTS, the cache, a download). */
  manifests?: ManifestOptions;
  /** Deadlines per kind of step (default COMMAND_TIMEOUTS_MS). */
  timeouts?: Partial<Timeouts>;
  /** Between two looks at the Sandbox CRD's caBundle (default 2 s). */
  pollMs?: number;
}

/**
 * A kind cluster per lane, driven through the kind, docker and kubectl CLIs: get-or-create
 * (a kept cluster is reused only while its API server answers /readyz), the fixture images
 * built and loaded into the node, and the lane's Agent Sandbox release installed from its
 * verified manifest. Every kind command that writes a kubeconfig writes the run's own file
 * (--kubeconfig), never the user's kubeconfig or current context.
 */
export class KindProvider implements ClusterProvider {
  readonly name = 'kind' as const;
  readonly nodeImage: string;
  readonly configPath: string;
  private readonly env: Record<string, string | undefined>;
  private readonly commands: Commands;

  constructor(private readonly options: KindProviderOptions = {}) {
    this.nodeImage = options.nodeImage ?? KIND_NODE_IMAGE;
    this.configPath = options.configPath ?? KIND_CONFIG;
    this.env = { ...process.env, ...options.env };
    this.commands = new Commands(this.env, { ...COMMAND_TIMEOUTS_MS, ...options.timeouts });
  }

  private get kubectl(): string {
    return kubectlCommand(this.env);
  }

  private kind(commands: Commands, step: string, args: string[], limit: keyof Timeouts, onLine?: (line: string) => void): Promise<string> {
    return commands.run('kind', args, { step, limit, notFound: KIND_NOT_FOUND, onLine });
  }

  /** The kind CLI (new enough), a running Docker daemon and kubectl, each checked without changing anything. */
  availability(): Promise<KindAvailability> {
    return kindAvailability(this.commands, this.kubectl);
  }

  async up(request: ClusterRequest, options: ProviderOptions): Promise<ClusterHandle> {
    const { workDir, progress } = options;
    const commands = this.commands.stoppedBy(options.signal);
    const name = kindClusterName(request);
    const availability = await this.availability();
    if (!availability.ok) throw new Error(availability.missing.map((p) => p.message).join('\n'));

    // Before anything is created: a manifest that cannot be had stops here.
    const { version } = request.agentSandbox;
    let manifestPath: string;
    try {
      manifestPath = await resolveAgentSandboxManifest(version, { ...this.options.manifests, progress: (line) => progress(`kind: ${line}`) });
    } catch (error) {
      throw new Error(`lane ${request.lane} needs Agent Sandbox ${version}: ${(error as Error).message}`);
    }

    await mkdir(workDir, { recursive: true });
    const kubeconfigPath = join(workDir, `${name}.kubeconfig`);
    const handle = (context?: string): ClusterHandle => ({
      provider: 'kind',
      lane: request.lane,
      name,
      kubeconfigPath,
      context,
      // The pinned node image is Kubernetes 1.32: ValidatingAdmissionPolicy is GA there (1.30).
      capabilities: ['admission-policy'],
      lacks: [],
    });

    const reuse = await this.reusable(commands, name, kubeconfigPath, progress);
    // From here on a cluster exists or is being created: Ctrl-C must be able to delete it.
    options.onCluster?.(handle());
    let created = false;
    try {
      if (!reuse) {
        progress(`kind: creating cluster ${name} (node image ${this.nodeImage}, config ${this.configPath})`);
        created = true;
        await this.kind(
          commands,
          `create the kind cluster ${name}`,
          ['create', 'cluster', '--name', name, '--image', this.nodeImage, '--config', this.configPath, '--kubeconfig', kubeconfigPath, '--wait', '120s'],
          'create',
          (line) => progress(`kind: ${line.trim()}`),
        );
      }
      const kc = new KubeConfig();
      kc.loadFromString(await readFile(kubeconfigPath, 'utf8'));
      const context = kc.getCurrentContext() || undefined;
      await buildAndLoadFixtureImages(commands, request.images, name, progress);
      await installAgentSandbox(commands, { kubectl: this.kubectl, kubeconfigPath, context, version, manifestPath, pollMs: this.options.pollMs }, progress);
      progress(`kind: cluster ${name} ready with Agent Sandbox ${version}`);
      return handle(context);
    } catch (error) {
      // Interrupted: whoever stopped us tears the cluster down (it was registered above).
      if (options.signal?.aborted) throw error;
      const createFailed = created && !(await this.listed(name));
      throw new Error(`${(error as Error).message}${await this.cleanUpAfterFailure(handle(), options, !createFailed)}`);
    }
  }

  /** Whether `kind get clusters` lists `name`. */
  private async listed(name: string): Promise<boolean> {
    const out = await this.kind(this.commands, 'list the kind clusters', ['get', 'clusters'], 'probe').catch(() => '');
    return out.split('\n').map((l) => l.trim()).includes(name);
  }

  /**
   * Whether the lane's cluster exists and answers: then its kubeconfig is exported to the run's
   * file and it is reused. A listed cluster whose API server does not answer /readyz (stopped
   * Docker, a half-deleted node) is deleted, so the caller creates it afresh.
   */
  private async reusable(commands: Commands, name: string, kubeconfigPath: string, progress: (line: string) => void): Promise<boolean> {
    if (!(await this.listed(name))) return false;
    try {
      await this.kind(commands, `export the kubeconfig of ${name}`, ['export', 'kubeconfig', '--name', name, '--kubeconfig', kubeconfigPath], 'probe');
      await commands.run(this.kubectl, ['--kubeconfig', kubeconfigPath, 'get', '--raw', '/readyz'], { step: `check that ${name} is ready`, limit: 'probe', notFound: KUBECTL_NOT_FOUND });
      progress(`kind: reusing cluster ${name} (it already exists and is ready; delete it with \`kind delete cluster --name ${name}\` for a fresh one)`);
      return true;
    } catch (error) {
      if (error instanceof CommandError && error.notFound) throw error;
      const why = (error as Error).message.split('\n').slice(-1)[0];
      progress(`kind: cluster ${name} exists but does not answer /readyz (${why}); deleting it to create it afresh`);
      await this.kind(commands, `delete the unready cluster ${name}`, ['delete', 'cluster', '--name', name, '--kubeconfig', kubeconfigPath], 'delete');
      return false;
    }
  }

  /**
   * After up() failed: when the cluster exists, its logs to `<reportDir or workDir>/cluster-logs/`,
   * then delete it unless --keep; when `kind create` itself failed, delete whatever it left.
   * Returns what to add to the error message.
   */
  private async cleanUpAfterFailure(handle: ClusterHandle, options: ProviderOptions, exists: boolean): Promise<string> {
    const deleteIt = () =>
      this.down(handle, { ...options, keep: false }).then(
        () => `deleted cluster ${handle.name}`,
        (e: Error) => `could not delete cluster ${handle.name}: ${e.message}`,
      );
    // kind removes what a failed create made, but not after being stopped mid-way: make sure.
    if (!exists) return `\n${await deleteIt()}`;
    const dir = join(options.reportDir ?? options.workDir, 'cluster-logs');
    options.progress(`kind: exporting the logs of ${handle.name} to ${dir}`);
    const logs = await this.exportLogs(handle, dir).then(
      () => `cluster logs: ${dir}`,
      (e: Error) => `could not export the cluster logs: ${e.message}`,
    );
    const kept = `kept cluster ${handle.name} (--keep); kubeconfig ${handle.kubeconfigPath}; delete it with \`kind delete cluster --name ${handle.name}\``;
    return `\n${logs}\n${options.keep ? kept : await deleteIt()}`;
  }

  async down(handle: ClusterHandle, { keep, progress }: ProviderOptions): Promise<void> {
    if (keep) {
      progress(`kind: keeping cluster ${handle.name} (--keep); kubeconfig ${handle.kubeconfigPath}; delete it with \`kind delete cluster --name ${handle.name}\``);
      return;
    }
    progress(`kind: deleting cluster ${handle.name}`);
    await this.kind(this.commands, `delete the kind cluster ${handle.name}`, ['delete', 'cluster', '--name', handle.name, '--kubeconfig', handle.kubeconfigPath], 'delete');
  }

  async exportLogs(handle: ClusterHandle, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await this.kind(this.commands, `export the logs of ${handle.name}`, ['export', 'logs', dir, '--name', handle.name], 'logs');
  }
}
