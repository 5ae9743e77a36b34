import { isCallEnd } from './call-scope.ts';
import { ChangeSignal } from './change-signal.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isConflict, type KubeObject } from './kube.ts';
import { readState } from './sandbox-state.ts';
import { settled, stopSandbox } from './stop.ts';

/**
 * Delete, so that a running sandbox's supervisor still cleans up (OpenShell#3421 on the delete
 * path: deleting the Sandbox at once lets garbage collection take both Pods together, and the
 * supervisor is SIGKILLed with its boundary gone):
 *   1. a sandbox that is not stopped and settled (running, or a create, start or stop in flight)
 *      is first stopped through the ordered stop (stop.ts): the supervisor Pod deleted and gone
 *      while the boundary is reachable, then the suspension, the workload Pod gone, the
 *      generation Secrets deleted. A stop that fails for another reason than the call ending is
 *      logged and the delete goes on: a delete is not refused for a stuck stop;
 *   2. the Sandbox, with uid and resourceVersion preconditions (a replaced or changed Sandbox is
 *      left alone: `false`);
 *   3. confirm the workload Pod is gone (woken by watch events, polling as fallback), for its
 *      grace period plus API headroom; unconfirmed, it says so in the log and still answers true.
 * The boundary Service, the PVC and what the stop left go by garbage collection through their
 * owner references. Runs under the sandbox's lifecycle gate (the caller holds it).
 */
export async function deleteSandbox(ctx: DriverContext, cr: KubeObject): Promise<boolean> {
  const state = readState(cr);
  if (!settled(state)) cr = await stopBeforeDelete(ctx, cr);
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

/** Step 1: the ordered stop; returns the Sandbox as it stands after it (the one read before, if it is gone or the stop failed). */
async function stopBeforeDelete(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  try {
    return (await stopSandbox(ctx, cr)).sandbox;
  } catch (error) {
    if (isCallEnd(error)) throw error;
    ctx.log(`sandbox ${readState(cr).id}: the stop before deleting did not finish (${(error as Error).message}); deleting anyway`);
    return (await ctx.kube.get(ctx.ref(cr)).catch(() => undefined)) ?? cr;
  }
}
