import { isPlainObject, type KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

function specFinalizers(ns: KubeObject): string[] {
  return isPlainObject(ns.spec) && Array.isArray(ns.spec.finalizers) ? (ns.spec.finalizers as string[]) : [];
}

/**
 * Namespaces are deleted in two steps, as on a real cluster: DELETE only marks them Terminating;
 * the namespace controller empties them and removes the `kubernetes` spec finalizer through
 * `/finalize`, which lets the object go.
 */
export const namespaceStrategy: ResourceStrategy = {
  prepareForCreate(ns) {
    ns.spec = { finalizers: ['kubernetes'] };
    ns.status = { phase: 'Active' };
    ns.metadata.labels = { ...ns.metadata.labels, 'kubernetes.io/metadata.name': ns.metadata.name! };
  },
  markDeleting(ns) {
    ns.status = { ...(isPlainObject(ns.status) ? ns.status : {}), phase: 'Terminating' };
  },
  holdsDeletion: (ns) => specFinalizers(ns).length > 0,
  table: {
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The status of the namespace' }],
    cells: (ns) => [isPlainObject(ns.status) ? ns.status.phase : ''],
  },
};
