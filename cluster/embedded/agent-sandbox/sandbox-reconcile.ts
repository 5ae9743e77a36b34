/**
 * One reconcile of one Sandbox, in upstream's order (reference §2.2): expiry, PVCs, Pod,
 * Pod-derived status, Service, conditions, status write. Reads come from the controller's
 * informer cache through the ControllerClient; every write goes to the API server. Child errors
 * are joined into Ready=False/ReconcilerError and returned, so the controller retries with
 * backoff, as controller-runtime does with a Reconcile error.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../types.ts';
import { clone, metaTime } from '../types.ts';
import { ownership, sandboxSpec, type SandboxSpec } from './children.ts';
import { findCondition, nextConditions, observe, podView, type Condition } from './conditions.ts';
import type { ControllerClient } from './controller-client.ts';
import { NAME_HASH_LABEL, nameHash } from './agent-sandbox-names.ts';
import { specSuspended, type AgentSandboxProfile, type Observed } from './profiles.ts';
import { ChildrenSteps, type ServiceOutcome } from './reconcile-children.ts';
import { PodStep } from './reconcile-pod.ts';
import { isCode, SandboxHandle, wrapped } from './sandbox-handle.ts';

/** The floor of the requeue at shutdownTime. */
const SHUTDOWN_REQUEUE_FLOOR_MS = 2000;
/** immediateRequeueDelay: after marking a Sandbox expired, look again at once. */
const IMMEDIATE_REQUEUE_MS = 1;

type Status = Record<string, unknown> & { conditions?: Condition[] };

/** What controller-runtime does next: errors mean a rate-limited retry; otherwise requeue after a delay, or not. */
export interface ReconcileResult {
  errors: string[];
  requeueAfterMs?: number;
}

export class SandboxReconcile {
  private readonly errors: string[] = [];
  private readonly sandbox: SandboxHandle;

  constructor(
    private readonly client: ControllerClient,
    private readonly profile: AgentSandboxProfile,
    sandbox: KubeObject,
    private readonly clusterDomain: string,
  ) {
    this.sandbox = new SandboxHandle(client, client.sandboxes(sandbox.metadata.namespace!), sandbox);
  }

  /**
   * Like upstream, every step reads the Sandbox as it is now: a metadata patch earlier in the
   * reconcile replaces it with the server's answer, so with a stale cache the Pod step may start
   * from an old spec while later steps see the new one. The status written is the current one
   * with this reconcile's changes, compared against the status the reconcile started from.
   */
  run(): ReconcileResult {
    const initial = this.sandbox.object;
    const startSpec = sandboxSpec(initial);
    const shutdown = startSpec.shutdownTime ? Date.parse(startSpec.shutdownTime) : undefined;
    if (shutdown !== undefined && Date.now() >= shutdown) return this.expire(startSpec);
    const steps = new ChildrenSteps(this.client, this.profile, this.sandbox);
    this.note(steps.pvcs(startSpec));
    const pod = new PodStep(this.client, this.profile, this.sandbox).run();
    this.note(pod.error);
    const status = clone((this.sandbox.object.status ?? {}) as Status);
    const owned = !!pod.pod && ownership(pod.pod, this.sandbox.uid) === 'self';
    this.podStatus(status, pod.pod, owned);
    const spec = sandboxSpec(this.sandbox.object);
    const service = steps.service(spec);
    this.note(service.error);
    this.serviceStatus(status, service);
    const observed = observe(this.profile, {
      suspended: specSuspended(this.profile, spec),
      errors: this.errors,
      pod: pod.pod ? podView(pod.pod, owned) : undefined,
      podError: !!pod.error,
      service: serviceReadiness(spec, service),
    });
    this.setConditions(status, observed);
    this.writeStatus(initial.status as Status | undefined, status);
    if (this.errors.length) return { errors: this.errors };
    if (shutdown !== undefined) return { errors: [], requeueAfterMs: Math.max(shutdown - Date.now(), SHUTDOWN_REQUEUE_FLOOR_MS) };
    return { errors: [] };
  }

  private note(error: string | undefined): void {
    if (error) this.errors.push(error);
  }

  // ---- expiry (§2.6) ----

  private expire(spec: SandboxSpec): ReconcileResult {
    const status = clone((this.sandbox.object.status ?? {}) as Status);
    const observed = observe(this.profile, { suspended: specSuspended(this.profile, spec), expired: true });
    if (findCondition(status.conditions, 'Ready')?.reason !== 'SandboxExpired') {
      this.setConditions(status, observed);
      this.writeStatus(this.sandbox.object.status as Status | undefined, status);
      return this.errors.length ? { errors: this.errors } : { errors: [], requeueAfterMs: IMMEDIATE_REQUEUE_MS };
    }
    this.deleteIfOwned('pods', this.sandbox.trackedPodName(), 'pod');
    this.deleteIfOwned('services', this.sandbox.name, 'service');
    if (spec.shutdownPolicy === 'Delete') {
      try {
        this.client.delete(this.sandbox.target, this.sandbox.name);
        return { errors: [] };
      } catch (error) {
        if (isCode(error, 404)) return { errors: [] };
        this.errors.push(wrapped('failed to delete sandbox', error));
      }
    }
    // Retain (or a failed delete): once the cleanup succeeded, nothing but the conditions is left in status.
    if (!this.errors.length) this.writeStatus(this.sandbox.object.status as Status | undefined, status.conditions ? { conditions: status.conditions } : {});
    return { errors: this.errors };
  }

  private deleteIfOwned(resource: 'pods' | 'services', name: string, kind: string): void {
    const target = this.client.children(resource, this.sandbox.namespace);
    let object: KubeObject | undefined;
    try {
      object = this.client.get(target, name);
    } catch (error) {
      this.errors.push(wrapped(`failed to get ${kind}`, error));
      return;
    }
    if (!object || ownership(object, this.sandbox.uid) !== 'self') return;
    try {
      this.client.delete(target, name);
    } catch (error) {
      if (!isCode(error, 404)) this.errors.push(wrapped(`failed to delete ${kind}`, error));
    }
  }

  // ---- status ----

  /** Pod-derived status (§2.2 step 6.2); the selector is kept once set; a Pod it does not own shows no IPs or node. */
  private podStatus(status: Status, pod: KubeObject | undefined, owned: boolean): void {
    delete status.podIPs;
    delete status.replicas;
    delete status.nodeName;
    if (!pod) return;
    status.selector = `${NAME_HASH_LABEL}=${nameHash(this.sandbox.name)}`;
    if (this.profile.status.replicas) status.replicas = 1;
    // ≤v0.5.0 never gets here with a Pod it does not own; v0.5.4 clears IPs and node for one.
    if (!owned && this.profile.trackTerminatingPod) return;
    const ips = podView(pod, owned).podIPs;
    if (ips.length) status.podIPs = ips;
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (this.profile.status.nodeName && nodeName) status.nodeName = nodeName;
  }

  private serviceStatus(status: Status, outcome: ServiceOutcome): void {
    if (outcome.status === 'keep') return;
    delete status.service;
    delete status.serviceFQDN;
    if (outcome.status === 'clear' || !outcome.service) return;
    const { name, namespace } = outcome.service.metadata;
    status.service = name;
    status.serviceFQDN = `${name}.${namespace}.svc.${this.clusterDomain}`;
  }

  private setConditions(status: Status, observed: Observed): void {
    const generation = this.sandbox.object.metadata.generation ?? 1;
    status.conditions = nextConditions(this.profile, observed, status.conditions, generation, metaTime(), this.errors);
  }

  /**
   * Only when something changed, through the status subresource: ≤v0.5.3 an Update carrying the
   * resourceVersion the controller read (a stale one is a 409, retried with backoff); v0.5.4 a
   * merge patch against what it read, without precondition.
   */
  private writeStatus(started: Status | undefined, status: Status): void {
    const before = started ?? {};
    if (isDeepStrictEqual(before, status)) return;
    if (this.profile.status.skipNodeNameOnlyChange && nodeNameOnlyChange(before, status) && findCondition(status.conditions, 'Ready')?.status !== 'True') return;
    const options = { subresource: 'status' };
    try {
      if (this.profile.status.write === 'update') {
        this.sandbox.object = this.client.update(this.sandbox.target, this.sandbox.name, { ...this.sandbox.object, status }, options);
        return;
      }
      const patch: Record<string, unknown> = {};
      for (const key of Object.keys(before)) if (!(key in status)) patch[key] = null;
      for (const [key, value] of Object.entries(status)) if (!isDeepStrictEqual(before[key], value)) patch[key] = value;
      this.sandbox.object = this.client.patch(this.sandbox.target, this.sandbox.name, { status: patch }, options);
    } catch (error) {
      // Deleted mid-reconcile: nothing to write to.
      if (!isCode(error, 404)) this.errors.push((error as Error).message);
    }
  }
}

function nodeNameOnlyChange(before: Status, after: Status): boolean {
  return before.nodeName !== after.nodeName && isDeepStrictEqual({ ...before, nodeName: undefined }, { ...after, nodeName: undefined });
}

/** Whether the Service counts for Ready: spec.service true, or unset with a Service in use (backward compatibility). */
function serviceReadiness(spec: SandboxSpec, outcome: ServiceOutcome): Observed['service'] {
  const required = spec.service === true || ((spec.service ?? undefined) === undefined && !!outcome.service);
  if (!required) return 'not-required';
  return outcome.service ? 'exists' : 'missing';
}
