import { randomBytes } from 'node:crypto';
import type { ObjectApi } from '../registry/object-api.ts';
import { type KubeObject, metaTime } from '../types.ts';


/** core/v1 Events about Pods, written as the kubelet and scheduler write them. */
export class EventRecorder {
  constructor(
    private readonly api: ObjectApi,
    private readonly component: string,
    private readonly host: string,
  ) {}

  record(pod: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    const stamp = metaTime();
    const namespace = pod.metadata.namespace!;
    try {
      this.api.create(this.api.target('v1', 'events', namespace), {
        metadata: { name: `${pod.metadata.name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: {
          kind: 'Pod',
          namespace,
          name: pod.metadata.name,
          uid: pod.metadata.uid,
          apiVersion: 'v1',
          resourceVersion: pod.metadata.resourceVersion,
          ...(fieldPath ? { fieldPath } : {}),
        },
        reason,
        message,
        type,
        source: { component: this.component, ...(this.component === 'kubelet' ? { host: this.host } : {}) },
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
        reportingComponent: this.component,
        reportingInstance: this.component === 'kubelet' ? this.host : '',
      });
    } catch {
      // Events are best effort, as in Kubernetes: a namespace being deleted refuses them.
    }
  }
}
