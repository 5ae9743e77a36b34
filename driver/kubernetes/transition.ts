import { DriverError } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isConflict, type KubeObject } from './kube.ts';
import { readState, type SandboxState } from './sandbox-state.ts';

/**
 * A FAILED_PRECONDITION raised because someone else — another replica, another call — moved the
 * Sandbox somewhere this call cannot follow (a stop began while a create waited, a start began
 * while a stop finished). The sandbox is theirs now: no rollback follows it.
 */
export class Superseded extends DriverError {
  constructor(message: string) {
    super('FAILED_PRECONDITION', message);
  }
}

/** `<operation> did not finish: <what happened> while <stage>` for the call `ctx` runs. */
export function superseded(ctx: DriverContext, what: string): Superseded {
  return new Superseded(`${ctx.call.operation} did not finish: ${what} while ${ctx.call.stage}`);
}

/**
 * What a transition writes, decided from the Sandbox as it stands: a merge patch, or null when
 * the Sandbox already shows the transition (or, for a completion, shows it cannot be made yet)
 * and nothing is to be written. Throws when the Sandbox moved somewhere incompatible.
 */
export type Decide = (current: KubeObject, state: SandboxState) => Record<string, unknown> | null;

/**
 * Writes one transition of a Sandbox as a JSON merge patch guarded by the resourceVersion it was
 * decided from. On 409 Conflict the Sandbox is read again and the transition DECIDED AGAIN from
 * what it now shows — not the same patch retried: another replica may already have made it (then
 * nothing is written) or moved the sandbox elsewhere (then `decide` throws). The UID guard: a
 * Sandbox replaced under the same name is never written. Returns the Sandbox as it stands after.
 */
export async function transition(ctx: DriverContext, cr: KubeObject, stage: string, decide: Decide): Promise<KubeObject> {
  ctx.call.enter(stage);
  const uid = cr.metadata!.uid;
  const name = cr.metadata!.name!;
  const deadline = Date.now() + ctx.config.apiHeadroomSeconds * 1000;
  let current = cr;
  for (let attempt = 0; ; attempt++) {
    const patch = decide(current, readState(current));
    if (!patch) return current;
    const body = { ...patch, metadata: { ...(patch.metadata as object), resourceVersion: current.metadata!.resourceVersion } };
    try {
      return await ctx.kube.mergePatch(ctx.ref(current), body);
    } catch (error) {
      if (!isConflict(error)) throw asDriverError(error, `${stage}: updating Sandbox ${name}`);
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out after ${ctx.config.apiHeadroomSeconds}s updating Kubernetes resource ${name}`);
    }
    // Back off only when the conflicts persist: the first re-read is immediate.
    if (attempt > 0) await ctx.call.sleep(Math.min(50 * 2 ** attempt, 500));
    const fresh = await ctx.kube.get(ctx.ref(current)).catch((e) => Promise.reject(asDriverError(e, `${stage}: reading Sandbox ${name}`)));
    if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${name} was deleted while ${stage}`);
    if (fresh.metadata!.uid !== uid) throw superseded(ctx, `Sandbox ${name} was replaced (uid ${uid} is now ${fresh.metadata!.uid})`);
    current = fresh;
  }
}
