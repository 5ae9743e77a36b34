/**
 * A Service's endpoints read from its Pods, as upstream's endpoints and endpointslice controllers
 * read them: which Pods count and how ready they are, their addresses, the Service's ports
 * resolved per Pod, and the order both APIs list them in.
 */
import { labelSelectorFromObject, type LabelMatcher } from '../store/label-selectors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  appProtocol?: string;
}

export interface ServiceSpec {
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

export interface PodView {
  pod: KubeObject;
  ip: string;
  /** Pod condition Ready=True. */
  podReady: boolean;
  terminating: boolean;
}

/** A resolved port, as both APIs write it (Endpoints omits an empty name, EndpointSlice keeps it). */
export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export function serviceSpecOf(svc: KubeObject): ServiceSpec {
  return (isPlainObject(svc.spec) ? svc.spec : {}) as ServiceSpec;
}

/** The Service's selector as a matcher; undefined when it has none (an empty map is none, as in Go). */
export function serviceSelectorOf(svc: KubeObject): LabelMatcher | undefined {
  const selector = serviceSpecOf(svc).selector;
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
export function podViewOf(pod: KubeObject): PodView | undefined {
  const status = (isPlainObject(pod.status) ? pod.status : {}) as { phase?: string; conditions?: { type?: string; status?: string }[] };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const ip = podIpOf(pod);
  if (!ip) return undefined;
  const podReady = (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  return { pod, ip, podReady, terminating: !!pod.metadata.deletionTimestamp };
}

/** podutil.FindPort: a numeric targetPort as is, a named one from the Pod's container ports of that protocol. */
export function resolvePort(pod: KubeObject, servicePort: ServicePort): EndpointPort | undefined {
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

export function endpointsPort(p: EndpointPort): Record<string, unknown> {
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

export function endpointAddress(view: PodView, svc: KubeObject): Record<string, unknown> {
  const address: Record<string, unknown> = { ip: view.ip };
  const hostname = hostnameFor(view.pod, svc);
  if (hostname) address.hostname = hostname;
  const nodeName = nodeNameOf(view.pod);
  if (nodeName) address.nodeName = nodeName;
  address.targetRef = targetRefOf(view.pod);
  return address;
}

export function sliceEndpoint(view: PodView, svc: KubeObject, tolerateUnready: boolean): Record<string, unknown> {
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

export function slicePorts(slice: KubeObject): EndpointPort[] {
  return sortPorts(((slice.ports ?? []) as EndpointPort[]).map((p) => ({ ...p, name: p.name ?? '' })));
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders IPv4 text numerically (127.2.0.10 after 127.2.0.9). */
function ipOrder(ip: string): string {
  return /^\d+\.\d+\.\d+\.\d+$/.test(ip) ? ip.split('.').map((o) => o.padStart(3, '0')).join('.') : ip;
}

export function sortPorts(ports: EndpointPort[]): EndpointPort[] {
  return [...ports].sort((a, b) => compareStrings(a.name, b.name) || a.port - b.port || compareStrings(a.protocol, b.protocol));
}

function addressSortKey(address: Record<string, unknown>): string {
  const ref = address.targetRef as { uid?: string } | undefined;
  return `${ipOrder(String(address.ip))}/${ref?.uid ?? ''}`;
}

export function sortAddresses(addresses: Record<string, unknown>[]): Record<string, unknown>[] {
  return [...addresses].sort((a, b) => compareStrings(addressSortKey(a), addressSortKey(b)));
}

export function sortEndpoints(endpoints: Record<string, unknown>[]): Record<string, unknown>[] {
  const keyFor = (e: Record<string, unknown>) => addressSortKey({ ip: (e.addresses as string[])[0], targetRef: e.targetRef });
  return [...endpoints].sort((a, b) => compareStrings(keyFor(a), keyFor(b)));
}

export function firstIp(subset: Record<string, unknown>): string {
  const list = (subset.addresses ?? subset.notReadyAddresses ?? []) as { ip?: string }[];
  return ipOrder(list[0]?.ip ?? '');
}
