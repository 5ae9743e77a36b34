/** The autoscaling/v1 Scale view of an object whose version has a scale subresource, and its replicas written back. */
import { errors } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import type { ScaleSubresource } from './resource-type.ts';

/** The Scale of `object`, read through the subresource's replica and selector paths. */
export function scaleOf(object: KubeObject, scale: ScaleSubresource, name: string): KubeObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name,
      namespace: object.metadata.namespace,
      uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
      creationTimestamp: object.metadata.creationTimestamp,
    },
    spec: { replicas: readPath(object, scale.specReplicasPath) ?? 0 },
    status: {
      replicas: readPath(object, scale.statusReplicasPath) ?? 0,
      ...(scale.labelSelectorPath && readPath(object, scale.labelSelectorPath) !== undefined ? { selector: readPath(object, scale.labelSelectorPath) } : {}),
    },
  };
}

/** What a Scale written to the subresource asks for: its replicas, and the resourceVersion it was read at. */
export function scaleRequest(body: unknown): { replicas: number; resourceVersion: unknown } {
  if (!isPlainObject(body) || !isPlainObject(body.spec) || typeof body.spec.replicas !== 'number') {
    throw errors.badRequest('a Scale object with spec.replicas is required');
  }
  const metadata = isPlainObject(body.metadata) ? body.metadata : {};
  return { replicas: body.spec.replicas, resourceVersion: metadata.resourceVersion };
}

/** Writes `replicas` at the subresource's specReplicasPath of `object` (a copy the caller owns). */
export function writeReplicas(object: KubeObject, scale: ScaleSubresource, replicas: number): void {
  const parts = scale.specReplicasPath.replace(/^\./, '').split('.');
  let node: Record<string, unknown> = object;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = replicas;
}

/** Reads a simple `.a.b.c` JSON path, the form CRD scale paths use. */
function readPath(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.replace(/^\./, '').split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return value;
}
