import { AddressRange } from '../../address-block.ts';
import { causes } from '../../errors.ts';
import { isPlainObject, type KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

type ServicePort = { name?: string; port?: number; targetPort?: number | string; protocol?: string; nodePort?: number };

/**
 * ClusterIP allocation from the upper part of the cluster's loopback block (127.N.200.1 to
 * 127.N.254.254), so the Service proxy can listen on them without network privileges and two
 * clusters on one machine never share an address.
 */
export class ClusterIpAllocator extends AddressRange {
  constructor(octet: number) {
    super(octet, 'service', { first: 200, count: 55 }, { first: 1, count: 254 });
  }
}

function serviceSpec(svc: KubeObject): Record<string, unknown> {
  return (isPlainObject(svc.spec) ? svc.spec : {}) as Record<string, unknown>;
}

export function serviceStrategy(allocator: ClusterIpAllocator): ResourceStrategy {
  return {
    prepareForCreate(svc) {
      const spec = serviceSpec(svc);
      spec.type ??= 'ClusterIP';
      spec.sessionAffinity ??= 'None';
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
      spec.internalTrafficPolicy ??= 'Cluster';
      if (spec.clusterIP !== 'None') spec.clusterIP = allocator.allocate();
      spec.clusterIPs = [spec.clusterIP];
      for (const port of (spec.ports ?? []) as ServicePort[]) {
        port.protocol ??= 'TCP';
        port.targetPort ??= port.port;
      }
      svc.spec = spec;
      svc.status = { loadBalancer: {} };
    },
    validateCreate(svc) {
      const ports = (serviceSpec(svc).ports ?? []) as ServicePort[];
      const result = [];
      if (serviceSpec(svc).clusterIP !== 'None' && ports.length === 0) result.push(causes.required('spec.ports'));
      ports.forEach((p, i) => {
        if (typeof p.port !== 'number' || p.port < 1 || p.port > 65535) {
          result.push(causes.invalid(`spec.ports[${i}].port`, p.port, 'must be between 1 and 65535, inclusive'));
        }
      });
      return result;
    },
    prepareForUpdate(svc, old) {
      // patchAllocatedValues: an update that leaves the cluster IP out keeps the allocated one.
      const spec = serviceSpec(svc);
      const before = serviceSpec(old);
      if ((spec.clusterIP === undefined || spec.clusterIP === '') && before.clusterIP !== undefined) {
        spec.clusterIP = before.clusterIP;
        spec.clusterIPs = before.clusterIPs;
        svc.spec = spec;
      }
    },
    validateUpdate(svc, old) {
      const before = serviceSpec(old).clusterIP;
      const after = serviceSpec(svc).clusterIP;
      return after !== undefined && after !== before ? [causes.invalid('spec.clusterIPs[0]', after, 'may not change once set')] : [];
    },
    table: {
      columns: [
        { name: 'Type', type: 'string', jsonPath: '.spec.type', description: 'The type of service.' },
        { name: 'Cluster-IP', type: 'string', jsonPath: '.spec.clusterIP', description: 'The cluster IP.' },
        { name: 'External-IP', type: 'string', jsonPath: '', description: 'External IPs.' },
        { name: 'Port(s)', type: 'string', jsonPath: '', description: 'The ports.' },
        { name: 'Selector', type: 'string', jsonPath: '', description: 'The label selector of the pods this service routes to.', priority: 1 },
      ],
      cells(svc) {
        const spec = serviceSpec(svc);
        const ports = ((spec.ports ?? []) as ServicePort[]).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
        const external = spec.type === 'LoadBalancer' ? '<pending>' : ((spec.externalIPs ?? []) as string[]).join(',') || '<none>';
        const selector = Object.entries((spec.selector ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
        return [spec.type ?? 'ClusterIP', spec.type === 'ExternalName' ? '<none>' : spec.clusterIP ?? '', spec.type === 'ExternalName' ? spec.externalName ?? '' : external, ports || '<none>', selector || '<none>'];
      },
    },
  };
}
