import { KubeConfig } from '@kubernetes/client-node';
import { execa } from 'execa';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterHandle, ClusterProvider, ClusterRequest, ProviderOptions } from '../cluster-provider.ts';

/** The kind release the node image below was built for; CI installs this one (.github/workflows/conformance.yml). */
export const KIND_VERSION = 'v0.27.0';

/**
 * The kind node image every lane runs on: Kubernetes v1.32.2, as listed (tag and digest) in
 * the release notes of kind v0.27.0 (github.com/kubernetes-sigs/kind/releases/tag/v0.27.0).
 * The digest is the multi-arch manifest list, so it resolves on amd64 and arm64 alike. Newer
 * kind releases run it too (best effort, per kind's node image policy); when moving CI to a
 * newer kind, take the matching image from that release's notes.
 */
export const KIND_NODE_IMAGE = 'kindest/node:v1.32.2@sha256:f226345927d7e348497136874b6d207e0b32cc52154ad8323129352923a3142f';

/** The cluster configuration passed to `kind create cluster --config`. */
export const KIND_CONFIG = fileURLToPath(new URL('./kind-config.yaml', import.meta.url));

const SANDBOX_CRD = 'crd/sandboxes.agents.x-k8s.io';
const CONTROLLER_NAMESPACE = 'agent-sandbox-system';
const CONTROLLER_DEPLOYMENT = 'deploy/agent-sandbox-controller';

export const KIND_NOT_FOUND = 'the kind CLI was not found on PATH; install it (https://kind.sigs.k8s.io) or use --cluster embedded';
export const DOCKER_NOT_FOUND = 'the docker CLI was not found on PATH; kind runs its nodes as Docker containers: install Docker (https://docs.docker.com/engine/install/) or use --cluster embedded';
export const KUBECTL_NOT_FOUND = 'the kubectl CLI was not found on PATH; install it (https://kubernetes.io/docs/tasks/tools/) or use --cluster embedded';
export const NO_FAULT_INJECTION = 'kind clusters have no fault injection; scenarios that deny Secret deletion need the embedded cluster';

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
}

/** Something kind needs that is not there, with the message for the user. */
export interface KindProblem {
  what: 'kind' | 'docker' | 'docker-daemon';
  message: string;
}

/** Whether kind can run here: the kind CLI on PATH and a Docker daemon that answers. */
export type KindAvailability = { ok: true } | { ok: false; missing: KindProblem[] };

/** A failed or missing command, with what the user needs to see. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly notFound: boolean,
    /** The command's output (stdout and stderr, interleaved). */
    readonly output = '',
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

interface RunOptions {
  /** Each output line (stdout and stderr) as it arrives, e.g. kind's own progress. */
  onLine?: (line: string) => void;
  notFound: string;
}

/** The last lines of a failed command's output, enough to see why without flooding the report. */
function tail(text: string, lines = 20): string {
  const all = text.trim().split('\n').filter((l) => l.trim() !== '');
  return (all.length > lines ? ['…', ...all.slice(-lines)] : all).join('\n');
}

/**
 * A kind cluster per lane, driven through the kind, docker and kubectl CLIs: get-or-create
 * (safe to call again after a crash or with --keep), the fixture images built and loaded into
 * the node, and the lane's Agent Sandbox release installed from its manifest.
 */
export class KindProvider implements ClusterProvider {
  readonly name = 'kind' as const;
  readonly nodeImage: string;
  readonly configPath: string;

  constructor(private readonly options: KindProviderOptions = {}) {
    this.nodeImage = options.nodeImage ?? KIND_NODE_IMAGE;
    this.configPath = options.configPath ?? KIND_CONFIG;
  }

  private env(): Record<string, string | undefined> {
    return { ...process.env, ...this.options.env };
  }

  private async run(file: string, args: string[], options: RunOptions): Promise<string> {
    const child = execa(file, args, { reject: false, all: true, env: this.env(), extendEnv: false, stdin: 'ignore' });
    const onLine = options.onLine;
    if (onLine) {
      let partial = '';
      child.all?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) onLine(line.trimEnd());
      });
    }
    const result = await child;
    if ((result as { code?: string }).code === 'ENOENT') throw new CommandError(options.notFound, true);
    if (result.failed) {
      const output = String(result.all ?? '');
      const why = result.exitCode === undefined ? result.shortMessage : `exit code ${result.exitCode}`;
      throw new CommandError(`\`${file} ${args.join(' ')}\` failed (${why})${output.trim() ? `:\n${tail(output)}` : ''}`, false, output);
    }
    return String(result.stdout);
  }

  private kind(args: string[], onLine?: (line: string) => void): Promise<string> {
    return this.run('kind', args, { notFound: KIND_NOT_FOUND, onLine });
  }

  private docker(args: string[]): Promise<string> {
    return this.run('docker', args, { notFound: DOCKER_NOT_FOUND });
  }

  private kubectl(kubeconfigPath: string, context: string | undefined, args: string[]): Promise<string> {
    const target = ['--kubeconfig', kubeconfigPath, ...(context ? ['--context', context] : [])];
    return this.run('kubectl', [...target, ...args], { notFound: KUBECTL_NOT_FOUND });
  }

  /** The kind CLI and a running Docker daemon, both checked (without changing anything). */
  async availability(): Promise<KindAvailability> {
    const kind = await this.probeKind();
    const docker = await this.probeDocker();
    const missing = [kind, docker].filter((p): p is KindProblem => p !== undefined);
    return missing.length ? { ok: false, missing } : { ok: true };
  }

  private async probeKind(): Promise<KindProblem | undefined> {
    try {
      await this.kind(['version']);
      return undefined;
    } catch (error) {
      if (error instanceof CommandError && error.notFound) return { what: 'kind', message: KIND_NOT_FOUND };
      throw error;
    }
  }

  private async probeDocker(): Promise<KindProblem | undefined> {
    try {
      await this.docker(['info', '--format', '{{.ServerVersion}}']);
      return undefined;
    } catch (error) {
      if (error instanceof CommandError && error.notFound) return { what: 'docker', message: DOCKER_NOT_FOUND };
      const output = error instanceof CommandError ? error.output : String(error);
      const why = output.split('\n').map((l) => l.trim()).filter(Boolean).pop();
      return {
        what: 'docker-daemon',
        message: `no running Docker daemon was found (\`docker info\` failed${why ? `: ${why}` : ''}); kind runs its nodes as Docker containers: start Docker or use --cluster embedded`,
      };
    }
  }

  async up(request: ClusterRequest, { workDir, progress }: ProviderOptions): Promise<ClusterHandle> {
    const name = kindClusterName(request);
    const availability = await this.availability();
    if (!availability.ok) throw new Error(availability.missing.map((p) => p.message).join('\n'));

    const existing = (await this.kind(['get', 'clusters'])).split('\n').map((l) => l.trim());
    if (existing.includes(name)) {
      progress(`kind: reusing cluster ${name} (it already exists; delete it with \`kind delete cluster --name ${name}\` for a fresh one)`);
    } else {
      progress(`kind: creating cluster ${name} (node image ${this.nodeImage}, config ${this.configPath})`);
      await this.kind(['create', 'cluster', '--name', name, '--image', this.nodeImage, '--config', this.configPath, '--wait', '120s'], (line) =>
        progress(`kind: ${line.trim()}`),
      );
    }

    await mkdir(workDir, { recursive: true });
    const kubeconfigPath = join(workDir, `${name}.kubeconfig`);
    progress(`kind: writing the kubeconfig of ${name} to ${kubeconfigPath}`);
    const kubeconfig = await this.kind(['get', 'kubeconfig', '--name', name]);
    await writeFile(kubeconfigPath, kubeconfig.endsWith('\n') ? kubeconfig : `${kubeconfig}\n`, { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const context = kc.getCurrentContext() || undefined;

    for (const { image, buildContext } of request.images) {
      progress(`kind: building fixture image ${image} from ${buildContext}`);
      await this.docker(['build', '-t', image, buildContext]);
      progress(`kind: loading ${image} into ${name}`);
      await this.kind(['load', 'docker-image', image, '--name', name]);
    }

    const { version, manifest } = request.agentSandbox;
    progress(`kind: installing Agent Sandbox ${version} (kubectl apply -f ${manifest})`);
    await this.kubectl(kubeconfigPath, context, ['apply', '-f', manifest]);
    progress(`kind: waiting for ${SANDBOX_CRD} to be Established`);
    await this.kubectl(kubeconfigPath, context, ['wait', '--for=condition=Established', SANDBOX_CRD, '--timeout=120s']);
    progress(`kind: waiting for the rollout of ${CONTROLLER_NAMESPACE}/${CONTROLLER_DEPLOYMENT}`);
    await this.kubectl(kubeconfigPath, context, ['-n', CONTROLLER_NAMESPACE, 'rollout', 'status', CONTROLLER_DEPLOYMENT, '--timeout=180s']);
    progress(`kind: cluster ${name} ready with Agent Sandbox ${version}`);

    return {
      provider: 'kind',
      lane: request.lane,
      name,
      kubeconfigPath,
      context,
      capabilities: [],
      lacks: [{ capability: 'fault-injection', reason: NO_FAULT_INJECTION }],
    };
  }

  async down(handle: ClusterHandle, { keep, progress }: ProviderOptions): Promise<void> {
    if (keep) {
      progress(`kind: keeping cluster ${handle.name} (--keep); kubeconfig ${handle.kubeconfigPath}; delete it with \`kind delete cluster --name ${handle.name}\``);
      return;
    }
    progress(`kind: deleting cluster ${handle.name}`);
    await this.kind(['delete', 'cluster', '--name', handle.name]);
  }

  async exportLogs(handle: ClusterHandle, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await this.kind(['export', 'logs', dir, '--name', handle.name]);
  }
}
