import { ChangeSignal } from './change-signal.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isConflict, type KubeObject } from './kube.ts';
import { readState } from './sandbox-state.ts';

/**
 * Delete: the CR with uid and resourceVersion preconditions (a replaced or changed CR is left
 * alone), then confirm the workload Pod is gone (woken by watch events, polling as fallback).
 * The supervisor, Service, PVC and Secrets go by garbage collection through their owner
 * references.
 */
export async function deleteSandbox(ctx: DriverContext, cr: KubeObject): Promise<boolean> {
  const state = readState(cr);
  ctx.call.enter('deleting the Sandbox');
  try {
    const accepted = await ctx.kube.delete(ctx.ref(cr), {
      preconditions: { uid: cr.metadata!.uid, resourceVersion: cr.metadata!.resourceVersion },
      propagationPolicy: 'Background',
    });
    if (!accepted) return false;
  } catch (error) {
    if (isConflict(error)) return false; // already deleted or replaced
    throw asDriverError(error, `deleting Sandbox ${state.crName}`);
  }
  ctx.call.enter('waiting for the workload Pod to be gone');
  const grace = (cr.spec?.podTemplate?.spec?.terminationGracePeriodSeconds as number | undefined) ?? 30;
  const deadline = Date.now() + (grace + ctx.config.apiHeadroomSeconds) * 1000;
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: state.workloadPod };
  const changes = ChangeSignal.open(ctx.kube.watches, [{ path: `/api/v1/namespaces/${state.namespace}/pods`, name: state.workloadPod }]);
  try {
    while (await ctx.kube.get(ref)) {
      if (Date.now() > deadline) {
        ctx.log(`sandbox ${state.id}: retaining sandbox-runtime workload fence because workload Pod deletion was not confirmed`);
        return true;
      }
      await ctx.call.sleep(250, changes);
    }
  } finally {
    changes.close();
  }
  return true;
}
