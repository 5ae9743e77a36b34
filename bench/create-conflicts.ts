/**
 * How often the driver's create meets a 409 Conflict on its own Sandbox writes: N sandboxes are
 * created at once and every merge patch the driver (field manager `openshell-driver`) sends is
 * counted as the API server serves it, accepted or refused. Each 409 costs a re-read and a second
 * write (driver/kubernetes/transition.ts). The count is read in process, on the object API every
 * HTTP write goes through, as the driver's own tests spy on it (driver/kubernetes/test-kit.ts).
 */
import type { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import type { Gateway } from '../driver/gateway/gateway.ts';

export interface CreateConflicts {
  creates: number;
  /** The driver's Sandbox patches the API server accepted, and those it refused with 409. */
  patches: number;
  conflicts: number;
  /** The refused patches by what they wrote (annotation keys, spec fields). */
  byWrite: Record<string, number>;
}

export async function countCreateConflicts(cluster: EmbeddedCluster, driver: Gateway, creates: number, command: string[]): Promise<CreateConflicts> {
  const api = cluster.api;
  const patch = api.patch;
  const counted: CreateConflicts = { creates, patches: 0, conflicts: 0, byWrite: {} };
  api.patch = (target, name, patchType, body, options = {}) => {
    const mine = options.fieldManager === 'openshell-driver' && target.type.plural === 'sandboxes';
    try {
      const result = patch.call(api, target, name, patchType, body, options);
      if (mine) counted.patches++;
      return result;
    } catch (error) {
      if (mine && (error as { code?: number }).code === 409) {
        counted.conflicts++;
        const write = describeWrite(body);
        counted.byWrite[write] = (counted.byWrite[write] ?? 0) + 1;
      }
      throw error;
    }
  };
  try {
    const sandboxes = await Promise.all(Array.from({ length: creates }, (_, i) => driver.create({ name: `conflicts-${i}`, command })));
    await Promise.all(sandboxes.map((s) => driver.delete(s.id)));
  } finally {
    api.patch = patch;
  }
  return counted;
}

/** `annotations: sandbox-runtime-workload-uid, …` / `spec.operatingMode`: what a patch wrote. */
function describeWrite(body: unknown): string {
  const b = body as { metadata?: { annotations?: Record<string, unknown> }; spec?: Record<string, unknown> };
  const parts = [
    ...Object.keys(b.metadata?.annotations ?? {}).map((k) => k.replace(/^.*\//, '')),
    ...Object.keys(b.spec ?? {}).map((k) => `spec.${k}`),
  ];
  return parts.join(', ') || 'other';
}
