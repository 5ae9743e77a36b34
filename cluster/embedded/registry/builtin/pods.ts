import { isDeepStrictEqual } from 'node:util';
import { causes, type StatusCause } from '../../errors.ts';
import { isPlainObject, type KubeObject, metaTime } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

type Container = { name?: string; image?: string; [k: string]: unknown };
type PodSpec = {
  containers?: Container[];
  initContainers?: Container[];
  schedulingGates?: { name: string }[];
  nodeName?: string;
  terminationGracePeriodSeconds?: number;
  [k: string]: unknown;
};

function spec(pod: KubeObject): PodSpec {
  return (isPlainObject(pod.spec) ? pod.spec : {}) as PodSpec;
}

function status(pod: KubeObject): Record<string, unknown> {
  return (isPlainObject(pod.status) ? pod.status : {}) as Record<string, unknown>;
}

/** Defaults the API server fills in, so clients read back what a real cluster would show. */
function prepareForCreate(pod: KubeObject): void {
  const s = spec(pod);
  s.restartPolicy ??= 'Always';
  s.terminationGracePeriodSeconds ??= 30;
  s.dnsPolicy ??= 'ClusterFirst';
  s.schedulerName ??= 'default-scheduler';
  s.serviceAccountName ??= 'default';
  s.enableServiceLinks ??= true;
  s.securityContext ??= {};
  for (const c of [...(s.initContainers ?? []), ...(s.containers ?? [])]) {
    c.terminationMessagePath ??= '/dev/termination-log';
    c.terminationMessagePolicy ??= 'File';
    c.imagePullPolicy ??= typeof c.image === 'string' && (c.image.endsWith(':latest') || !c.image.includes(':')) ? 'Always' : 'IfNotPresent';
    c.resources ??= {};
  }
  pod.spec = s;
  const gated = (s.schedulingGates ?? []).length > 0;
  pod.status = {
    phase: 'Pending',
    qosClass: 'BestEffort',
    ...(gated
      ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates', lastProbeTime: null, lastTransitionTime: metaTime() }] }
      : {}),
  };
}

function validateContainers(list: Container[] | undefined, field: string, required: boolean): StatusCause[] {
  const result: StatusCause[] = [];
  if (!list || list.length === 0) {
    if (required) result.push(causes.required(field));
    return result;
  }
  const seen = new Set<string>();
  list.forEach((c, i) => {
    if (!c.name) result.push(causes.required(`${field}[${i}].name`));
    else if (seen.has(c.name)) result.push({ reason: 'FieldValueDuplicate', field: `${field}[${i}].name`, message: `Duplicate value: "${c.name}"` });
    else seen.add(c.name);
    if (!c.image) result.push(causes.required(`${field}[${i}].image`));
  });
  return result;
}

function validateCreate(pod: KubeObject): StatusCause[] {
  const s = spec(pod);
  return [...validateContainers(s.containers, 'spec.containers', true), ...validateContainers(s.initContainers, 'spec.initContainers', false)];
}

/**
 * A Pod's spec is immutable but for container images, activeDeadlineSeconds, added tolerations and
 * removed scheduling gates; nodeName is set only through the binding subresource.
 */
function validateUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const result: StatusCause[] = [];
  const next = spec(pod);
  const prev = spec(old);
  const prevGates = (prev.schedulingGates ?? []).map((g) => g.name);
  const nextGates = (next.schedulingGates ?? []).map((g) => g.name);
  nextGates.forEach((gate, i) => {
    if (!prevGates.includes(gate)) {
      result.push(causes.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${gate}'`));
    }
  });
  const comparable = (s: PodSpec) => {
    const { containers, initContainers, schedulingGates: _g, activeDeadlineSeconds: _a, tolerations: _t, ...rest } = s;
    const strip = (list?: Container[]) => list?.map(({ image: _i, ...c }) => c);
    return { ...rest, containers: strip(containers), initContainers: strip(initContainers) };
  };
  if (!isDeepStrictEqual(comparable(next), comparable(prev))) {
    result.push(
      causes.forbidden(
        'spec',
        'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
      ),
    );
  }
  return result;
}

/**
 * Graceful deletion: a Pod bound to a node stays, with deletionTimestamp and
 * deletionGracePeriodSeconds, until the node agent confirms its containers stopped.
 * Unscheduled and terminal Pods have nothing to stop and go at once.
 */
function gracePeriodSeconds(pod: KubeObject, requested: number | undefined): number {
  const s = spec(pod);
  const phase = status(pod).phase;
  if (!s.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  const grace = requested ?? s.terminationGracePeriodSeconds ?? 30;
  return Math.max(0, grace);
}

function containerSummary(pod: KubeObject): { ready: string; status: string; restarts: number } {
  const s = spec(pod);
  const st = status(pod);
  const statuses = (Array.isArray(st.containerStatuses) ? st.containerStatuses : []) as {
    ready?: boolean;
    restartCount?: number;
    state?: { waiting?: { reason?: string }; terminated?: { reason?: string; exitCode?: number; signal?: number } };
  }[];
  const total = s.containers?.length ?? 0;
  const ready = statuses.filter((c) => c.ready).length;
  let shown = String(st.phase ?? 'Pending');
  if (isPlainObject(st) && typeof st.reason === 'string') shown = st.reason;
  for (const c of statuses) {
    const waiting = c.state?.waiting?.reason;
    const terminated = c.state?.terminated;
    if (waiting) shown = waiting;
    else if (terminated && shown !== 'Running') shown = terminated.reason ?? (terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`);
  }
  if ((s.schedulingGates ?? []).length > 0 && shown === 'Pending') shown = 'SchedulingGated';
  if (pod.metadata.deletionTimestamp) shown = 'Terminating';
  return { ready: `${ready}/${total}`, status: shown, restarts: statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0) };
}

export const podStrategy: ResourceStrategy = {
  prepareForCreate,
  validateCreate,
  validateUpdate,
  gracePeriodSeconds,
  table: {
    columns: [
      { name: 'Ready', type: 'string', jsonPath: '', description: 'The aggregate readiness state of this pod for accepting traffic.' },
      { name: 'Status', type: 'string', jsonPath: '', description: 'The aggregate status of the containers in this pod.' },
      { name: 'Restarts', type: 'string', jsonPath: '', description: 'The number of times the containers in this pod have been restarted.' },
      { name: 'IP', type: 'string', jsonPath: '', description: 'The IP address assigned to the pod.', priority: 1 },
      { name: 'Node', type: 'string', jsonPath: '', description: 'The node the pod is assigned to.', priority: 1 },
      { name: 'Nominated Node', type: 'string', jsonPath: '', description: 'The node the scheduler nominated for a preemption, if any.', priority: 1 },
      { name: 'Readiness Gates', type: 'string', jsonPath: '', description: 'The readiness gates met, of those the pod has.', priority: 1 },
    ],
    cells(pod) {
      const summary = containerSummary(pod);
      const gates = ((spec(pod).readinessGates ?? []) as { conditionType?: string }[]).map((g) => g.conditionType);
      const conditions = (Array.isArray(status(pod).conditions) ? status(pod).conditions : []) as { type?: string; status?: string }[];
      const met = gates.filter((g) => conditions.some((c) => c.type === g && c.status === 'True')).length;
      return [
        summary.ready,
        summary.status,
        summary.restarts,
        status(pod).podIP ?? '<none>',
        spec(pod).nodeName ?? '<none>',
        status(pod).nominatedNodeName ?? '<none>',
        gates.length ? `${met}/${gates.length}` : '<none>',
      ];
    },
  },
};
