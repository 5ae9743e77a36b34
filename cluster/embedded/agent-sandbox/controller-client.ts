/**
 * What the controller sees of the API server, as controller-runtime's default client gives it:
 * reads come from the informer cache (possibly stale), writes go to the API server with the
 * controller's field manager. An optional FaultInjector of its own fails the controller's
 * requests (reads included, as if the cache read failed), so tests can make exactly the
 * controller's Pod delete or annotation patch fail without touching clients' requests.
 */
import type { FaultInjector } from './controller-request-faults.ts';
import type { ObjectApi, Target, WriteOptions } from '../registry/object-api.ts';
import type { KubeObject } from '../types.ts';
import type { CachedResource, InformerCache } from './informer-cache.ts';
import { FIELD_MANAGER, GROUP, SANDBOXES_KEY } from './agent-sandbox-names.ts';

export type ChildResource = 'pods' | 'services' | 'persistentvolumeclaims';

export class ControllerClient {
  constructor(
    private readonly api: ObjectApi,
    private readonly cache: InformerCache,
    /** The Sandbox version this release reads and writes (v1alpha1 at v0.4.6, v1beta1 after). */
    readonly sandboxes: (namespace: string) => Target,
    private readonly faults?: FaultInjector,
  ) {}

  children(resource: ChildResource, namespace: string): Target {
    return this.api.target('v1', resource, namespace);
  }

  /** A cached read in the version the target names; undefined = NotFound. */
  get(target: Target, name: string): KubeObject | undefined {
    this.check('get', target, name);
    const object = this.cache.get(this.resourceOf(target), target.namespace, name);
    return object && this.api.present(target, object);
  }

  list(target: Target, labels: Record<string, string>): KubeObject[] {
    this.check('list', target);
    return this.cache.list(this.resourceOf(target), target.namespace!, labels).map((o) => this.api.present(target, o));
  }

  create(target: Target, body: KubeObject): KubeObject {
    this.check('create', target, body.metadata.name);
    return this.api.create(target, body, { fieldManager: FIELD_MANAGER }).object;
  }

  update(target: Target, name: string, body: KubeObject, options: WriteOptions = {}): KubeObject {
    this.check('update', target, name, options.subresource);
    return this.api.update(target, name, body, { ...options, fieldManager: FIELD_MANAGER }).object;
  }

  /** A JSON merge patch without a resourceVersion precondition (client.MergeFrom). */
  patch(target: Target, name: string, body: Record<string, unknown>, options: WriteOptions = {}): KubeObject {
    this.check('patch', target, name, options.subresource);
    return this.api.patch(target, name, 'merge', body, { ...options, fieldManager: FIELD_MANAGER }).object;
  }

  delete(target: Target, name: string): void {
    this.check('delete', target, name);
    this.api.delete(target, name);
  }

  private resourceOf(target: Target): CachedResource {
    return (target.type.group === GROUP ? SANDBOXES_KEY : target.type.plural) as CachedResource;
  }

  private check(verb: string, target: Target, name?: string, subresource?: string): void {
    if (!this.faults) return;
    const { error } = this.faults.take({ verb, group: target.type.group, plural: target.type.plural, subresource, namespace: target.namespace, name });
    if (error) throw error;
  }
}
