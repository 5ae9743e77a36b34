import { isPlainObject, type KubeObject } from '../../types.ts';
import type { PrinterColumn, ResourceStrategy } from '../resource-type.ts';

/**
 * What `kubectl get` prints for kinds whose server-side Table kube-apiserver builds itself (its
 * printers): the same columns, in the same order, with the same wide (priority 1) columns.
 */

/** `kubectl get`'s AGE column (HumanDuration): 45s, 3m12s, 5h, 2d; `<unknown>` without a time. */
export function age(timestamp: unknown): string {
  if (typeof timestamp !== 'string' || !timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

const record = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});
const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isPlainObject) : []);
const column = (name: string, type: string, description: string, priority = 0, format = ''): PrinterColumn => ({ name, type, jsonPath: '', description, priority, format });
const NAME = column('Name', 'string', 'Name must be unique within a namespace.', 0, 'name');
const AGE = column('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

/** metav1.FormatLabelSelector: `app=web,tier in (a,b)`, `<none>` for an empty selector. */
export function formatLabelSelector(selector: unknown): string {
  const s = record(selector);
  const terms = Object.entries(record(s.matchLabels)).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of list(s.matchExpressions)) {
    const values = (Array.isArray(e.values) ? e.values : []).join(',');
    if (e.operator === 'In') terms.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') terms.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') terms.push(String(e.key));
    else if (e.operator === 'DoesNotExist') terms.push(`!${e.key}`);
  }
  return terms.length ? terms.join(',') : '<none>';
}

/** Events: no NAME or AGE up front; when it last happened, what, to which object. */
export const eventTable: ResourceStrategy['table'] = {
  complete: true,
  columns: [
    column('Last Seen', 'string', 'Time when last this event was seen'),
    column('Type', 'string', 'Type of this event (Normal, Warning)'),
    column('Reason', 'string', 'Short, machine understandable string that gives the reason for the transition into the object current status.'),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', 'The subobject (field path) that this event is about.', 1),
    column('Source', 'string', 'The component reporting this event.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    { ...NAME, priority: 1 },
  ],
  cells(event) {
    // core/v1 names first, events.k8s.io/v1 names second: both groups serve the same events.
    const involved = record(event.involvedObject ?? event.regarding);
    const source = record(event.source ?? event.deprecatedSource);
    const series = record(event.series);
    const first = event.firstTimestamp || event.deprecatedFirstTimestamp || event.eventTime;
    const last = event.lastTimestamp || event.deprecatedLastTimestamp || series.lastObservedTime || event.eventTime || first;
    const sourceText = [source.component || event.reportingComponent || event.reportingController, source.host || event.reportingInstance].filter(Boolean).join(', ');
    return [
      age(last),
      event.type ?? '',
      event.reason ?? '',
      `${String(involved.kind ?? '').toLowerCase()}/${String(involved.name ?? '')}`,
      involved.fieldPath ?? '',
      sourceText,
      String(event.message ?? event.note ?? '').trim(),
      age(first),
      Number(series.count ?? event.count ?? event.deprecatedCount ?? 1),
      event.metadata.name,
    ];
  },
};

/** Nodes: readiness, roles from node-role labels, kubelet version; addresses and OS details when wide. */
export const nodeTable: ResourceStrategy['table'] = {
  complete: true,
  columns: [
    NAME,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', 'List of internal IPs of the node.', 1),
    column('External-IP', 'string', 'List of external IPs of the node.', 1),
    column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    column('Container-Runtime', 'string', 'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  cells(node) {
    const status = record(node.status);
    const info = record(status.nodeInfo);
    const ready = list(status.conditions).find((c) => c.type === 'Ready');
    const states = [ready ? (ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown') : 'Unknown'];
    if (record(node.spec).unschedulable) states.push('SchedulingDisabled');
    const roles = Object.keys(node.metadata.labels ?? {})
      .filter((l) => l.startsWith('node-role.kubernetes.io/'))
      .map((l) => l.slice('node-role.kubernetes.io/'.length))
      .filter(Boolean)
      .sort();
    const address = (type: string) => list(status.addresses).find((a) => a.type === type)?.address ?? '<none>';
    const known = (value: unknown) => (typeof value === 'string' && value ? value : '<unknown>');
    return [
      node.metadata.name,
      states.join(','),
      roles.length ? roles.join(',') : '<none>',
      age(node.metadata.creationTimestamp),
      info.kubeletVersion ?? '',
      address('InternalIP'),
      address('ExternalIP'),
      known(info.osImage),
      known(info.kernelVersion),
      known(info.containerRuntimeVersion),
    ];
  },
};

/** Deployments: ready/desired, up-to-date, available; containers, images and selector when wide. */
export const deploymentTable: ResourceStrategy['table'] = {
  columns: [
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    column('Containers', 'string', 'Names of each container in the template.', 1),
    column('Images', 'string', 'Images referenced by each container in the template.', 1),
    column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
  ],
  cells(deployment) {
    const spec = record(deployment.spec);
    const status = record(deployment.status);
    const containers = list(record(record(spec.template).spec).containers);
    return [
      `${Number(status.readyReplicas ?? 0)}/${Number(spec.replicas ?? 1)}`,
      Number(status.updatedReplicas ?? 0),
      Number(status.availableReplicas ?? 0),
      containers.map((c) => c.name).join(','),
      containers.map((c) => c.image).join(','),
      formatLabelSelector(spec.selector),
    ];
  },
};
