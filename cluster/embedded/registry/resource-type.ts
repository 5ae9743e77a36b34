import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../schema/structural-schema.ts';
import type { KubeObject } from '../types.ts';

/** Where the scale subresource reads and writes replicas (CRD `subresources.scale`). */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** One served (or stored) version of a resource. */
export interface ResourceVersion {
  name: string;
  served: boolean;
  storage: boolean;
  /** Set for deprecated versions: sent as a `Warning: 299` header on every request. */
  deprecationWarning?: string;
  schema?: JSONSchemaProps;
  status: boolean;
  scale?: ScaleSubresource;
  printerColumns?: PrinterColumn[];
}

/** Changes the shape of an object between two versions of its kind; the real cluster calls a conversion webhook. */
export type VersionConverter = (object: KubeObject, toVersion: string) => KubeObject;

/**
 * Behaviour a kind adds on top of the generic object semantics, as kube-apiserver's
 * per-resource "strategies" do. Every hook is optional.
 */
export interface ResourceStrategy {
  /** Fills server-side defaults on create (e.g. Pod restartPolicy, Namespace finalizers). */
  prepareForCreate?(object: KubeObject): void;
  /** Carries over what an update may leave out (e.g. a Service's allocated cluster IP). */
  prepareForUpdate?(object: KubeObject, old: KubeObject): void;
  /** Field errors for a new object. */
  validateCreate?(object: KubeObject): StatusCause[];
  /** Field errors for an update (immutability rules). */
  validateUpdate?(object: KubeObject, old: KubeObject): StatusCause[];
  /** Rewrites the object before any write (e.g. Secret stringData -> data). */
  normalize?(object: KubeObject): void;
  /** Grace period of a DELETE (graceful Pod deletion); undefined or 0 = no grace. */
  gracePeriodSeconds?(object: KubeObject, requested: number | undefined): number | undefined;
  /** Changes the object makes when its deletion starts (Namespace phase Terminating). */
  markDeleting?(object: KubeObject): void;
  /** True while the object must outlive a deletion with no finalizers left (Namespace spec.finalizers). */
  holdsDeletion?(object: KubeObject): boolean;
  /**
   * Table cells for `kubectl get`. Name and Age are added around the columns unless `complete`: then
   * the columns are the whole row in order, Name and Age included where the kind has them (Events).
   */
  table?: { columns: PrinterColumn[]; cells(object: KubeObject): unknown[]; complete?: boolean };
}

/** A resource the server serves: built-in or CRD-backed. */
export interface ResourceType {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  versions: ResourceVersion[];
  /** Built-in kinds accept strategic merge patch; custom resources are refused it with 415, as on a real server. */
  builtin: boolean;
  /**
   * Whether the server keeps metadata.generation (set to 1, bumped on spec changes): custom resources,
   * CRDs and the workload kinds whose controllers report observedGeneration; not ConfigMap, Pod, ...
   */
  generation: boolean;
  /** Verbs the resource takes, when not all of them (create-only review resources); absent = all. */
  verbs?: string[];
  /** Extra subresources besides status/scale, e.g. pods: log, exec, binding, eviction. */
  extraSubresources: string[];
  strategy: ResourceStrategy;
  /** Set for CRDs whose versions differ in shape; absent means versions only differ in apiVersion. */
  converter?: VersionConverter;
  /** The CRD behind it, for CRD-backed types. */
  crdName?: string;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function storageVersion(type: ResourceType): ResourceVersion {
  const found = type.versions.find((v) => v.storage);
  if (!found) throw new Error(`resource ${type.plural}.${type.group} has no storage version`);
  return found;
}

export function servedVersion(type: ResourceType, version: string): ResourceVersion | undefined {
  return type.versions.find((v) => v.name === version && v.served);
}

/** The registry key of a resource independent of version: `pods`, `sandboxes.agents.x-k8s.io`. */
export function resourceKey(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

/** A resource at one served version, in one namespace (or cluster-wide): what an object API call addresses. */
export interface Target {
  type: ResourceType;
  version: ResourceVersion;
  namespace?: string;
}
