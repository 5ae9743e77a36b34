/** The NamespaceLifecycle admission plugin: no creates in a missing or Terminating namespace. */
import { ApiError, errors } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { resourceKey, type ResourceType } from './resource-type.ts';

export function assertNamespaceOpen(store: ObjectStore, type: ResourceType, namespace: string, name: string): void {
  const ns = store.get('namespaces', undefined, namespace);
  if (!ns) throw errors.notFound('', 'namespaces', namespace);
  if (ns.metadata.deletionTimestamp) {
    const resource = resourceKey(type.group, type.plural);
    throw new ApiError(
      403,
      'Forbidden',
      `${resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        name,
        group: type.group || undefined,
        kind: type.plural,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      },
    );
  }
}
