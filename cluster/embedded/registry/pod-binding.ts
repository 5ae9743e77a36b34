/** The pods/binding subresource: an unscheduled Pod assigned to a node (the scheduler's only write to spec). */
import { errors } from '../errors.ts';
import { clone, type KubeObject, metaTime } from '../types.ts';

/** The Pod bound to `nodeName` and marked PodScheduled; refused, in kube-apiserver's order, with a Conflict on pods/binding (BindingREST.assignPod). */
export function boundPod(current: KubeObject, name: string, nodeName: string): KubeObject {
  const spec = (current.spec ?? {}) as { nodeName?: string; schedulingGates?: unknown[] };
  if (current.metadata.deletionTimestamp) throw errors.conflict('', 'pods/binding', name, `pod ${name} is being deleted, cannot be assigned to a host`);
  if (spec.nodeName) throw errors.conflict('', 'pods/binding', name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
  if ((spec.schedulingGates ?? []).length > 0) throw errors.conflict('', 'pods/binding', name, `pod ${name} has non-empty .spec.schedulingGates`);
  const next = clone(current);
  (next.spec as Record<string, unknown>).nodeName = nodeName;
  const status = (next.status ?? {}) as { conditions?: Record<string, unknown>[] };
  const stamp = metaTime();
  status.conditions = [
    ...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
    { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: stamp },
  ];
  next.status = status;
  return next;
}
