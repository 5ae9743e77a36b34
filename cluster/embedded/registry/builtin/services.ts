import { causes } from '../../errors.ts';
import { isPlainObject, type KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

type ServicePort = { name?: string; port?: number; targetPort?: number | string; protocol?: string; nodePort?: number };

/**
 * ClusterIP allocation. Addresses come from 127.0.0.0/8 (127.1.0.1 upwards) so the node agent's
 * Service proxy can listen on them on any machine without network privileges.
 */
export class ClusterIpAllocator {
  private next = 1;
  private readonly taken = new Set<string>();

  allocate(): string {
    for (;;) {
      const n = this.next++;
      const ip = `127.1.${Math.floor(n / 254) % 254}.${(n % 254) + 1}`;
      if (!this.taken.has(ip)) {
        this.taken.add(ip);
        return ip;
      }
    }
  }

  release(ip: string): void {
    this.taken.delete(ip);
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
      ],
      cells(svc) {
        const spec = serviceSpec(svc);
        const ports = ((spec.ports ?? []) as ServicePort[]).map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',');
        return [spec.type ?? 'ClusterIP', spec.clusterIP ?? '', '<none>', ports || '<none>'];
      },
    },
  };
}
