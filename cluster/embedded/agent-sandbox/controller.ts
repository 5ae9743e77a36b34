import { ApiError } from '../errors.ts';
import { Controller } from '../controllers/controller.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { controllerRef } from './children.ts';
import { GROUP, NAME_HASH_LABEL, SANDBOXES_KEY } from './names.ts';
import type { AgentSandboxProfile } from './profiles.ts';
import { SandboxReconcile } from './reconcile.ts';

export interface AgentSandboxControllerOptions {
  /** `--cluster-domain`: the suffix of status.serviceFQDN. */
  clusterDomain?: string;
}

/**
 * The Agent Sandbox core controller (sandbox-controller) of one release, in-process. Wiring as
 * upstream (reference §2.1): For(Sandbox), Owns(Pod) and Owns(Service) filtered to objects that
 * carry the name-hash label; PVCs are not watched. Keys are `namespace/name` of Sandboxes; one
 * reconcile is in reconcile.ts and what differs between releases is in profiles.ts.
 */
export class AgentSandboxController extends Controller {
  private readonly unsubscribe: () => void;
  private readonly clusterDomain: string;
  /** Completed reconciles: lets tests tell "looked and did nothing" from "has not looked yet". */
  reconcileCount = 0;

  constructor(
    private readonly api: ObjectApi,
    readonly profile: AgentSandboxProfile,
    options: AgentSandboxControllerOptions = {},
  ) {
    super(`agent-sandbox-controller@${profile.version}`);
    this.clusterDomain = options.clusterDomain ?? 'cluster.local';
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => this.observe(event));
    // The initial list of an informer: Sandboxes that exist before the controller starts.
    for (const sandbox of api.store.list(SANDBOXES_KEY)) this.enqueue(keyOf(sandbox));
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  private observe(event: StoreEvent): void {
    if (event.resource === SANDBOXES_KEY) {
      this.enqueue(keyOf(event.object));
      return;
    }
    if (event.resource !== 'pods' && event.resource !== 'services') return;
    for (const object of [event.object, event.previous]) {
      if (!object?.metadata.labels?.[NAME_HASH_LABEL]) continue;
      const ref = controllerRef(object);
      // controller-runtime's EnqueueRequestForOwner matches group and kind, not version.
      if (ref?.kind === 'Sandbox' && ref.apiVersion.startsWith(`${GROUP}/`)) this.enqueue(`${object.metadata.namespace}/${ref.name}`);
    }
  }

  protected override reconcile(key: string): number | void {
    try {
      return this.reconcileSandbox(key);
    } finally {
      this.reconcileCount++;
    }
  }

  private reconcileSandbox(key: string): number | void {
    const [namespace, name] = key.split('/');
    let sandbox: KubeObject;
    let target: Target;
    try {
      // 404 from target(): the CRD no longer serves this release's version (uninstalled); nothing to do.
      target = this.api.target(`${GROUP}/${this.profile.apiVersion}`, 'sandboxes', namespace);
      sandbox = this.api.get(target, name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return;
      throw error;
    }
    // No finalizers: a Sandbox being deleted is left to the garbage collector.
    if (sandbox.metadata.deletionTimestamp) return;
    return new SandboxReconcile(this.api, this.profile, target, sandbox, this.clusterDomain).run();
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}
