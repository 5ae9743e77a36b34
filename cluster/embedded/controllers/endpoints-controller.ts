import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { labelSelectorFromObject, type LabelMatcher } from '../store/label-selectors.ts';
import { isPlainObject, type KubeObject, type OwnerReference } from '../types.ts';
import { Controller } from './controller-base.ts';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** Store keys of the resources this controller reads and writes. */
export const ENDPOINTS_KEY = 'endpoints';
export const ENDPOINTSLICES_KEY = 'endpointslices.discovery.k8s.io';

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  appProtocol?: string;
}

interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
  clusterIP?: string;
  type?: string;
  publishNotReadyAddresses?: boolean;
}

interface ContainerPort {
  name?: string;
  containerPort?: number;
  protocol?: string;
}

interface PodView {
  pod: KubeObject;
  ip: string;
  /** Pod condition Ready=True. */
  podReady: boolean;
  terminating: boolean;
}

/** A resolved port, as both APIs write it (Endpoints omits an empty name, EndpointSlice keeps it). */
interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/**
 * kube-controller-manager's endpoints and endpointslice controllers in one: for every Service
 * with a selector, the Pods of its namespace that match it become the `Endpoints` object of the
 * same name and `discovery.k8s.io/v1` EndpointSlices labelled `kubernetes.io/service-name`.
 * Both are owned by the Service (controller + blockOwnerDeletion), so the garbage collector
 * removes them with it.
 *
 * Upstream rules followed: Pods without an IP and terminal Pods (Succeeded/Failed) are left out;
 * a named targetPort is resolved per Pod from its container ports (a Pod lacking the name is left
 * out of that port); Endpoints leave terminating Pods out, EndpointSlices keep them with
 * `ready: false, serving: <Ready condition>, terminating: true`; `publishNotReadyAddresses`
 * makes every address ready. Pods with different resolved port sets go into different slices,
 * as upstream. Not modelled: the 1000-address Endpoints cap, 100-endpoint slice chunking, zones,
 * trigger-time annotations, IPv6.
 * Keys are `namespace/name` of Services.
 */
export class EndpointsController extends Controller {
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi) {
    super('endpoints-controller');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => this.observe(event));
    for (const svc of api.store.list('services')) this.enqueue(keyOf(svc));
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  private observe(event: StoreEvent): void {
    const { object, previous } = event;
    const namespace = object.metadata.namespace;
    switch (event.resource) {
      case 'services':
        this.enqueue(keyOf(object));
        return;
      case 'pods': {
        if (!namespace) return;
        for (const svc of this.api.store.list('services', namespace)) {
          const matches = selectorOf(svc);
          if (!matches) continue;
          if (matches(object.metadata.labels) || (previous && matches(previous.metadata.labels))) this.enqueue(keyOf(svc));
        }
        return;
      }
      case ENDPOINTS_KEY:
        // Someone else changed or deleted it: put it back the way the Service wants it.
        this.enqueue(keyOf(object));
        return;
      case ENDPOINTSLICES_KEY: {
        for (const o of [object, previous]) {
          const service = o?.metadata.labels?.[SERVICE_NAME_LABEL];
          if (service && namespace) this.enqueue(`${namespace}/${service}`);
        }
        return;
      }
    }
  }

  protected override reconcile(key: string): number | void {
    const [namespace, name] = splitKey(key);
    const svc = this.api.store.get('services', namespace, name);
    // A Service gone takes its Endpoints and slices along through the garbage collector.
    // While it is being deleted nothing is (re)written, so foreground deletion can finish.
    if (!svc || svc.metadata.deletionTimestamp) return;
    const matches = selectorOf(svc);
    // Without a selector the Endpoints are the user's to manage.
    if (!matches) return;
    const spec = specOf(svc);
    const pods = this.api.store
      .list('pods', namespace)
      .filter((pod) => matches(pod.metadata.labels))
      .map(viewOf)
      .filter((view): view is PodView => !!view);
    this.syncEndpoints(svc, spec, pods);
    if (spec.type !== 'ExternalName') this.syncSlices(svc, spec, pods);
  }

  // ---- core/v1 Endpoints ----

  private syncEndpoints(svc: KubeObject, spec: ServiceSpec, pods: PodView[]): void {
    const { namespace, name } = svc.metadata;
    const tolerateUnready = spec.publishNotReadyAddresses === true;
    const headless = spec.clusterIP === 'None';
    const ports = spec.ports ?? [];
    const entries: { address: Record<string, unknown>; ready: boolean; ports: EndpointPort[] }[] = [];
    for (const view of pods) {
      if (view.terminating && !tolerateUnready) continue;
      const resolved = ports.map((p) => resolvePort(view.pod, p)).filter((p): p is EndpointPort => !!p);
      // A Pod offering none of the Service's ports is no endpoint, except for a port-less headless Service.
      if (resolved.length === 0 && !(headless && ports.length === 0)) continue;
      entries.push({ address: endpointAddress(view, svc), ready: tolerateUnready || view.podReady, ports: resolved });
    }
    // RepackSubsets: addresses that offer the same set of ports share a subset.
    const groups = new Map<string, { ports: EndpointPort[]; ready: Record<string, unknown>[]; notReady: Record<string, unknown>[] }>();
    for (const entry of entries) {
      const sorted = sortPorts(entry.ports);
      const groupKey = JSON.stringify(sorted);
      let group = groups.get(groupKey);
      if (!group) groups.set(groupKey, (group = { ports: sorted, ready: [], notReady: [] }));
      (entry.ready ? group.ready : group.notReady).push(entry.address);
    }
    const subsets = [...groups.values()]
      .map((g) => {
        const subset: Record<string, unknown> = {};
        if (g.ready.length) subset.addresses = sortAddresses(g.ready);
        if (g.notReady.length) subset.notReadyAddresses = sortAddresses(g.notReady);
        if (g.ports.length) subset.ports = g.ports.map(endpointsPort);
        return subset;
      })
      .sort((a, b) => compare(firstIp(a), firstIp(b)));

    const labels = serviceLabels(svc, headless);
    const ownerReferences = [ownerReferenceTo(svc)];
    const target = this.api.target('v1', 'endpoints', namespace);
    const current = this.api.store.get(ENDPOINTS_KEY, namespace, name!);
    const desired: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: current ? { ...current.metadata, labels, ownerReferences } : { name, namespace, labels, ownerReferences },
    };
    if (subsets.length) desired.subsets = subsets;
    if (!current) {
      this.api.create(target, desired);
      return;
    }
    const unchanged =
      isDeepStrictEqual(current.metadata.labels ?? {}, labels) &&
      isDeepStrictEqual(current.metadata.ownerReferences ?? [], ownerReferences) &&
      isDeepStrictEqual(current.subsets ?? [], subsets);
    if (!unchanged) this.api.update(target, name!, desired);
  }

  // ---- discovery.k8s.io/v1 EndpointSlices ----

  private syncSlices(svc: KubeObject, spec: ServiceSpec, pods: PodView[]): void {
    const { namespace, name, uid } = svc.metadata;
    const tolerateUnready = spec.publishNotReadyAddresses === true;
    const headless = spec.clusterIP === 'None';
    // port set -> endpoints offering exactly it
    const groups = new Map<string, { ports: EndpointPort[]; endpoints: Record<string, unknown>[] }>();
    for (const view of pods) {
      const ports = sortPorts((spec.ports ?? []).map((p) => resolvePort(view.pod, p)).filter((p): p is EndpointPort => !!p));
      const groupKey = JSON.stringify(ports);
      let group = groups.get(groupKey);
      if (!group) groups.set(groupKey, (group = { ports, endpoints: [] }));
      group.endpoints.push(sliceEndpoint(view, svc, tolerateUnready));
    }
    // A Service without endpoints still gets one (placeholder) slice, as upstream.
    if (groups.size === 0) groups.set('[]', { ports: [], endpoints: [] });

    const target = this.api.target('discovery.k8s.io/v1', 'endpointslices', namespace);
    const existing = this.api.store
      .list(ENDPOINTSLICES_KEY, namespace)
      .filter(
        (s) =>
          s.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
          s.metadata.labels?.[MANAGED_BY_LABEL] === ENDPOINTSLICE_CONTROLLER &&
          (s.metadata.ownerReferences ?? []).some((r) => r.uid === uid) &&
          !s.metadata.deletionTimestamp,
      );
    const labels = {
      ...serviceLabels(svc, headless),
      [SERVICE_NAME_LABEL]: name!,
      [MANAGED_BY_LABEL]: ENDPOINTSLICE_CONTROLLER,
    };
    const ownerReferences = [ownerReferenceTo(svc)];
    const desiredOf = (group: { ports: EndpointPort[]; endpoints: Record<string, unknown>[] }) => ({
      addressType: 'IPv4',
      endpoints: sortEndpoints(group.endpoints),
      ports: group.ports.map((p) => ({ ...p })),
    });

    // Keep slice names stable: a group first takes a slice that already carries its ports, then any left over.
    const unassigned = [...groups.values()];
    const free: KubeObject[] = [];
    const plan: { slice?: KubeObject; group: (typeof unassigned)[number] }[] = [];
    for (const slice of existing) {
      const index = unassigned.findIndex((g) => isDeepStrictEqual(g.ports, slicePorts(slice)));
      if (index >= 0) plan.push({ slice, group: unassigned.splice(index, 1)[0] });
      else free.push(slice);
    }
    for (const group of unassigned) plan.push({ slice: free.shift(), group });

    for (const { slice, group } of plan) {
      const body = desiredOf(group);
      if (!slice) {
        this.api.create(target, {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: `${name}-`, namespace, labels, ownerReferences },
          ...body,
        });
        continue;
      }
      const unchanged =
        isDeepStrictEqual(slice.metadata.labels ?? {}, labels) &&
        isDeepStrictEqual(slice.metadata.ownerReferences ?? [], ownerReferences) &&
        slice.addressType === body.addressType &&
        isDeepStrictEqual(slice.endpoints ?? [], body.endpoints) &&
        isDeepStrictEqual(slice.ports ?? [], body.ports);
      if (unchanged) continue;
      this.api.update(target, slice.metadata.name!, {
        ...slice,
        metadata: { ...slice.metadata, labels, ownerReferences },
        ...body,
      });
    }
    for (const slice of free) ignoreNotFound(() => this.api.delete(target, slice.metadata.name!, { preconditions: { uid: slice.metadata.uid } }));
  }
}

// ---- helpers ----

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function specOf(svc: KubeObject): ServiceSpec {
  return (isPlainObject(svc.spec) ? svc.spec : {}) as ServiceSpec;
}

/** The Service's selector as a matcher; undefined when it has none (an empty map is none, as in Go). */
function selectorOf(svc: KubeObject): LabelMatcher | undefined {
  const selector = specOf(svc).selector;
  if (!isPlainObject(selector) || Object.keys(selector).length === 0) return undefined;
  try {
    return labelSelectorFromObject({ matchLabels: selector as Record<string, string> });
  } catch {
    return undefined;
  }
}

function podIpOf(pod: KubeObject): string | undefined {
  const status = (isPlainObject(pod.status) ? pod.status : {}) as { podIP?: string; podIPs?: { ip?: string }[] };
  return status.podIP || status.podIPs?.[0]?.ip || undefined;
}

/** endpointsutil.ShouldPodBeInEndpoints with includeTerminating: no IP or a terminal phase excludes a Pod. */
function viewOf(pod: KubeObject): PodView | undefined {
  const status = (isPlainObject(pod.status) ? pod.status : {}) as { phase?: string; conditions?: { type?: string; status?: string }[] };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const ip = podIpOf(pod);
  if (!ip) return undefined;
  const podReady = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  return { pod, ip, podReady, terminating: !!pod.metadata.deletionTimestamp };
}

/** podutil.FindPort: a numeric targetPort as is, a named one from the Pod's container ports of that protocol. */
function resolvePort(pod: KubeObject, servicePort: ServicePort): EndpointPort | undefined {
  const protocol = servicePort.protocol ?? 'TCP';
  const target = servicePort.targetPort ?? servicePort.port;
  let port: number | undefined;
  if (typeof target === 'number') port = target === 0 ? servicePort.port : target;
  else {
    const spec = (isPlainObject(pod.spec) ? pod.spec : {}) as { containers?: { ports?: ContainerPort[] }[] };
    for (const container of spec.containers ?? []) {
      const found = (container.ports ?? []).find((p) => p.name === target && (p.protocol ?? 'TCP') === protocol);
      if (found && typeof found.containerPort === 'number') {
        port = found.containerPort;
        break;
      }
    }
  }
  if (port === undefined) return undefined;
  const result: EndpointPort = { name: servicePort.name ?? '', port, protocol };
  if (servicePort.appProtocol) result.appProtocol = servicePort.appProtocol;
  return result;
}

function endpointsPort(p: EndpointPort): Record<string, unknown> {
  const { name, ...rest } = p;
  return name ? { name, ...rest } : rest;
}

function targetRefOf(pod: KubeObject): Record<string, unknown> {
  return { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
}

/** A Pod's hostname is published only for the Service its subdomain names. */
function hostnameFor(pod: KubeObject, svc: KubeObject): string | undefined {
  const spec = (isPlainObject(pod.spec) ? pod.spec : {}) as { hostname?: string; subdomain?: string };
  return spec.hostname && spec.subdomain === svc.metadata.name ? spec.hostname : undefined;
}

function nodeNameOf(pod: KubeObject): string | undefined {
  const spec = (isPlainObject(pod.spec) ? pod.spec : {}) as { nodeName?: string };
  return spec.nodeName || undefined;
}

function endpointAddress(view: PodView, svc: KubeObject): Record<string, unknown> {
  const address: Record<string, unknown> = { ip: view.ip };
  const hostname = hostnameFor(view.pod, svc);
  if (hostname) address.hostname = hostname;
  const nodeName = nodeNameOf(view.pod);
  if (nodeName) address.nodeName = nodeName;
  address.targetRef = targetRefOf(view.pod);
  return address;
}

function sliceEndpoint(view: PodView, svc: KubeObject, tolerateUnready: boolean): Record<string, unknown> {
  const serving = view.podReady;
  const endpoint: Record<string, unknown> = {
    addresses: [view.ip],
    conditions: { ready: tolerateUnready || (serving && !view.terminating), serving, terminating: view.terminating },
  };
  const hostname = hostnameFor(view.pod, svc);
  if (hostname) endpoint.hostname = hostname;
  endpoint.targetRef = targetRefOf(view.pod);
  const nodeName = nodeNameOf(view.pod);
  if (nodeName) endpoint.nodeName = nodeName;
  return endpoint;
}

function slicePorts(slice: KubeObject): EndpointPort[] {
  return sortPorts(((slice.ports ?? []) as EndpointPort[]).map((p) => ({ ...p, name: p.name ?? '' })));
}

function serviceLabels(svc: KubeObject, headless: boolean): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata.labels ?? {}) };
  delete labels[SERVICE_NAME_LABEL];
  delete labels[MANAGED_BY_LABEL];
  delete labels[HEADLESS_LABEL];
  if (headless) labels[HEADLESS_LABEL] = '';
  return labels;
}

function ownerReferenceTo(svc: KubeObject): OwnerReference {
  return { apiVersion: 'v1', kind: 'Service', name: svc.metadata.name!, uid: svc.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders IPv4 text numerically (127.2.0.10 after 127.2.0.9). */
function ipOrder(ip: string): string {
  return /^\d+\.\d+\.\d+\.\d+$/.test(ip) ? ip.split('.').map((o) => o.padStart(3, '0')).join('.') : ip;
}

function sortPorts(ports: EndpointPort[]): EndpointPort[] {
  return [...ports].sort((a, b) => compare(a.name, b.name) || a.port - b.port || compare(a.protocol, b.protocol));
}

function addressSortKey(address: Record<string, unknown>): string {
  const ref = address.targetRef as { uid?: string } | undefined;
  return `${ipOrder(String(address.ip))}/${ref?.uid ?? ''}`;
}

function sortAddresses(addresses: Record<string, unknown>[]): Record<string, unknown>[] {
  return [...addresses].sort((a, b) => compare(addressSortKey(a), addressSortKey(b)));
}

function sortEndpoints(endpoints: Record<string, unknown>[]): Record<string, unknown>[] {
  const keyFor = (e: Record<string, unknown>) => addressSortKey({ ip: (e.addresses as string[])[0], targetRef: e.targetRef });
  return [...endpoints].sort((a, b) => compare(keyFor(a), keyFor(b)));
}

function firstIp(subset: Record<string, unknown>): string {
  const list = (subset.addresses ?? subset.notReadyAddresses ?? []) as { ip?: string }[];
  return ipOrder(list[0]?.ip ?? '');
}

function ignoreNotFound(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 404)) throw error;
  }
}
