/**
 * What a Sandbox's children should look like (reference §2.3): the Pod named after the Sandbox,
 * one PVC per volumeClaimTemplate and the optional headless Service. Pure functions of the
 * Sandbox and the profile, so they are testable without a cluster.
 */
import { isDeepStrictEqual } from 'node:util';
import { clone, isPlainObject, type KubeObject, type OwnerReference } from '../types.ts';
import {
  ADOPTABLE_LABEL,
  CREATED_BY_LABEL,
  CREATED_BY_VALUES,
  NAME_HASH_LABEL,
  PROPAGATED_ANNOTATIONS_ANNOTATION,
  PROPAGATED_LABELS_ANNOTATION,
  RESERVED_PREFIXES,
  TRACE_ANNOTATION,
  nameHash,
} from './agent-sandbox-names.ts';
import type { AgentSandboxProfile } from './profiles.ts';

type StringMap = Record<string, string>;

export interface VolumeClaimTemplate {
  metadata?: { name?: string; labels?: StringMap; annotations?: StringMap };
  spec?: Record<string, unknown>;
}

export interface SandboxSpec {
  podTemplate?: { metadata?: { labels?: StringMap; annotations?: StringMap }; spec?: Record<string, unknown> };
  volumeClaimTemplates?: VolumeClaimTemplate[];
  shutdownTime?: string;
  shutdownPolicy?: string;
  service?: boolean | null;
  [field: string]: unknown;
}

export function sandboxSpec(sandbox: KubeObject): SandboxSpec {
  return (isPlainObject(sandbox.spec) ? sandbox.spec : {}) as SandboxSpec;
}

export function ownerReference(profile: AgentSandboxProfile, sandbox: KubeObject): OwnerReference {
  return { apiVersion: profile.ownerApiVersion, kind: 'Sandbox', name: sandbox.metadata.name!, uid: sandbox.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

export type Ownership = 'self' | 'other' | 'none';

/** Whose controller reference an object carries, relative to the Sandbox with `uid`. */
export function ownership(object: KubeObject, uid: string): Ownership {
  const ref = controllerRef(object);
  if (!ref) return 'none';
  return ref.uid === uid ? 'self' : 'other';
}

export function controllerRef(object: KubeObject): OwnerReference | undefined {
  return (object.metadata.ownerReferences ?? []).find((r) => r.controller);
}

/** Whether an unowned object may be adopted (v0.5.0+, PR #784: only when it says so or already carries our hash). */
export function mayAdopt(profile: AgentSandboxProfile, object: KubeObject, sandboxName: string): boolean {
  if (!profile.adoption.requiresLabel) return true;
  const labels = object.metadata.labels ?? {};
  return labels[ADOPTABLE_LABEL] === 'true' || labels[NAME_HASH_LABEL] === nameHash(sandboxName);
}

function withoutReserved(profile: AgentSandboxProfile, map: StringMap | undefined): StringMap {
  const result: StringMap = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (profile.templateMetadata.dropReservedKeys && (key === TRACE_ANNOTATION || RESERVED_PREFIXES.some((p) => key.startsWith(p)))) continue;
    result[key] = value;
  }
  return result;
}

/** The labels and annotations the template contributes to the Pod. */
function templateMetadata(profile: AgentSandboxProfile, sandbox: KubeObject): { labels: StringMap; annotations: StringMap } {
  const meta = sandboxSpec(sandbox).podTemplate?.metadata ?? {};
  return { labels: withoutReserved(profile, meta.labels), annotations: withoutReserved(profile, meta.annotations) };
}

function keysList(map: StringMap): string | undefined {
  const keys = Object.keys(map).sort();
  return keys.length ? keys.join(',') : undefined;
}

/**
 * Pod labels/annotations: the template's on top of what the Pod has, minus template keys the Pod
 * received earlier (listed in the propagated-* annotations) that the template no longer has.
 */
export function podMetadata(profile: AgentSandboxProfile, sandbox: KubeObject, existing?: KubeObject): { labels: StringMap; annotations: StringMap } {
  const template = templateMetadata(profile, sandbox);
  const hash = { [NAME_HASH_LABEL]: nameHash(sandbox.metadata.name!) };
  const current = { labels: { ...existing?.metadata.labels }, annotations: { ...existing?.metadata.annotations } };
  const dropStale = (map: StringMap, listed: string | undefined, keep: StringMap) => {
    for (const key of (listed ?? '').split(',').filter(Boolean)) if (!(key in keep)) delete map[key];
  };
  dropStale(current.labels, current.annotations[PROPAGATED_LABELS_ANNOTATION], template.labels);
  dropStale(current.annotations, current.annotations[PROPAGATED_ANNOTATIONS_ANNOTATION], template.annotations);
  const labels: StringMap = profile.templateMetadata.templateLabelsWin
    ? { ...current.labels, ...hash, ...template.labels }
    : { ...current.labels, ...template.labels, ...hash };
  if (profile.copyCreatedByLabel) {
    // v0.5.4 copies the Sandbox's created-by label, normalised to a known value, and removes a stale one.
    const createdBy = sandbox.metadata.labels?.[CREATED_BY_LABEL];
    if (createdBy) labels[CREATED_BY_LABEL] = (CREATED_BY_VALUES as readonly string[]).includes(createdBy) ? createdBy : 'unknown';
    else delete labels[CREATED_BY_LABEL];
  }
  const annotations: StringMap = { ...current.annotations, ...template.annotations };
  delete annotations[PROPAGATED_LABELS_ANNOTATION];
  delete annotations[PROPAGATED_ANNOTATIONS_ANNOTATION];
  const propagatedLabels = keysList(template.labels);
  const propagatedAnnotations = keysList(template.annotations);
  if (propagatedLabels) annotations[PROPAGATED_LABELS_ANNOTATION] = propagatedLabels;
  if (propagatedAnnotations) annotations[PROPAGATED_ANNOTATIONS_ANNOTATION] = propagatedAnnotations;
  return { labels, annotations };
}

export function pvcName(vct: VolumeClaimTemplate, sandbox: KubeObject): string {
  return `${vct.metadata?.name ?? ''}-${sandbox.metadata.name}`;
}

/** The Pod: a verbatim copy of podTemplate.spec, with each claim template's volume replacing a template volume of that name. */
export function desiredPod(profile: AgentSandboxProfile, sandbox: KubeObject): KubeObject {
  const spec = sandboxSpec(sandbox);
  const podSpec = clone(spec.podTemplate?.spec ?? {}) as { volumes?: { name: string }[] };
  const claims = (spec.volumeClaimTemplates ?? []).map((vct) => ({
    name: vct.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: pvcName(vct, sandbox) },
  }));
  if (claims.length) {
    const replaced = new Set(claims.map((c) => c.name));
    podSpec.volumes = [...(podSpec.volumes ?? []).filter((v) => !replaced.has(v.name)), ...claims];
  }
  const { labels, annotations } = podMetadata(profile, sandbox);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: sandbox.metadata.name,
      namespace: sandbox.metadata.namespace,
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ownerReferences: [ownerReference(profile, sandbox)],
    },
    spec: podSpec,
  };
}

export function desiredPvc(profile: AgentSandboxProfile, sandbox: KubeObject, vct: VolumeClaimTemplate): KubeObject {
  const annotations = vct.metadata?.annotations;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: pvcName(vct, sandbox),
      namespace: sandbox.metadata.namespace,
      labels: { ...vct.metadata?.labels, [NAME_HASH_LABEL]: nameHash(sandbox.metadata.name!) },
      ...(annotations && Object.keys(annotations).length ? { annotations: { ...annotations } } : {}),
      ownerReferences: [ownerReference(profile, sandbox)],
    },
    spec: clone(vct.spec ?? {}),
  };
}

interface ContainerPort {
  name?: string;
  containerPort?: number;
  protocol?: string;
}

/**
 * v0.5.4+ (servicePortsForSandbox): one Service port per distinct (port, protocol) of the
 * containers and restartable init containers, sorted by port then protocol. A port keeps the
 * first explicit name given to it unless an earlier port took that name; unnamed ports are
 * called p-<port>-<proto>, with -2, -3, ... added when that name is taken.
 */
export function servicePorts(podSpec: Record<string, unknown> | undefined): Record<string, unknown>[] {
  type Container = { ports?: ContainerPort[]; restartPolicy?: string };
  const containers = (podSpec?.containers ?? []) as Container[];
  const sidecars = ((podSpec?.initContainers ?? []) as Container[]).filter((c) => c.restartPolicy === 'Always');
  const explicit = new Map<string, { port: number; protocol: string; name: string }>();
  const taken = new Set<string>();
  for (const declared of [...containers, ...sidecars].flatMap((c) => c.ports ?? [])) {
    if (typeof declared.containerPort !== 'number' || declared.containerPort === 0) continue;
    const protocol = declared.protocol || 'TCP';
    const key = `${declared.containerPort}/${protocol}`;
    const entry = explicit.get(key) ?? { port: declared.containerPort, protocol, name: '' };
    explicit.set(key, entry);
    if (!declared.name || entry.name || taken.has(declared.name)) continue;
    entry.name = declared.name;
    taken.add(declared.name);
  }
  const sorted = [...explicit.values()].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0));
  return sorted.map(({ port, protocol, name }) => {
    let chosen = name;
    if (!chosen) {
      const base = `p-${port}-${protocol.toLowerCase()}`;
      chosen = base;
      for (let suffix = 2; taken.has(chosen); suffix++) chosen = `${base}-${suffix}`;
    }
    taken.add(chosen);
    return { name: chosen, protocol, port, targetPort: port };
  });
}

/** The fields of two port lists that servicePortsEqual compares, in order. */
export function samePorts(a: unknown, b: Record<string, unknown>[]): boolean {
  const pick = (ports: unknown) => ((Array.isArray(ports) ? ports : []) as Record<string, unknown>[]).map((p) => [p.name ?? '', p.protocol ?? '', p.port, p.targetPort]);
  return isDeepStrictEqual(pick(a), pick(b));
}

/** The ports the release gives the Sandbox's Service: none before v0.5.4. */
export function desiredServicePorts(profile: AgentSandboxProfile, sandbox: KubeObject): Record<string, unknown>[] {
  return profile.servicePorts === 'from-containers' ? servicePorts(sandboxSpec(sandbox).podTemplate?.spec) : [];
}

/** The headless Service named after the Sandbox, selecting its Pod by the name-hash label. */
export function desiredService(profile: AgentSandboxProfile, sandbox: KubeObject): KubeObject {
  const hash = { [NAME_HASH_LABEL]: nameHash(sandbox.metadata.name!) };
  const ports = desiredServicePorts(profile, sandbox);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: sandbox.metadata.name, namespace: sandbox.metadata.namespace, labels: { ...hash }, ownerReferences: [ownerReference(profile, sandbox)] },
    spec: { clusterIP: 'None', selector: { ...hash }, ...(ports.length ? { ports } : {}) },
  };
}

/** The merge-patch for a string map: changed keys with their value, removed keys with null. */
export function mapPatch(before: StringMap | undefined, after: StringMap): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  for (const key of Object.keys(before ?? {})) if (!(key in after)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) if (before?.[key] !== value) patch[key] = value;
  return Object.keys(patch).length ? patch : undefined;
}

export function sameMap(a: StringMap | undefined, b: StringMap | undefined): boolean {
  return isDeepStrictEqual(a ?? {}, b ?? {});
}
