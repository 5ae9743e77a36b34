/**
 * The PVC and Service steps of a reconcile (upstream reconcilePVCs and reconcileService; the
 * structure is the same in every release, the differences are profile data).
 */
import type { KubeObject } from '../types.ts';
import { desiredPvc, desiredService, desiredServicePorts, mayAdopt, ownerReference, ownership, pvcName, samePorts, sameMap, type SandboxSpec } from './children.ts';
import type { ControllerClient } from './controller-client.ts';
import { NAME_HASH_LABEL, nameHash } from './agent-sandbox-names.ts';
import type { AgentSandboxProfile } from './profiles.ts';
import { isCode, notAdoptable, ownedElsewhere, type SandboxHandle, wrapped } from './sandbox-handle.ts';

/** What the status logic needs of the Service step. */
export interface ServiceOutcome {
  /** The Service the Sandbox uses (created, adopted or owned); absent = none. */
  service?: KubeObject;
  error?: string;
  /** status.service / status.serviceFQDN: set to this Service, cleared, or left as they were (on an error). */
  status: 'set' | 'clear' | 'keep';
}

export class ChildrenSteps {
  constructor(
    private readonly client: ControllerClient,
    private readonly profile: AgentSandboxProfile,
    private readonly sandbox: SandboxHandle,
  ) {}

  /** One PVC per claim template; the first error ends the step (reconcilePVCs returns it). */
  pvcs(spec: SandboxSpec): string | undefined {
    const target = this.client.children('persistentvolumeclaims', this.sandbox.namespace);
    for (const vct of spec.volumeClaimTemplates ?? []) {
      const name = pvcName(vct, this.sandbox.object);
      let existing: KubeObject | undefined;
      try {
        existing = this.client.get(target, name);
      } catch (error) {
        return wrapped(this.profile.pvcGetError, error);
      }
      try {
        if (!existing) {
          this.client.create(target, desiredPvc(this.profile, this.sandbox.object, vct));
          continue;
        }
      } catch (error) {
        return (error as Error).message;
      }
      const owner = ownership(existing, this.sandbox.uid);
      if (owner === 'self') continue;
      if (owner === 'other') return ownedElsewhere('PVC', existing, this.sandbox.name);
      if (!mayAdopt(this.profile, existing, this.sandbox.name)) return notAdoptable('PVC', name);
      const refs = [...(existing.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox.object)];
      try {
        if (this.profile.adoption.write === 'update') this.client.update(target, name, { ...existing, metadata: { ...existing.metadata, ownerReferences: refs } });
        else this.client.patch(target, name, { metadata: { ownerReferences: refs } });
      } catch (error) {
        return wrapped(this.profile.adoption.write === 'update' ? 'failed to update PVC with owner reference' : 'failed to patch PVC with owner reference', error);
      }
    }
    return undefined;
  }

  /** spec.service true: ensure it; false: delete an owned one; unset: keep (and require) an owned one, create nothing. */
  service(spec: SandboxSpec): ServiceOutcome {
    const target = this.client.children('services', this.sandbox.namespace);
    const name = this.sandbox.name;
    const desired = spec.service ?? undefined;
    let existing: KubeObject | undefined;
    try {
      existing = this.client.get(target, name);
    } catch (error) {
      return { error: wrapped('service get failed', error), status: 'keep' };
    }
    if (!existing) {
      if (desired !== true) return { status: 'clear' };
      try {
        return { service: this.client.create(target, desiredService(this.profile, this.sandbox.object)), status: 'set' };
      } catch (error) {
        return { error: (error as Error).message, status: 'keep' };
      }
    }
    const owner = ownership(existing, this.sandbox.uid);
    if (desired === false) {
      if (owner === 'self') {
        try {
          this.client.delete(target, name);
        } catch (error) {
          if (!isCode(error, 404)) return { error: wrapped('failed to delete service', error), status: 'keep' };
        }
      }
      return { status: 'clear' };
    }
    if (owner === 'other') return { error: ownedElsewhere('service', existing, this.sandbox.name), status: 'keep' };
    if (owner === 'none') {
      if (desired === undefined) return { status: 'clear' };
      const error = this.adopt(existing);
      return error ? { error, status: 'keep' } : { service: existing, status: 'set' };
    }
    const error = this.repair(existing, desired === true);
    return error ? { error, status: 'keep' } : { service: existing, status: 'set' };
  }

  private adopt(service: KubeObject): string | undefined {
    const name = service.metadata.name!;
    if (!mayAdopt(this.profile, service, this.sandbox.name)) return notAdoptable('service', name);
    const clusterIP = (service.spec as { clusterIP?: string } | undefined)?.clusterIP;
    if (clusterIP && clusterIP !== 'None') return `cannot adopt service ${JSON.stringify(name)}: ClusterIP is ${JSON.stringify(clusterIP)} (expected "None", field is immutable)`;
    const hash = nameHash(this.sandbox.name);
    const ports = desiredServicePorts(this.profile, this.sandbox.object);
    const spec = { ...(service.spec as object), selector: { [NAME_HASH_LABEL]: hash }, ...(this.profile.servicePorts === 'from-containers' ? { ports } : {}) };
    const metadata = {
      ...service.metadata,
      labels: { ...service.metadata.labels, [NAME_HASH_LABEL]: hash },
      ownerReferences: [...(service.metadata.ownerReferences ?? []), ownerReference(this.profile, this.sandbox.object)],
    };
    try {
      this.client.update(this.client.children('services', this.sandbox.namespace), name, { ...service, metadata, spec });
      return undefined;
    } catch (error) {
      return wrapped('failed to update service with owner reference', error);
    }
  }

  /** Drift in an owned Service's label or selector (and, v0.5.4 with service true, its ports) is patched back. */
  private repair(service: KubeObject, explicit: boolean): string | undefined {
    const hash = nameHash(this.sandbox.name);
    const spec = (service.spec ?? {}) as { selector?: Record<string, string>; ports?: unknown };
    const wanted = { [NAME_HASH_LABEL]: hash };
    const ports = desiredServicePorts(this.profile, this.sandbox.object);
    const patch: { metadata?: unknown; spec: Record<string, unknown> } = { spec: {} };
    if (service.metadata.labels?.[NAME_HASH_LABEL] !== hash) patch.metadata = { labels: wanted };
    if (!sameMap(spec.selector, wanted)) patch.spec.selector = { ...Object.fromEntries(Object.keys(spec.selector ?? {}).map((k) => [k, null])), ...wanted };
    if (explicit && this.profile.servicePorts === 'from-containers' && !samePorts(spec.ports, ports)) patch.spec.ports = ports.length ? ports : null;
    if (!patch.metadata && !Object.keys(patch.spec).length) return undefined;
    try {
      this.client.patch(this.client.children('services', this.sandbox.namespace), service.metadata.name!, patch);
      return undefined;
    } catch (error) {
      return wrapped('failed to patch owned service', error);
    }
  }
}
