import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import { CRD_CLEANUP_FINALIZER, crdSpec } from '../registry/builtin/custom-resource-definitions.ts';
import type { ConversionWebhooks } from '../registry/conversion-webhooks.ts';
import { customResourceType } from '../registry/custom-resource-type.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { resourceKey } from '../registry/resource-type.ts';
import { type KubeObject, metaTime } from '../types.ts';
import { Controller } from './controller-base.ts';

const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';

function condition(type: string, status: string, reason: string, message: string) {
  return { type, status, reason, message, lastTransitionTime: metaTime() };
}

/**
 * Serves what CRDs describe: accepts names (NamesAccepted), registers the resource
 * (Established), records storedVersions, and on deletion removes every custom object
 * before it releases the CRD's cleanup finalizer.
 */
export class CrdController extends Controller {
  private readonly unsubscribe: () => void;

  constructor(
    private readonly api: ObjectApi,
    private readonly webhooks: ConversionWebhooks,
  ) {
    super('crd-controller');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => {
      if (event.resource === CRDS) this.enqueue(event.object.metadata.name!);
    });
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  protected override reconcile(name: string): number | void {
    const crd = this.api.store.get(CRDS, undefined, name);
    if (!crd) return this.unregisterByName(name);
    const spec = crdSpec(crd);
    if (crd.metadata.deletionTimestamp) return this.cleanUp(crd);

    const clash = this.api.registry
      .all()
      .find((t) => t.group === spec.group && t.plural !== spec.names.plural && t.crdName !== name && t.kind === spec.names.kind);
    const sameName = this.api.registry.get(spec.group, spec.names.plural);
    const conflict = clash ?? (sameName && sameName.crdName !== name ? sameName : undefined);
    const status = (crd.status ?? {}) as { conditions?: { type: string; status: string }[]; storedVersions?: string[]; acceptedNames?: unknown };
    const storage = spec.versions.find((v) => v.storage)!.name;
    const storedVersions = [...new Set([...(status.storedVersions ?? []), storage])];
    let conditions;
    let acceptedNames = status.acceptedNames;
    if (conflict) {
      conditions = [
        condition('NamesAccepted', 'False', conflict.kind === spec.names.kind ? 'KindConflict' : 'PluralConflict', `"${spec.names.plural}" is already in use`),
        condition('Established', 'False', 'NotAccepted', 'not all names are accepted'),
      ];
    } else {
      this.api.registry.add(customResourceType(crd, this.webhooks));
      acceptedNames = { ...spec.names, singular: spec.names.singular || spec.names.kind.toLowerCase(), listKind: spec.names.listKind || `${spec.names.kind}List` };
      conditions = [
        condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'),
        condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ];
    }
    const same = (a: { type: string; status: string }[] = [], b: { type: string; status: string }[]) =>
      a.length === b.length && a.every((c, i) => c.type === b[i].type && c.status === b[i].status);
    if (same(status.conditions, conditions) && isDeepStrictEqual(status.storedVersions, storedVersions) && isDeepStrictEqual(status.acceptedNames, acceptedNames)) return;
    const target = this.api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions');
    this.api.update(target, name, { ...crd, status: { ...status, acceptedNames, conditions, storedVersions } }, { subresource: 'status' });
  }

  /** Deletes all custom objects of the CRD, then lets the CRD go. */
  private cleanUp(crd: KubeObject): number | void {
    const spec = crdSpec(crd);
    const key = resourceKey(spec.group, spec.names.plural);
    const target = this.api.targetForKey(key);
    const remaining = this.api.store.list(key);
    if (target) {
      for (const object of remaining) {
        if (object.metadata.deletionTimestamp) continue;
        try {
          this.api.delete({ ...target, namespace: object.metadata.namespace }, object.metadata.name!, { propagationPolicy: 'Background' });
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 404)) throw error;
        }
      }
    }
    if (this.api.store.list(key).length > 0) return 100;
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    if (finalizers.length !== (crd.metadata.finalizers ?? []).length) {
      const crdTarget = this.api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions');
      this.api.patch(crdTarget, crd.metadata.name!, 'merge', { metadata: { finalizers: finalizers.length ? finalizers : null } });
    }
  }

  private unregisterByName(name: string): void {
    const type = this.api.registry.all().find((t) => t.crdName === name);
    if (type) this.api.registry.remove(type.group, type.plural);
  }
}
