import { DriverError } from '../compute-driver.ts';
import type { KubernetesDriverConfig } from './config.ts';
import type { LifecycleGates } from './gates.ts';
import { CallScope } from './call-scope.ts';
import { asDriverError, type Kube, type KubeObject } from './kube.ts';
import { LABEL, MANAGED_BY } from './names.ts';

const AGENT_SANDBOX_GROUP = 'agents.x-k8s.io';
const PREFERRED_VERSIONS = ['v1beta1', 'v1alpha1'];

/** The labels of the objects a driver manages (with `id`: one sandbox's): its lists and watches select by them. */
export function driverSelector(config: KubernetesDriverConfig, id?: string): string {
  return [`${LABEL.managedBy}=${MANAGED_BY}`, ...(id ? [`${LABEL.sandboxId}=${id}`] : []), `${LABEL.gatewayId}=${config.gatewayId}`].join(',');
}

/**
 * What every driver operation shares: configuration, client, gates, the detected API version —
 * and the call it runs for (its deadline, signal and stage; reconciliation runs unbounded).
 */
export class DriverContext {
  constructor(
    readonly config: KubernetesDriverConfig,
    readonly kube: Kube,
    readonly gates: LifecycleGates,
    readonly log: (line: string) => void,
    readonly call: CallScope = new CallScope('driver'),
    /** Shared by every call of one driver: discovery runs once, unbound to any one call's deadline. */
    private readonly shared: { apiVersion?: Promise<string>; discovery: Kube } = { discovery: kube },
  ) {}

  /** The same driver, working for `call`: its requests and waits end when the call does. */
  forCall(call: CallScope): DriverContext {
    return new DriverContext(this.config, this.kube.forCall(call), this.gates, this.log, call, this.shared);
  }

  /** The Agent Sandbox API version to use: v1beta1, else v1alpha1; detected once and cached. */
  sandboxApiVersion(): Promise<string> {
    this.shared.apiVersion ??= (async () => {
      let served: string[];
      try {
        served = await this.shared.discovery.groupVersions(AGENT_SANDBOX_GROUP);
      } catch (error) {
        throw asDriverError(error, 'detecting the Agent Sandbox API');
      }
      const version = PREFERRED_VERSIONS.find((v) => served.includes(v));
      if (!version) throw new DriverError('FAILED_PRECONDITION', `no supported Agent Sandbox API version is available; tried ${PREFERRED_VERSIONS.join(', ')}`);
      return `${AGENT_SANDBOX_GROUP}/${version}`;
    })();
    this.shared.apiVersion.catch(() => (this.shared.apiVersion = undefined));
    return this.call.race(this.shared.apiVersion);
  }

  selector(id?: string): string {
    return driverSelector(this.config, id);
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

  ref(cr: KubeObject) {
    return { apiVersion: cr.apiVersion!, kind: 'Sandbox', namespace: cr.metadata!.namespace, name: cr.metadata!.name! };
  }
}
