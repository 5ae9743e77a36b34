import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../compute-driver.ts';
import type { KubernetesDriverConfig } from './config.ts';
import type { LifecycleGates } from './gates.ts';
import { asDriverError, isConflict, type Kube, type KubeObject } from './kube.ts';
import { LABEL, MANAGED_BY } from './names.ts';

const AGENT_SANDBOX_GROUP = 'agents.x-k8s.io';
const PREFERRED_VERSIONS = ['v1beta1', 'v1alpha1'];

/** What every driver operation shares: configuration, client, gates, and the detected API version. */
export class DriverContext {
  private apiVersion?: Promise<string>;

  constructor(
    readonly config: KubernetesDriverConfig,
    readonly kube: Kube,
    readonly gates: LifecycleGates,
    readonly log: (line: string) => void,
  ) {}

  /** The Agent Sandbox API version to use: v1beta1, else v1alpha1; detected once and cached. */
  sandboxApiVersion(): Promise<string> {
    this.apiVersion ??= (async () => {
      let served: string[];
      try {
        served = await this.kube.groupVersions(AGENT_SANDBOX_GROUP);
      } catch (error) {
        throw asDriverError(error, 'detecting the Agent Sandbox API');
      }
      const version = PREFERRED_VERSIONS.find((v) => served.includes(v));
      if (!version) throw new DriverError('FAILED_PRECONDITION', `no supported Agent Sandbox API version is available; tried ${PREFERRED_VERSIONS.join(', ')}`);
      return `${AGENT_SANDBOX_GROUP}/${version}`;
    })();
    this.apiVersion.catch(() => (this.apiVersion = undefined));
    return this.apiVersion;
  }

  selector(id?: string): string {
    return [`${LABEL.managedBy}=${MANAGED_BY}`, ...(id ? [`${LABEL.sandboxId}=${id}`] : []), `${LABEL.gatewayId}=${this.config.gatewayId}`].join(',');
  }

  /** Every Sandbox CR this driver manages, in every namespace it may use. */
  async listSandboxes(id?: string): Promise<KubeObject[]> {
    const apiVersion = await this.sandboxApiVersion();
    const namespace = this.config.workspaceMode === 'shared' ? this.config.namespace : undefined;
    try {
      return await this.kube.list(apiVersion, 'Sandbox', namespace, this.selector(id));
    } catch (error) {
      throw asDriverError(error, 'listing Sandbox resources');
    }
  }

  async findSandbox(id: string): Promise<KubeObject> {
    if (!id) throw new DriverError('INVALID_ARGUMENT', 'sandbox_id is required');
    const found = await this.listSandboxes(id);
    if (found.length === 0) throw new DriverError('NOT_FOUND', `sandbox not found: no Sandbox resource carries ${LABEL.sandboxId}=${id}`);
    if (found.length > 1) throw new DriverError('FAILED_PRECONDITION', `multiple Kubernetes Sandbox resources match sandbox ${id}`);
    return found[0];
  }

  /**
   * A JSON merge patch carrying metadata.resourceVersion; on 409 Conflict re-reads and retries
   * within the API timeout, as OpenShell's driver does.
   */
  async patchSandbox(cr: KubeObject, build: (current: KubeObject) => Record<string, unknown>): Promise<KubeObject> {
    const deadline = Date.now() + this.config.apiHeadroomSeconds * 1000;
    let current = cr;
    for (let attempt = 0; ; attempt++) {
      const patch = build(current);
      const body = { ...patch, metadata: { ...(patch.metadata as object), resourceVersion: current.metadata!.resourceVersion } };
      try {
        return await this.kube.mergePatch(this.ref(current), body);
      } catch (error) {
        if (!isConflict(error)) throw asDriverError(error, `updating Sandbox ${current.metadata!.name}`);
        if (Date.now() > deadline) {
          throw new DriverError('UNAVAILABLE', `timed out after ${this.config.apiHeadroomSeconds}s updating Kubernetes resource ${current.metadata!.name}`);
        }
        await sleep(Math.min(50 * 2 ** attempt, 500));
        const fresh = await this.kube.get(this.ref(current));
        if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${current.metadata!.name} disappeared`);
        current = fresh;
      }
    }
  }

  ref(cr: KubeObject) {
    return { apiVersion: cr.apiVersion!, kind: 'Sandbox', namespace: cr.metadata!.namespace, name: cr.metadata!.name! };
  }
}
