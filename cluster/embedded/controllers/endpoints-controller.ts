import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject, OwnerReference } from '../types.ts';
import { Controller } from './controller-base.ts';
import {
  compareStrings,
  endpointAddress,
  endpointsPort,
  firstIp,
  podViewOf,
  resolvePort,
  serviceSelectorOf,
  serviceSpecOf,
  sliceEndpoint,
  slicePorts,
  sortAddresses,
  sortEndpoints,
  sortPorts,
  type EndpointPort,
  type PodView,
  type ServiceSpec,
} from './service-endpoints.ts';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** Store keys of the resources this controller reads and writes. */
export const ENDPOINTS_KEY = 'endpoints';
export const ENDPOINTSLICES_KEY = 'endpointslices.discovery.k8s.io';

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
          const matches = serviceSelectorOf(svc);
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
    const matches = serviceSelectorOf(svc);
    // Without a selector the Endpoints are the user's to manage.
    if (!matches) return;
    const spec = serviceSpecOf(svc);
    const pods = this.api.store
      .list('pods', namespace)
      .filter((pod) => matches(pod.metadata.labels))
      .map(podViewOf)
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
      .sort((a, b) => compareStrings(firstIp(a), firstIp(b)));

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

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
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

function ignoreNotFound(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 404)) throw error;
  }
}
