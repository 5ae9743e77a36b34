/**
 * What the timeline keeps of one watched object: its identity, the role the role selectors find
 * it in, and what the invariant families read (Pod gates, readiness, grace, containers; the
 * Sandbox's suspension, conditions and bootstrap phase). One function, used by the harness's
 * recorder and by the driver's own tests, so both judge the same observations.
 */
import { isSuspendedInSpec } from '../../driver/agent-sandbox-api.ts';
import { ANNOTATION } from '../../driver/kubernetes/names.ts';
import { POD_ROLE_NAME, roleOf, type RoleSelectors } from '../../driver/role-selectors.ts';
import type { ContainerObservation, ObjectEntry, WatchedResource } from '../model.ts';

/** An object as a watch delivers it, through a client library or in process (only what is read here). */
export interface ObservedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string | Date;
    deletionGracePeriodSeconds?: number;
  };
  spec?: any;
  status?: any;
}

function containers(pod: ObservedObject): ContainerObservation[] {
  return ((pod.status?.containerStatuses ?? []) as { name: string; restartCount?: number; state?: Record<string, { reason?: string; exitCode?: number; finishedAt?: string }> }[]).map((c) => {
    const state = c.state?.terminated ? 'terminated' : c.state?.running ? 'running' : 'waiting';
    const detail = c.state?.[state];
    return { name: c.name, state, reason: detail?.reason, exitCode: detail?.exitCode, finishedAt: detail?.finishedAt, restartCount: c.restartCount };
  });
}

/** What a Pod entry records beyond its identity: phase, containers, and what the start and stop rules read. */
function podObservation(pod: ObservedObject): Pick<ObjectEntry, 'phase' | 'containers' | 'terminationGracePeriodSeconds' | 'schedulingGates' | 'ready'> {
  return {
    phase: pod.status?.phase,
    containers: containers(pod),
    terminationGracePeriodSeconds: pod.spec?.terminationGracePeriodSeconds,
    schedulingGates: ((pod.spec?.schedulingGates ?? []) as { name: string }[]).map((g) => g.name),
    ready: ((pod.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True'),
  };
}

/** The entry for one watched change, without its place in the recording (seq, t); undefined when the object plays no role. */
export function observeObject(roles: RoleSelectors, sandboxApiVersion: string, resource: WatchedResource, type: ObjectEntry['type'], object: ObservedObject): Omit<ObjectEntry, 'seq' | 't'> | undefined {
  const meta = object.metadata ?? {};
  const played = roleOf(roles, resource, meta.labels);
  if (!played) return undefined;
  const entry: Omit<ObjectEntry, 'seq' | 't'> = {
    kind: 'object',
    resource,
    type,
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    role: POD_ROLE_NAME[played.role],
    sandboxId: played.id,
    ...(meta.deletionTimestamp ? { deletionTimestamp: new Date(meta.deletionTimestamp).toISOString(), deletionGracePeriodSeconds: meta.deletionGracePeriodSeconds } : {}),
  };
  if (resource === 'pods') Object.assign(entry, podObservation(object));
  if (resource === 'sandboxes') {
    const apiVersion = object.apiVersion ?? sandboxApiVersion;
    entry.sandbox = {
      suspended: isSuspendedInSpec(apiVersion, object.spec),
      apiVersion,
      generation: meta.generation,
      conditions: ((object.status?.conditions ?? []) as { type: string; status: string; reason?: string; observedGeneration?: number }[]).map(({ type, status, reason, observedGeneration }) => ({ type, status, reason, observedGeneration })),
      bootstrapPhase: meta.annotations?.[ANNOTATION.phase],
    };
  }
  return entry;
}
