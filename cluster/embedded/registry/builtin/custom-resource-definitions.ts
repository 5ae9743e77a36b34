import { causes, type StatusCause } from '../../errors.ts';
import { validationRuleCompileCauses } from '../../schema/validation-rules.ts';
import { isPlainObject, type KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string; description?: string; priority?: number; format?: string }[];
}

export interface CrdSpec {
  group: string;
  names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  conversion?: { strategy: 'None' | 'Webhook'; webhook?: { clientConfig?: { service?: { name: string; namespace: string; path?: string } } } };
}

export function crdSpec(crd: KubeObject): CrdSpec {
  return crd.spec as CrdSpec;
}

function validate(crd: KubeObject): StatusCause[] {
  const result: StatusCause[] = [];
  const spec = isPlainObject(crd.spec) ? (crd.spec as Partial<CrdSpec>) : undefined;
  if (!spec) return [causes.required('spec')];
  if (!spec.group) result.push(causes.required('spec.group'));
  if (!spec.names?.plural) result.push(causes.required('spec.names.plural'));
  if (!spec.names?.kind) result.push(causes.required('spec.names.kind'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') result.push(causes.unsupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  if (spec.group && spec.names?.plural && crd.metadata.name !== `${spec.names.plural}.${spec.group}`) {
    result.push(causes.invalid('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`));
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) result.push(causes.required('spec.versions'));
  const storage = versions.filter((v) => v.storage);
  if (versions.length && storage.length !== 1) result.push(causes.invalid('spec.versions', versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
  versions.forEach((v, i) => {
    if (!v.schema?.openAPIV3Schema) result.push(causes.required(`spec.versions[${i}].schema.openAPIV3Schema`));
    result.push(...validationRuleCompileCauses(v.schema?.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`));
  });
  return result;
}

export const crdStrategy: ResourceStrategy = {
  prepareForCreate(crd) {
    crd.metadata.finalizers = [...new Set([...(crd.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
    const storage = Array.isArray((crd.spec as CrdSpec)?.versions) ? (crd.spec as CrdSpec).versions.find((v) => v.storage)?.name : undefined;
    crd.status = { acceptedNames: { plural: '', kind: '' }, conditions: [], storedVersions: storage ? [storage] : [] };
    if (isPlainObject(crd.spec) && !crd.spec.conversion) crd.spec.conversion = { strategy: 'None' };
  },
  validateCreate: validate,
  validateUpdate(crd, old) {
    const result = validate(crd);
    const next = crd.spec as CrdSpec;
    const prev = old.spec as CrdSpec;
    if (next?.group !== prev.group) result.push(causes.invalid('spec.group', next?.group, 'field is immutable'));
    if (next?.names?.plural !== prev.names.plural) result.push(causes.invalid('spec.names.plural', next?.names?.plural, 'field is immutable'));
    return result;
  },
  table: {
    columns: [{ name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Creation time' }],
    cells: (crd) => [crd.metadata.creationTimestamp],
  },
};
