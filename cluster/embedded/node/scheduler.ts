import { ApiError } from '../errors.ts';
import { Controller } from '../controllers/controller-base.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { type KubeObject, metaTime } from '../types.ts';
import type { EventRecorder } from './event-recorder.ts';

/**
 * The scheduler for a one-node cluster, plus the volume binder: binds every Pod that has no
 * node, no scheduling gates and all its PersistentVolumeClaims, and marks claims Bound. A Pod
 * whose claim is missing stays Pending with a FailedScheduling event saying which.
 * Keys are `namespace/name` of Pods.
 */
export class Scheduler extends Controller {
  private readonly unsubscribe: () => void;
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly api: ObjectApi,
    private readonly nodeName: string,
    private readonly events: EventRecorder,
  ) {
    super('scheduler');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => {
      const { metadata } = event.object;
      if (event.resource === 'pods' && event.type !== 'DELETED') this.enqueue(`${metadata.namespace}/${metadata.name}`);
      if (event.resource === 'persistentvolumeclaims' && event.type !== 'DELETED') {
        this.enqueue(`pvc:${metadata.namespace}/${metadata.name}`);
        for (const pod of api.store.list('pods', metadata.namespace)) this.enqueue(`${metadata.namespace}/${pod.metadata.name}`);
      }
    });
    for (const pod of api.store.list('pods')) this.enqueue(`${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  protected override reconcile(key: string): void {
    if (key.startsWith('pvc:')) return this.bindClaim(key.slice(4));
    const [namespace, name] = key.split('/');
    const pod = this.api.store.get('pods', namespace, name);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const spec = pod.spec as { nodeName?: string; schedulingGates?: unknown[]; volumes?: { persistentVolumeClaim?: { claimName: string } }[] };
    if (spec.nodeName || (spec.schedulingGates ?? []).length > 0) return;
    const missing = (spec.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName).find((claim) => claim && !this.api.store.get('persistentvolumeclaims', namespace, claim));
    if (missing) return this.unschedulable(pod, `0/1 nodes are available: persistentvolumeclaim "${missing}" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.`);
    try {
      this.api.bind(this.api.target('v1', 'pods', namespace), name, this.nodeName);
    } catch (error) {
      if (error instanceof ApiError && (error.code === 404 || error.code === 409)) return;
      throw error;
    }
    this.reported.delete(pod.metadata.uid!);
    this.events.record(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${this.nodeName}`);
  }

  private unschedulable(pod: KubeObject, message: string): void {
    if (this.reported.get(pod.metadata.uid!) === message) return;
    this.reported.set(pod.metadata.uid!, message);
    this.events.record(pod, 'Warning', 'FailedScheduling', message);
    const status = (pod.status ?? {}) as { conditions?: { type: string }[] };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: metaTime() } as never);
    this.api.update(this.api.target('v1', 'pods', pod.metadata.namespace), pod.metadata.name!, { ...pod, status: { ...status, conditions } }, { subresource: 'status' });
  }

  private bindClaim(key: string): void {
    const [namespace, name] = key.split('/');
    const claim = this.api.store.get('persistentvolumeclaims', namespace, name);
    if (!claim || (claim.status as { phase?: string } | undefined)?.phase === 'Bound') return;
    const spec = (claim.spec ?? {}) as { accessModes?: string[]; resources?: { requests?: { storage?: string } } };
    this.api.update(
      this.api.target('v1', 'persistentvolumeclaims', namespace),
      name,
      { ...claim, status: { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' } } },
      { subresource: 'status' },
    );
  }
}
