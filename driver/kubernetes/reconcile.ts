import type { DriverContext } from './context.ts';
import { completeBootstrap, readyToComplete } from './generation.ts';
import type { KubeObject } from './kube.ts';
import { readState } from './sandbox-state.ts';
import { stopSandbox } from './stop.ts';

/**
 * One reconciliation pass over every managed sandbox, each under its lifecycle gate (skipped
 * when a lifecycle call holds it): a stop interrupted in `releasing` or `suspending` resumes
 * through the same ordered stop — reconciliation never reverses the order; a generation that
 * became Ready completes; a bootstrap stuck beyond the grace is reaped (a create is deleted, a
 * restart is stopped).
 */
export async function reconcileOnce(ctx: DriverContext): Promise<void> {
  let sandboxes: KubeObject[];
  try {
    sandboxes = await ctx.listSandboxes();
  } catch (error) {
    ctx.log(`reconciliation: ${(error as Error).message}`);
    return;
  }
  for (const listed of sandboxes) {
    const { id } = readState(listed);
    await ctx.gates.tryRun(id, async () => {
      const cr = await ctx.kube.get(ctx.ref(listed));
      if (!cr || cr.metadata?.uid !== listed.metadata?.uid || cr.metadata?.deletionTimestamp) return;
      const state = readState(cr);
      if (!state.bootstrapping) return;
      try {
        if (state.operation === 'stop') {
          await stopSandbox(ctx, cr);
          ctx.log(`reconciliation: sandbox ${id}: resumed the interrupted stop from phase ${state.phase}`);
        } else if (readyToComplete(cr)) {
          await completeBootstrap(ctx, cr);
        } else if (Date.now() - Number(cr.metadata?.annotations?.['openshell.ai/sandbox-runtime-bootstrap-started-at-ms'] ?? Date.now()) > ctx.config.bootstrapGraceMs) {
          if (state.operation === 'create') {
            await ctx.kube.delete(ctx.ref(cr), { preconditions: { uid: cr.metadata!.uid, resourceVersion: cr.metadata!.resourceVersion } });
            ctx.log(`reconciliation: sandbox ${id}: reaped a create that never completed`);
          } else {
            await stopSandbox(ctx, cr);
            ctx.log(`reconciliation: sandbox ${id}: stopped a restart that never completed`);
          }
        }
      } catch (error) {
        ctx.log(`reconciliation: sandbox ${id}: ${(error as Error).message}`);
      }
    });
  }
}
