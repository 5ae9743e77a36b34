import { advanceGeneration } from './completion.ts';
import type { DriverContext } from './context.ts';
import { isConflict, type KubeObject } from './kube.ts';
import { ANNOTATION } from './names.ts';
import { readState, type SandboxState } from './sandbox-state.ts';
import { stopSandbox } from './stop.ts';

/**
 * One reconciliation pass over every managed sandbox, each under this process's lifecycle gate
 * (skipped when a lifecycle call here holds it). Safe with company — other replicas running
 * lifecycle calls and passes of their own, arbitrated only by resourceVersion and UID guards:
 *   - a stop found in `releasing` or `suspending` runs through the same ordered stop (the
 *     supervisor gone before the suspension), whoever began it;
 *   - a generation that became Ready is completed under the same rule and guard as create and
 *     start use, so of two writers the second writes nothing;
 *   - a create or restart is reaped only past its grace, counted from the started-at annotation
 *     on the Sandbox (the replica running it may be another process): a create is deleted, a
 *     restart is stopped;
 *   - a settled sandbox (no bootstrap in flight) is only read: nothing written, nothing logged.
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
      try {
        const cr = await ctx.kube.get(ctx.ref(listed));
        if (!cr || cr.metadata?.uid !== listed.metadata?.uid || cr.metadata?.deletionTimestamp) return;
        const state = readState(cr);
        if (!state.bootstrapping) return;
        if (state.operation === 'stop') {
          await stopSandbox(ctx, cr);
          ctx.log(`reconciliation: sandbox ${id}: resumed the interrupted stop from phase ${state.phase}`);
        } else {
          await settleBootstrap(ctx, cr, state);
        }
      } catch (error) {
        ctx.log(`reconciliation: sandbox ${id}: ${(error as Error).message}`);
      }
    });
  }
}

/** Completes a create or restart that is Ready; reaps one that is past its grace. */
async function settleBootstrap(ctx: DriverContext, cr: KubeObject, state: SandboxState): Promise<void> {
  const operation = state.operation === 'restart' ? 'restart' : 'create';
  const { cr: now, standing } = await advanceGeneration(ctx, cr, state.generation ?? '', operation);
  if (standing.kind === 'completed' || standing.kind === 'superseded') return;
  const startedAt = Number(now.metadata?.annotations?.[ANNOTATION.startedAt]);
  // Inside its grace (or of unknown age) the replica that began it may still be running it.
  if (!Number.isFinite(startedAt) || Date.now() - startedAt <= ctx.config.bootstrapGraceMs) return;
  if (operation === 'restart') {
    await stopSandbox(ctx, now);
    ctx.log(`reconciliation: sandbox ${state.id}: stopped a restart that never completed`);
    return;
  }
  try {
    await ctx.kube.delete(ctx.ref(now), { preconditions: { uid: now.metadata!.uid, resourceVersion: now.metadata!.resourceVersion } });
    ctx.log(`reconciliation: sandbox ${state.id}: reaped a create that never completed`);
  } catch (error) {
    if (!isConflict(error)) throw error; // 409: written since it was read; the next pass decides again
  }
}
