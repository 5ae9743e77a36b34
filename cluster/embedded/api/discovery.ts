import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { apiVersionOf } from '../registry/resource-type.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The subresources of a type in one version, with the verbs each takes. */
function subresources(type: ResourceType, version: string): { name: string; verbs: string[]; kind: string; group?: string; version?: string }[] {
  const v = type.versions.find((x) => x.name === version)!;
  const result: { name: string; verbs: string[]; kind: string; group?: string; version?: string }[] = [];
  if (v.status) result.push({ name: 'status', verbs: ['get', 'patch', 'update'], kind: type.kind });
  if (v.scale) result.push({ name: 'scale', verbs: ['get', 'patch', 'update'], kind: 'Scale', group: 'autoscaling', version: 'v1' });
  for (const extra of type.extraSubresources) {
    const verbs = extra === 'log' ? ['get'] : extra === 'exec' || extra === 'attach' ? ['create', 'get'] : extra === 'binding' || extra === 'token' ? ['create'] : ['update'];
    if (extra === 'token') {
      result.push({ name: extra, verbs, kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' });
      continue;
    }
    const kind = extra === 'binding' ? 'Binding' : extra === 'exec' ? 'PodExecOptions' : extra === 'attach' ? 'PodAttachOptions' : extra === 'log' ? 'Pod' : type.kind;
    result.push({ name: extra, verbs, kind });
  }
  return result;
}

function typesIn(registry: ResourceRegistry, group: string, version: string): ResourceType[] {
  return registry
    .all()
    .filter((t) => t.group === group && t.versions.some((v) => v.name === version && v.served))
    .sort((a, b) => a.plural.localeCompare(b.plural));
}

/** Legacy `/api/v1` or `/apis/<g>/<v>` APIResourceList. */
export function resourceList(registry: ResourceRegistry, group: string, version: string): unknown | undefined {
  const types = typesIn(registry, group, version);
  if (types.length === 0) return undefined;
  const resources: unknown[] = [];
  for (const t of types) {
    resources.push({
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs ?? VERBS,
      ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length ? { categories: t.categories } : {}),
      storageVersionHash: Buffer.from(`${t.group}/${t.plural}`).toString('base64').slice(0, 11),
    });
    for (const sub of subresources(t, version)) {
      resources.push({
        name: `${t.plural}/${sub.name}`,
        singularName: '',
        namespaced: t.namespaced,
        kind: sub.kind,
        verbs: sub.verbs,
        ...(sub.group ? { group: sub.group, version: sub.version } : {}),
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}

export function coreVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function groupList(registry: ResourceRegistry): unknown {
  const groups = [...registry.groups().entries()]
    .filter(([group]) => group !== '')
    .map(([name, versions]) => ({
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    }));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** Which aggregated discovery version the Accept header asks for, if any (kubectl 1.27-1.29 know only v2beta1). */
export function aggregatedVersion(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    if (!/as=APIGroupDiscoveryList/.test(part) || !/g=apidiscovery\.k8s\.io/.test(part)) continue;
    const version = /v=(v2beta1|v2)\b/.exec(part)?.[1];
    if (version === 'v2' || version === 'v2beta1') return version;
  }
  return undefined;
}

export function aggregatedContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** `/api` (core only) or `/apis` (every other group) as an APIGroupDiscoveryList. */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean, version: 'v2' | 'v2beta1'): unknown {
  const items = [...registry.groups().entries()]
    .filter(([group]) => (group === '') === core)
    .map(([group, versions]) => ({
      metadata: { name: group },
      versions: versions.map((v) => ({
        version: v,
        freshness: 'Current',
        resources: typesIn(registry, group, v).map((t) => ({
          resource: t.plural,
          responseKind: { group, version: v, kind: t.kind },
          scope: t.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: t.singular,
          verbs: t.verbs ?? VERBS,
          ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
          ...(t.categories.length ? { categories: t.categories } : {}),
          subresources: subresources(t, v).map((s) => ({
            subresource: s.name,
            responseKind: { group: s.group ?? group, version: s.version ?? v, kind: s.kind },
            verbs: s.verbs,
          })),
        })),
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}
