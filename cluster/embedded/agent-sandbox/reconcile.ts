/**
 * One reconcile of one Sandbox, in the order of reference §2.2: expiry, PVCs, Pod, Pod-derived
 * status, Service, conditions, status write. Reads come from the store (the informer cache a real
 * controller reads); every write goes through the ObjectApi with the controller's field manager.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';
import { clone, type KubeObject } from '../types.ts';
import {
  controllerRef,
  desiredPod,
  desiredPvc,
  desiredService,
  mapPatch,
  mayAdopt,
  ownerReference,
  ownership,
  podMetadata,
  pvcName,
  sameMap,
  sandboxSpec,
  type SandboxSpec,
} from './children.ts';
import { conditionTime, findCondition, nextConditions, observe, podSeenByStatus, podView, type Condition } from './conditions.ts';
import { FIELD_MANAGER, NAME_HASH_LABEL, POD_NAME_ANNOTATION, nameHash } from './names.ts';
import { specSuspended, type AgentSandboxProfile, type Observed } from './profiles.ts';

/** Requeue after a child error (controller-runtime would back off exponentially). */
export const ERROR_REQUEUE_MS = 1000;
/** The floor of the requeue at shutdownTime. */
const SHUTDOWN_REQUEUE_FLOOR_MS = 2000;

type Status = Record<string, unknown> & { conditions?: Condition[] };

interface PodOutcome {
  /** The Pod as the controller last saw it (before its delete, when suspending). */
  pod?: KubeObject;
  owned: boolean;
  unknown: boolean;
}

const WRITE = { fieldManager: FIELD_MANAGER };

function isCode(error: unknown, code: number): boolean {
  return error instanceof ApiError && error.code === code;
}

export class SandboxReconcile {
  private readonly errors: string[] = [];
  private readonly namespace: string;
  private readonly name: string;

  constructor(
    private readonly api: ObjectApi,
    private readonly profile: AgentSandboxProfile,
    private readonly target: Target,
    /** Kept current: every write to the Sandbox replaces it, so the status write carries the latest resourceVersion. */
    private sandbox: KubeObject,
    private readonly clusterDomain: string,
  ) {
    this.namespace = sandbox.metadata.namespace!;
    this.name = sandbox.metadata.name!;
  }

  run(): number | void {
    const spec = sandboxSpec(this.sandbox);
    const shutdown = spec.shutdownTime ? Date.parse(spec.shutdownTime) : undefined;
    if (shutdown !== undefined && Date.now() >= shutdown) return this.expire(spec);
    const suspended = specSuspended(this.profile, spec);
    this.reconcilePvcs(spec);
    const outcome = suspended ? this.suspendPod() : this.runPod();
    const status = clone((this.sandbox.status ?? {}) as Status);
    this.podStatus(status, podSeenByStatus(this.profile, suspended, outcome.pod));
    const service = this.reconcileService(spec, status);
    const observed = observe(this.profile, {
      suspended,
      errors: this.errors,
      pod: outcome.pod ? podView(outcome.pod, outcome.owned) : undefined,
      podUnknown: outcome.unknown,
      service,
    });
    this.setConditions(status, observed);
    this.writeStatus(status);
    if (this.errors.length) return ERROR_REQUEUE_MS;
    if (shutdown !== undefined) return Math.max(shutdown - Date.now(), SHUTDOWN_REQUEUE_FLOOR_MS);
  }

  // ---- expiry (§2.6) ----

  private expire(spec: SandboxSpec): number | void {
    const status = clone((this.sandbox.status ?? {}) as Status);
    const observed = observe(this.profile, { suspended: specSuspended(this.profile, spec), expired: true });
    if (findCondition(status.conditions, 'Ready')?.reason !== 'SandboxExpired') {
      this.setConditions(status, observed);
      this.writeStatus(status);
      return 1;
    }
    const podName = this.sandbox.metadata.annotations?.[POD_NAME_ANNOTATION] || this.name;
    this.deleteIfOwned('pods', this.pods(), podName);
    this.deleteIfOwned('services', this.services(), this.name);
    if (spec.shutdownPolicy === 'Delete') {
      this.ignore404(() => this.api.delete(this.target, this.name));
      return;
    }
    // Retain: nothing but the conditions is left in status; the Pod is never recreated.
    this.writeStatus(status.conditions ? { conditions: status.conditions } : {});
  }

  // ---- PVCs ----

  private reconcilePvcs(spec: SandboxSpec): void {
    const target = this.api.target('v1', 'persistentvolumeclaims', this.namespace);
    for (const vct of spec.volumeClaimTemplates ?? []) {
      const name = pvcName(vct, this.sandbox);
      const existing = this.api.store.get('persistentvolumeclaims', this.namespace, name);
      if (!existing) {
        this.attempt(() => this.api.create(target, desiredPvc(this.profile, this.sandbox, vct), WRITE).object);
        continue;
      }
      const owner = ownership(existing, this.sandbox.metadata.uid!);
      if (owner === 'self') continue;
      if (owner === 'other') {
        this.errors.push(this.ownedElsewhere('persistentvolumeclaim', existing));
        continue;
      }
      if (!mayAdopt(this.profile, existing, this.name)) {
        this.errors.push(this.notAdoptable('persistentvolumeclaim', existing));
        continue;
      }
      const refs = [...(existing.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox)];
      this.attempt(() =>
        this.profile.adoption.write === 'update'
          ? this.api.update(target, name, { ...existing, metadata: { ...existing.metadata, ownerReferences: refs } }, WRITE).object
          : this.api.patch(target, name, 'merge', { metadata: { ownerReferences: refs } }, WRITE).object,
      );
    }
  }

  // ---- Pod (§2.3, §2.4) ----

  private pods(): Target {
    return this.api.target('v1', 'pods', this.namespace);
  }

  private trackedPodName(): string {
    return this.sandbox.metadata.annotations?.[POD_NAME_ANNOTATION] || this.name;
  }

  /** Suspended: delete the Pod only if this Sandbox controls it (default grace), then forget its name. */
  private suspendPod(): PodOutcome {
    const name = this.trackedPodName();
    const pod = this.api.store.get('pods', this.namespace, name);
    let owned = true;
    let unknown = false;
    if (pod) {
      owned = ownership(pod, this.sandbox.metadata.uid!) === 'self';
      if (owned && !pod.metadata.deletionTimestamp) {
        try {
          this.api.delete(this.pods(), name);
        } catch (error) {
          if (!isCode(error, 404)) {
            this.errors.push((error as Error).message);
            unknown = true;
          }
        }
      }
    }
    this.setPodNameAnnotation(null);
    return { pod, owned, unknown };
  }

  /** Running: find the tracked Pod or create it, then hold on to it. */
  private runPod(): PodOutcome {
    const existing = this.api.store.get('pods', this.namespace, this.trackedPodName());
    if (existing) return this.existingPod(existing);
    // The tracked Pod is gone (deleted externally): forget it before creating the replacement (#613).
    this.setPodNameAnnotation(null);
    let created: KubeObject;
    try {
      created = this.api.create(this.pods(), desiredPod(this.profile, this.sandbox), WRITE).object;
    } catch (error) {
      if (isCode(error, 409)) {
        const found = this.api.store.get('pods', this.namespace, this.name);
        if (found) return this.existingPod(found);
      }
      this.errors.push((error as Error).message);
      return { owned: false, unknown: false };
    }
    this.setPodNameAnnotation(created.metadata.name!);
    return { pod: created, owned: true, unknown: false };
  }

  private existingPod(pod: KubeObject): PodOutcome {
    const owner = ownership(pod, this.sandbox.metadata.uid!);
    if (owner === 'other') {
      this.errors.push(this.ownedElsewhere('pod', pod));
      this.setPodNameAnnotation(null);
      return { owned: false, unknown: false };
    }
    if (owner === 'none') return this.adoptPod(pod);
    // An owned Pod's spec is never updated; only its labels and annotations follow the template.
    if (pod.metadata.deletionTimestamp) return { pod, owned: true, unknown: false };
    const metadata = podMetadata(this.profile, this.sandbox, pod);
    if (sameMap(metadata.labels, pod.metadata.labels) && sameMap(metadata.annotations, pod.metadata.annotations)) return { pod, owned: true, unknown: false };
    const written = this.attempt(() => this.writePod(pod, metadata));
    return { pod: written ?? pod, owned: true, unknown: false };
  }

  private adoptPod(pod: KubeObject): PodOutcome {
    if (!mayAdopt(this.profile, pod, this.name)) {
      this.errors.push(this.notAdoptable('pod', pod));
      return { owned: false, unknown: false };
    }
    const metadata = podMetadata(this.profile, this.sandbox, pod);
    const metadataChanged = !sameMap(metadata.labels, pod.metadata.labels) || !sameMap(metadata.annotations, pod.metadata.annotations);
    let result = pod;
    // v0.4.6 writes the adoption only along with a metadata change; otherwise the new ownerRef is dropped.
    if (metadataChanged || !this.profile.adoption.persistOnlyWithMetadataChange) {
      const refs = [...(pod.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox)];
      result = this.attempt(() => this.writePod(pod, metadata, refs)) ?? pod;
    }
    this.setPodNameAnnotation(pod.metadata.name!);
    return { pod: result, owned: ownership(result, this.sandbox.metadata.uid!) === 'self', unknown: false };
  }

  private writePod(pod: KubeObject, metadata: { labels: Record<string, string>; annotations: Record<string, string> }, ownerReferences?: KubeObject['metadata']['ownerReferences']): KubeObject {
    const name = pod.metadata.name!;
    if (this.profile.adoption.write === 'update') {
      const body = { ...pod, metadata: { ...pod.metadata, ...metadata, ...(ownerReferences ? { ownerReferences } : {}) } };
      return this.api.update(this.pods(), name, body, WRITE).object;
    }
    const patch: Record<string, unknown> = {};
    const labels = mapPatch(pod.metadata.labels, metadata.labels);
    const annotations = mapPatch(pod.metadata.annotations, metadata.annotations);
    if (labels) patch.labels = labels;
    if (annotations) patch.annotations = annotations;
    if (ownerReferences) patch.ownerReferences = ownerReferences;
    return this.api.patch(this.pods(), name, 'merge', { metadata: patch }, WRITE).object;
  }

  /** Pod-derived status (§2.2 step 6.2); the selector is kept once set. */
  private podStatus(status: Status, pod: KubeObject | undefined): void {
    delete status.podIPs;
    delete status.replicas;
    delete status.nodeName;
    if (!pod) return;
    status.selector = `${NAME_HASH_LABEL}=${nameHash(this.name)}`;
    if (this.profile.status.replicas) status.replicas = 1;
    const ips = podView(pod, true).podIPs;
    if (ips.length) status.podIPs = ips;
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (this.profile.status.nodeName && nodeName) status.nodeName = nodeName;
  }

  // ---- Service ----

  private services(): Target {
    return this.api.target('v1', 'services', this.namespace);
  }

  /** spec.service true: ensure it; false: delete an owned one; unset: keep (and require) an owned one, create nothing. */
  private reconcileService(spec: SandboxSpec, status: Status): Observed['service'] {
    const existing = this.api.store.get('services', this.namespace, this.name);
    const owner = existing ? ownership(existing, this.sandbox.metadata.uid!) : undefined;
    if (spec.service === false) {
      if (owner === 'self') this.deleteIfOwned('services', this.services(), this.name);
      delete status.service;
      delete status.serviceFQDN;
      return 'not-required';
    }
    if (spec.service !== true) {
      if (owner !== 'self') return 'not-required';
      this.recordService(status);
      return 'exists';
    }
    if (!existing) {
      const created = this.attempt(() => this.api.create(this.services(), desiredService(this.profile, this.sandbox), WRITE).object);
      if (!created) return 'missing';
    } else if (owner === 'other') {
      this.errors.push(this.ownedElsewhere('service', existing));
      return 'missing';
    } else if (owner === 'none') {
      if (!this.adoptService(existing)) return 'missing';
    } else {
      this.repairService(existing);
    }
    this.recordService(status);
    return 'exists';
  }

  private adoptService(service: KubeObject): boolean {
    const clusterIP = (service.spec as { clusterIP?: string } | undefined)?.clusterIP;
    if ((clusterIP && clusterIP !== 'None') || !mayAdopt(this.profile, service, this.name)) {
      this.errors.push(this.notAdoptable('service', service));
      return false;
    }
    const refs = [...(service.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox)];
    return !!this.attempt(() => this.api.patch(this.services(), this.name, 'merge', { metadata: { ownerReferences: refs } }, WRITE).object);
  }

  /** Drift in an owned Service's label or selector is patched back. */
  private repairService(service: KubeObject): void {
    const hash = nameHash(this.name);
    const selector = (service.spec as { selector?: Record<string, string> } | undefined)?.selector;
    const wanted = { [NAME_HASH_LABEL]: hash };
    if (service.metadata.labels?.[NAME_HASH_LABEL] === hash && sameMap(selector, wanted)) return;
    const patch = { metadata: { labels: wanted }, spec: { selector: mapPatch(selector, wanted) ?? {} } };
    this.attempt(() => this.api.patch(this.services(), this.name, 'merge', patch, WRITE).object);
  }

  private recordService(status: Status): void {
    status.service = this.name;
    status.serviceFQDN = `${this.name}.${this.namespace}.svc.${this.clusterDomain}`;
  }

  // ---- status ----

  private setConditions(status: Status, observed: Observed): void {
    const generation = this.sandbox.metadata.generation ?? 1;
    status.conditions = nextConditions(this.profile, observed, status.conditions, generation, conditionTime(), this.errors);
  }

  /** Only when something changed; through the status subresource. */
  private writeStatus(status: Status): void {
    const before = (this.sandbox.status ?? {}) as Status;
    if (isDeepStrictEqual(before, status)) return;
    if (this.profile.status.skipNodeNameOnlyChange && isDeepStrictEqual({ ...before, nodeName: undefined }, { ...status, nodeName: undefined })) return;
    const options = { ...WRITE, subresource: 'status' };
    if (this.profile.status.write === 'update') {
      this.sandbox = this.api.update(this.target, this.name, { ...this.sandbox, status }, options).object;
      return;
    }
    const patch: Record<string, unknown> = {};
    for (const key of Object.keys(before)) if (!(key in status)) patch[key] = null;
    for (const [key, value] of Object.entries(status)) if (!isDeepStrictEqual(before[key], value)) patch[key] = value;
    this.sandbox = this.api.patch(this.target, this.name, 'merge', { status: patch }, options).object;
  }

  // ---- helpers ----

  /** Sets (name) or removes (null) the Sandbox's pod-name annotation, when that changes it. */
  private setPodNameAnnotation(value: string | null): void {
    const current = this.sandbox.metadata.annotations?.[POD_NAME_ANNOTATION];
    if ((current ?? null) === value) return;
    this.sandbox = this.api.patch(this.target, this.name, 'merge', { metadata: { annotations: { [POD_NAME_ANNOTATION]: value } } }, WRITE).object;
  }

  private deleteIfOwned(resource: 'pods' | 'services', target: Target, name: string): void {
    const object = this.api.store.get(resource, this.namespace, name);
    if (!object || object.metadata.deletionTimestamp || ownership(object, this.sandbox.metadata.uid!) !== 'self') return;
    this.ignore404(() => this.api.delete(target, name));
  }

  /** Runs a child write; a failure becomes a reconcile error (Ready=False/ReconcilerError). */
  private attempt(write: () => KubeObject): KubeObject | undefined {
    try {
      return write();
    } catch (error) {
      this.errors.push((error as Error).message);
      return undefined;
    }
  }

  private ignore404(action: () => unknown): void {
    try {
      action();
    } catch (error) {
      if (!isCode(error, 404)) throw error;
    }
  }

  private ownedElsewhere(kind: string, object: KubeObject): string {
    const ref = controllerRef(object)!;
    return `${kind} ${object.metadata.name} is owned by ${ref.kind} ${ref.name} (${ref.uid}), not by this Sandbox`;
  }

  private notAdoptable(kind: string, object: KubeObject): string {
    return `${kind} ${object.metadata.name} exists but is not controlled by Sandbox ${this.name} and cannot be adopted`;
  }
}
