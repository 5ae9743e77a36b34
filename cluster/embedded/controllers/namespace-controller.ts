import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { Controller } from './controller-base.ts';

/**
 * Empties a Terminating namespace, then finalizes it: every namespaced object in it is
 * deleted (graceful Pods wait for their node), and once nothing is left the `kubernetes`
 * spec finalizer is removed, which lets the Namespace object go.
 * Also gives every new namespace its `default` ServiceAccount, as the service account
 * controller does.
 */
export class NamespaceController extends Controller {
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi) {
    super('namespace-controller');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => {
      if (event.resource === 'namespaces') this.enqueue(event.object.metadata.name!);
      else if (event.type === 'DELETED' && event.object.metadata.namespace) this.enqueue(event.object.metadata.namespace);
    });
    for (const ns of api.store.list('namespaces')) this.enqueue(ns.metadata.name!);
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  protected override reconcile(name: string): number | void {
    const ns = this.api.store.get('namespaces', undefined, name);
    if (!ns) return;
    if (!ns.metadata.deletionTimestamp) return this.ensureDefaultServiceAccount(name);
    let remaining = 0;
    for (const resource of this.api.store.resources()) {
      const target = this.api.targetForKey(resource, name);
      if (!target?.type.namespaced) continue;
      for (const object of this.api.store.list(resource, name)) {
        remaining++;
        if (object.metadata.deletionTimestamp) continue;
        try {
          this.api.delete(target, object.metadata.name!, { propagationPolicy: 'Background' });
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 404)) throw error;
        }
      }
    }
    if (remaining > 0) return 100;
    const target = this.api.target('v1', 'namespaces');
    this.api.update(target, name, { ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
  }

  private ensureDefaultServiceAccount(namespace: string): void {
    if (this.api.store.get('serviceaccounts', namespace, 'default')) return;
    try {
      this.api.create(this.api.target('v1', 'serviceaccounts', namespace), { metadata: { name: 'default' } });
    } catch (error) {
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 403))) throw error;
    }
  }
}
