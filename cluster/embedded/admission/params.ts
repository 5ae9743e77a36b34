import type { ObjectApi } from '../registry/object-api.ts';
import { resourceKey, storageVersion } from '../registry/resource-type.ts';
import { labelSelectorFromObject } from '../store/label-selectors.ts';
import type { KubeObject } from '../types.ts';
import type { ParamRef, PolicySpec } from './policy-types.ts';

/**
 * A policy's parameters for one binding (generic.CollectParams): none without a paramKind (one
 * evaluation with `params` null), else the objects the binding's paramRef names or selects, of
 * any kind the cluster serves (ConfigMaps, custom resources). A configuration problem is an
 * Error whose message the denial quotes.
 */

/** A paramKind the cluster does not serve: the policy itself is misconfigured. */
export function paramKindError(api: ObjectApi, spec: PolicySpec): string | undefined {
  const kind = spec.paramKind;
  if (!kind) return undefined;
  const [group, version] = splitApiVersion(kind.apiVersion ?? '');
  const type = api.registry.byKind(group, kind.kind ?? '');
  if (!type || !type.versions.some((v) => v.name === version && v.served)) {
    return `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${kind.kind ?? ''}'`;
  }
  return undefined;
}

/** The params to evaluate with: `[null]` when the policy takes none; throws Error on a configuration problem. */
export function collectParams(api: ObjectApi, spec: PolicySpec, ref: ParamRef | undefined, requestNamespace: string): (KubeObject | null)[] {
  if (!spec.paramKind || !ref) return [null];
  const [group, version] = splitApiVersion(spec.paramKind.apiVersion ?? '');
  const type = api.registry.byKind(group, spec.paramKind.kind ?? '')!;
  const target = { type, version: type.versions.find((v) => v.name === version) ?? storageVersion(type), namespace: undefined as string | undefined };
  if (type.namespaced) {
    target.namespace = ref.namespace || requestNamespace;
    if (!target.namespace) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (ref.namespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  if (ref.name) {
    const found = api.store.get(resourceKey(type.group, type.plural), target.namespace, ref.name);
    params = found ? [api.present(target, found)] : [];
  } else {
    const selected = labelSelectorFromObject(ref.selector ?? {});
    params = api.list(target).items.filter((o) => selected(o.metadata.labels ?? {}));
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') {
    throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params;
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
