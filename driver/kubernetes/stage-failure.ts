import type { GenerationOperation } from './completion.ts';
import type { DriverContext } from './context.ts';
import { preparing } from './generation.ts';
import type { KubeObject } from './kube.ts';
import { readState, START_FAILED_ANNOTATION } from './sandbox-state.ts';
import { stopSandbox } from './stop.ts';
import { transition } from './transition.ts';

/**
 * A generation that missed a stage deadline after it was installed (its supervisor never became
 * Ready, OpenShell#3566), failed so that nothing is left half-started:
 *   1. the failure, naming the stage, recorded on the Sandbox while it still carries this
 *      generation's bootstrap (the `StartFailed` condition callers see; a caller waiting for
 *      Ready fails with its message, not with a generic timeout);
 *   2. the ordered stop as the rollback: the supervisor Pod deleted and gone, the workload
 *      suspended and gone, the generation Secrets deleted.
 * Someone who moved the sandbox on meanwhile (a stop, another start, a delete) wins: nothing is
 * written. Runs under the sandbox's lifecycle gate (the caller holds it).
 */
export async function failGeneration(ctx: DriverContext, cr: KubeObject, generation: string, operation: GenerationOperation, message: string): Promise<void> {
  const fresh = (await ctx.kube.get(ctx.ref(cr))) ?? cr;
  const recorded = await transition(ctx, fresh, 'recording the failed stage', preparing(ctx, generation, operation, () => ({ metadata: { annotations: { [START_FAILED_ANNOTATION]: message } } })));
  ctx.log(`sandbox ${readState(cr).id}: ${message}; rolling back with a stop`);
  await stopSandbox(ctx, recorded);
}
