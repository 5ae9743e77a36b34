/**
 * The Pod step of a reconcile (upstream reconcilePod, per release): find the tracked Pod, delete
 * it when suspended (only if owned), otherwise adopt or create it and keep its metadata in step
 * with the template. The outcome is the Pod the status logic looks at, plus the step's error.
 */
import type { KubeObject } from '../types.ts';
import { desiredPod, mapPatch, mayAdopt, ownerReference, ownership, podMetadata, sameMap, sandboxSpec } from './children.ts';
import type { ControllerClient } from './controller-client.ts';
import { NAME_HASH_LABEL, nameHash } from './agent-sandbox-names.ts';
import { specSuspended, type AgentSandboxProfile } from './profiles.ts';
import { isCode, notAdoptable, ownedElsewhere, type SandboxHandle, wrapped } from './sandbox-handle.ts';

export interface PodOutcome {
  /** The Pod the status logic sees; absent = "no Pod". */
  pod?: KubeObject;
  /** The step's error (joined into the reconcile's errors). */
  error?: string;
}

type Metadata = { labels: Record<string, string>; annotations: Record<string, string> };

export class PodStep {
  constructor(
    private readonly client: ControllerClient,
    private readonly profile: AgentSandboxProfile,
    private readonly sandbox: SandboxHandle,
  ) {}

  private get pods() {
    return this.client.children('pods', this.sandbox.namespace);
  }

  run(): PodOutcome {
    let pod: KubeObject | undefined;
    try {
      // v0.5.4 lists the Sandbox's Pods first (a multi-Pod check that only logs); a failed list is an error there.
      if (this.profile.podListErrors === 'fail') this.client.list(this.pods, { [NAME_HASH_LABEL]: nameHash(this.sandbox.name) });
    } catch (error) {
      return { error: wrapped('pod list failed', error) };
    }
    try {
      pod = this.client.get(this.pods, this.sandbox.trackedPodName());
    } catch (error) {
      return { error: wrapped('pod get failed', error) };
    }
    if (!pod) {
      // The tracked Pod is gone (deleted externally, #613): forget it first.
      const error = this.sandbox.clearPodName();
      if (error) return { error };
    }
    // Read after that patch, which refreshed the Sandbox (reconcilePod checks the spec only here).
    if (specSuspended(this.profile, sandboxSpec(this.sandbox.object))) return this.suspend(pod);
    return pod ? this.existing(pod) : this.create();
  }

  /** Suspended: delete the Pod only if this Sandbox controls it (default grace), then forget its name. */
  private suspend(pod: KubeObject | undefined): PodOutcome {
    // ≤v0.5.3 then reports no Pod (status sees none while suspended); v0.5.4 reports the Pod as it is.
    const keep = this.profile.trackTerminatingPod;
    if (pod && ownership(pod, this.sandbox.uid) === 'self') {
      if (!pod.metadata.deletionTimestamp) {
        try {
          this.client.delete(this.pods, pod.metadata.name!);
        } catch (error) {
          return { pod: keep ? pod : undefined, error: wrapped('failed to delete pod', error) };
        }
      }
      // v0.5.4 keeps the pod-name annotation until the terminating Pod is gone.
      if (keep) return { pod };
    }
    const error = this.sandbox.clearPodName();
    return { pod: keep ? pod : undefined, error };
  }

  private create(): PodOutcome {
    let created: KubeObject;
    try {
      created = this.client.create(this.pods, desiredPod(this.profile, this.sandbox.object));
    } catch (error) {
      if (!isCode(error, 409)) return { error: (error as Error).message };
      // AlreadyExists: the cache had not seen it yet, or someone else made it; read it (from the cache) and go on.
      let found: KubeObject | undefined;
      try {
        found = this.client.get(this.pods, this.sandbox.name);
      } catch (getError) {
        return { error: wrapped('pod already exists but failed to fetch', getError) };
      }
      if (!found) return { error: `pod already exists but failed to fetch: pods ${JSON.stringify(this.sandbox.name)} not found` };
      return this.existing(found);
    }
    const error = this.sandbox.ensurePodName(created.metadata.name!);
    return error ? { error } : { pod: created };
  }

  private existing(pod: KubeObject): PodOutcome {
    const owner = ownership(pod, this.sandbox.uid);
    if (owner === 'other') {
      const error = this.sandbox.clearPodName();
      return { error: error ?? ownedElsewhere('pod', pod, this.sandbox.name) };
    }
    let adopting = false;
    if (owner === 'none') {
      if (!mayAdopt(this.profile, pod, this.sandbox.name)) return { error: notAdoptable('pod', pod.metadata.name!) };
      adopting = true;
    }
    // An owned Pod's spec is never updated; only its labels and annotations follow the template.
    const metadata = podMetadata(this.profile, this.sandbox.object, pod);
    const changed = !sameMap(metadata.labels, pod.metadata.labels) || !sameMap(metadata.annotations, pod.metadata.annotations);
    const refs = adopting ? [...(pod.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox.object)] : undefined;
    let current = refs ? { ...pod, metadata: { ...pod.metadata, ownerReferences: refs } } : pod;
    // v0.4.6 writes the adoption only along with a metadata change; otherwise the new ownerRef is never stored.
    if (changed || (adopting && !this.profile.adoption.persistOnlyWithMetadataChange)) {
      try {
        current = this.writePod(pod, metadata, refs);
      } catch (error) {
        return { error: wrapped(this.profile.adoption.write === 'update' ? 'failed to update pod' : 'failed to patch pod', error) };
      }
    }
    const error = this.sandbox.ensurePodName(pod.metadata.name!);
    return error ? { error } : { pod: current };
  }

  private writePod(pod: KubeObject, metadata: Metadata, ownerReferences?: KubeObject['metadata']['ownerReferences']): KubeObject {
    const name = pod.metadata.name!;
    if (this.profile.adoption.write === 'update') {
      return this.client.update(this.pods, name, { ...pod, metadata: { ...pod.metadata, ...metadata, ...(ownerReferences ? { ownerReferences } : {}) } });
    }
    const patch: Record<string, unknown> = {};
    const labels = mapPatch(pod.metadata.labels, metadata.labels);
    const annotations = mapPatch(pod.metadata.annotations, metadata.annotations);
    if (labels) patch.labels = labels;
    if (annotations) patch.annotations = annotations;
    if (ownerReferences) patch.ownerReferences = ownerReferences;
    return this.client.patch(this.pods, name, { metadata: patch });
  }
}
