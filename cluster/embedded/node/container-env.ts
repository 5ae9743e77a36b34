import type { KubeObject } from '../types.ts';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

/** Reads a Secret's or ConfigMap's data as strings (Secret data is base64). */
export type DataSource = (kind: 'Secret' | 'ConfigMap', name: string) => Record<string, string> | undefined;

/** A missing Secret/ConfigMap or key: the kubelet's CreateContainerConfigError. */
export class ContainerConfigError extends Error {}

function fieldValue(pod: KubeObject, path: string): string {
  const meta = pod.metadata;
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const status = (pod.status ?? {}) as Record<string, unknown>;
  const indexed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (indexed) return (meta[indexed[1] as 'labels' | 'annotations'] ?? {})[indexed[2]] ?? '';
  switch (path) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'spec.nodeName':
      return String(spec.nodeName ?? '');
    case 'spec.serviceAccountName':
      return String(spec.serviceAccountName ?? '');
    case 'status.podIP':
      return String(status.podIP ?? '');
    case 'status.podIPs':
      return ((status.podIPs ?? []) as { ip: string }[]).map((p) => p.ip).join(',');
    case 'status.hostIP':
      return String(status.hostIP ?? '');
    default:
      throw new ContainerConfigError(`unsupported fieldRef path "${path}"`);
  }
}

/** `$(VAR)` references to earlier variables, with `$$` as the escape, as the kubelet expands them. */
export function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && name in env ? env[name] : match;
  });
}

/** The container's environment: envFrom first, then env in order, each able to refer to the ones before. */
export function containerEnvironment(pod: KubeObject, container: { env?: EnvVar[]; envFrom?: EnvFromSource[] }, data: DataSource): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref) continue;
    const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
    const values = data(kind, ref.name);
    if (!values) {
      if (ref.optional) continue;
      throw new ContainerConfigError(`${kind.toLowerCase()} "${ref.name}" not found`);
    }
    for (const [key, value] of Object.entries(values)) env[`${source.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env[variable.name] = expand(variable.value ?? '', env);
      continue;
    }
    if (from.fieldRef) {
      env[variable.name] = fieldValue(pod, from.fieldRef.fieldPath);
      continue;
    }
    const ref = from.secretKeyRef ?? from.configMapKeyRef;
    if (!ref) continue;
    const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
    const values = data(kind, ref.name);
    if (values && ref.key in values) env[variable.name] = values[ref.key];
    else if (!ref.optional) {
      throw new ContainerConfigError(values ? `couldn't find key ${ref.key} in ${kind} ${pod.metadata.namespace}/${ref.name}` : `${kind.toLowerCase()} "${ref.name}" not found`);
    }
  }
  return env;
}
