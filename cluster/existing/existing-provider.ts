import { AdmissionregistrationV1Api, ApiextensionsV1Api, KubeConfig, Observable, VersionApi, type ConfigurationOptions, type ObservableMiddleware, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { ClusterHandle, ClusterProvider, ClusterRequest, Lack, ProviderOptions } from '../cluster-provider.ts';

const SANDBOX_CRD_NAME = 'sandboxes.agents.x-k8s.io';

/**
 * What the cluster lacks of the harness's fault injection, from the resources
 * admissionregistration.k8s.io/v1 serves (undefined when that group version is not served):
 * ValidatingAdmissionPolicy and its binding, GA in Kubernetes 1.30.
 */
export function admissionPolicyLacks(served: readonly string[] | undefined, serverVersion: string): Lack[] {
  if (served?.includes('validatingadmissionpolicies') && served.includes('validatingadmissionpolicybindings')) return [];
  return [{ capability: 'admission-policy', reason: `Kubernetes ${serverVersion} does not serve admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (GA in 1.30), which the harness injects faults with` }];
}

export interface ExistingProviderOptions {
  /** The kubeconfig to use; default: $KUBECONFIG (every file it lists, merged as kubectl does), else ~/.kube/config. */
  kubeconfigPath?: string;
  /** The context to use; default: the kubeconfig's current-context. */
  context?: string;
  /** How long the API server has to answer /version and the CRD lookup (default 5 s). */
  timeoutMs?: number;
  /** Where $KUBECONFIG and $HOME come from (default process.env). */
  env?: Record<string, string | undefined>;
}

/** Aborts each request of one API call after `ms`, so an unreachable server fails fast. */
function timeout(ms: number): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (context: RequestContext) => {
      context.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}

function reason(error: unknown, ms: number): string {
  const e = error as { name?: string; type?: string; message?: string; code?: number; body?: unknown };
  if (e?.name === 'AbortError' || e?.type === 'aborted' || e?.name === 'TimeoutError') return `no answer within ${ms} ms`;
  if (typeof e?.code === 'number') {
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // not a Status object: show it as it came
    }
    return `HTTP ${e.code}${message ? `: ${message}` : ''}`;
  }
  return e?.message ?? String(error);
}

/**
 * The cluster the user already has (current KUBECONFIG and context, or a given file and
 * context), with Agent Sandbox installed by the user. It is checked, never changed: the
 * provider creates and deletes nothing (the scenarios only create and delete their own test
 * namespaces), and down() leaves the cluster as it was.
 */
export class ExistingProvider implements ClusterProvider {
  readonly name = 'existing' as const;

  constructor(private readonly options: ExistingProviderOptions = {}) {}

  /** The kubeconfig files to read, as kubectl would pick them. */
  kubeconfigFiles(): string[] {
    if (this.options.kubeconfigPath) return [resolve(this.options.kubeconfigPath)];
    const env = this.options.env ?? process.env;
    const listed = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
    if (listed.length) return listed.map((p) => resolve(p));
    return [join(env.HOME ?? homedir(), '.kube', 'config')];
  }

  async up(request: ClusterRequest, { workDir, progress }: ProviderOptions): Promise<ClusterHandle> {
    const ms = this.options.timeoutMs ?? 5_000;
    const files = this.kubeconfigFiles();
    for (const file of files) if (!existsSync(file)) throw new Error(`kubeconfig ${file} does not exist`);

    const kc = new KubeConfig();
    let kubeconfigPath = files[0];
    if (files.length === 1) {
      kc.loadFromFile(kubeconfigPath);
    } else {
      // Several files in $KUBECONFIG: merged (the first file's current-context wins, as with
      // kubectl) and written as one file for the scenarios.
      kc.loadFromFile(files[0]);
      for (const file of files.slice(1)) {
        const more = new KubeConfig();
        more.loadFromFile(file);
        kc.mergeConfig(more, true);
      }
      await mkdir(workDir, { recursive: true });
      kubeconfigPath = join(workDir, 'existing.kubeconfig');
      await writeFile(kubeconfigPath, kc.exportConfig(), { mode: 0o600 });
      progress(`existing: merged ${files.join(delimiter)} into ${kubeconfigPath}`);
    }
    const shownPath = files.join(delimiter);
    const context = this.options.context ?? kc.getCurrentContext();
    if (!context) throw new Error(`kubeconfig ${shownPath} has no current-context; pass a context (contexts: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    if (!kc.getContextObject(context)) {
      throw new Error(`kubeconfig ${shownPath} has no context "${context}"; contexts: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'}`);
    }
    kc.setCurrentContext(context);
    const where = `the cluster in ${shownPath} (context ${context})`;
    progress(`existing: checking ${where} at ${kc.getCurrentCluster()?.server ?? 'an unknown server'}`);

    let serverVersion: string;
    try {
      const version = await kc.makeApiClient(VersionApi).getCode({}, timeout(ms));
      serverVersion = version.gitVersion;
    } catch (error) {
      throw new Error(`${where} is unreachable: ${reason(error, ms)}`);
    }
    progress(`existing: reached Kubernetes ${serverVersion}`);

    const { version, manifest, apiVersion } = request.agentSandbox;
    const install = `install Agent Sandbox ${version} for lane ${request.lane} with: kubectl --context ${context} apply -f ${manifest}`;
    let served: string[];
    try {
      const crd = await kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: SANDBOX_CRD_NAME }, timeout(ms));
      served = crd.spec.versions.filter((v) => v.served).map((v) => v.name);
    } catch (error) {
      if ((error as { code?: unknown }).code === 404) throw new Error(`Agent Sandbox is not installed in ${where}: CustomResourceDefinition ${SANDBOX_CRD_NAME} was not found; ${install}`);
      throw new Error(`could not read CustomResourceDefinition ${SANDBOX_CRD_NAME} in ${where}: ${reason(error, ms)}`);
    }
    // The driver prefers v1beta1 whenever it is served; a v1alpha1 lane needs a release that serves v1alpha1 only.
    const preferred = served.includes('v1beta1') ? 'v1beta1' : served.includes('v1alpha1') ? 'v1alpha1' : served[0];
    if (preferred !== apiVersion) {
      throw new Error(
        `the Agent Sandbox installed in ${where} serves ${served.join(', ') || 'no version'} of ${SANDBOX_CRD_NAME}, so the driver would use ${preferred ?? 'none'}; lane ${request.lane} tests ${apiVersion}: ${install}`,
      );
    }
    progress(`existing: ${SANDBOX_CRD_NAME} serves ${served.join(', ')}; lane ${request.lane} uses ${apiVersion}`);

    const admission = await kc
      .makeApiClient(AdmissionregistrationV1Api)
      .getAPIResources({}, timeout(ms))
      .then((list) => list.resources.map((r) => r.name), (error: unknown) => {
        if ((error as { code?: unknown }).code === 404) return undefined;
        throw new Error(`could not read the admissionregistration.k8s.io/v1 resources of ${where}: ${reason(error, ms)}`);
      });
    const lacks = admissionPolicyLacks(admission, serverVersion);
    for (const lack of lacks) progress(`existing: lacks ${lack.capability}: ${lack.reason}`);

    return {
      provider: 'existing',
      lane: request.lane,
      name: context,
      kubeconfigPath,
      context,
      capabilities: lacks.length ? [] : ['admission-policy'],
      lacks,
    };
  }

  /** Nothing to tear down: the cluster is the user's. */
  async down(handle: ClusterHandle, { progress }: ProviderOptions): Promise<void> {
    progress(`existing: leaving ${handle.name} as it was`);
  }
}
