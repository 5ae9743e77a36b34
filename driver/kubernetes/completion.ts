/**
 * Completion of a generation (create or restart) is a STATE of the Sandbox, not an act of one
 * caller: the generation is complete once the Sandbox carries it with the bootstrap keys cleared,
 * whoever cleared them. Any replica may write the completion — the call that installed the
 * generation, or any replica's reconciliation — under one rule and one resourceVersion guard,
 * so the second writer sees the first's result and writes nothing.
 */
import { DriverError } from '../compute-driver.ts';
import { ChangeSignal } from './change-signal.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, type KubeObject } from './kube.ts';
import { ANNOTATION, sandboxObjectNames } from './names.ts';
import { CLEANUP_FAILED_ANNOTATION, condition, readState } from './sandbox-state.ts';
import { superseded, transition } from './transition.ts';

export type GenerationOperation = 'create' | 'restart';

/** Where one generation stands on the Sandbox. */
export type Standing =
  /** The Sandbox carries it, bootstrap keys cleared, running: done, whoever wrote it. */
  | { kind: 'completed' }
  /** Released and Ready at the Sandbox's current generation, not Suspended: the completion may be written. */
  | { kind: 'completable' }
  /** On its way; `waiting` names what for, in the words of a call's stage. */
  | { kind: 'pending'; waiting: string }
  | { kind: 'failed'; message: string }
  /** Someone moved the sandbox elsewhere; `what` says what happened. */
  | { kind: 'superseded'; what: string };

const READY_WAIT = 'waiting for the sandbox to become Ready';
/** The stage with its own deadline (OpenShell#3566): the Sandbox is Ready, its supervisor is not. */
export const SUPERVISOR_READY_WAIT = 'waiting for supervisor readiness';

/** A generation's supervisor did not become Ready within its stage deadline (`supervisorReadySeconds`). */
export class SupervisorReadinessTimeout extends DriverError {
  constructor(message: string) {
    super('UNAVAILABLE', message);
  }
}
const RELEASE_WAIT = 'waiting for the generation to be released';

const COMPLETION = {
  metadata: {
    annotations: {
      [ANNOTATION.bootstrapping]: null,
      [ANNOTATION.startedAt]: null,
      [ANNOTATION.operation]: null,
      [ANNOTATION.phase]: null,
      [ANNOTATION.readiness]: 'ready',
      [CLEANUP_FAILED_ANNOTATION]: null,
    },
  },
};

/** A generation's name, short enough for a message. */
export function shortGeneration(generation: string | undefined): string {
  return generation ? generation.slice(0, 12) : 'none';
}

/** Where `generation`, installed by `operation`, stands on the Sandbox (the supervisor aside: see `advanceGeneration`). */
export function standing(cr: KubeObject, generation: string, operation: GenerationOperation): Standing {
  const state = readState(cr);
  const moved = (what: string): Standing => ({ kind: 'superseded', what });
  if (cr.metadata?.deletionTimestamp) return moved('the sandbox is being deleted');
  if (state.bootstrapping && state.operation === 'stop') return moved(`a stop of the sandbox began (phase ${state.phase})`);
  if (state.generation !== generation) {
    if (state.bootstrapping) return moved(`another ${state.operation === 'restart' ? 'start' : state.operation} of the sandbox began (generation ${shortGeneration(state.generation)})`);
    return moved(state.suspendedInSpec ? 'the sandbox was stopped' : `the sandbox runs another generation (${shortGeneration(state.generation)})`);
  }
  if (!state.bootstrapping) return state.suspendedInSpec ? moved('the sandbox was stopped') : { kind: 'completed' };
  if (state.operation !== operation) return moved(`a ${state.operation} of the sandbox began`);
  const finished = condition(state, 'Finished');
  if (finished?.status === 'True') return { kind: 'failed', message: `the workload Pod ended before the sandbox became Ready: ${finished.reason} ${finished.message ?? ''}`.trim() };
  if (state.phase !== 'released') return { kind: 'pending', waiting: RELEASE_WAIT };
  if (condition(state, 'Ready')?.status !== 'True' || condition(state, 'Suspended')?.status === 'True') return { kind: 'pending', waiting: READY_WAIT };
  return { kind: 'completable' };
}

/** This generation's supervisor Pod (the UID the Sandbox recorded) reports Ready. */
async function supervisorReady(ctx: DriverContext, cr: KubeObject): Promise<boolean> {
  const state = readState(cr);
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: sandboxObjectNames(state.id, state.crName).supervisorPod };
  const pod = await ctx.kube.get(ref).catch((e) => Promise.reject(asDriverError(e, 'reading the supervisor Pod')));
  const recorded = cr.metadata?.annotations?.[ANNOTATION.supervisorUid];
  if (!pod || (recorded && pod.metadata?.uid !== recorded)) return false;
  return ((pod.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Moves `generation` on where it can be: writes the completion once the Sandbox is released and
 * Ready and this generation's supervisor is Ready. Returns the Sandbox and where the generation
 * stands after. Shared by create, start and reconciliation.
 */
export async function advanceGeneration(ctx: DriverContext, cr: KubeObject, generation: string, operation: GenerationOperation): Promise<{ cr: KubeObject; standing: Standing }> {
  const now = standing(cr, generation, operation);
  if (now.kind !== 'completable') return { cr, standing: now };
  if (!(await supervisorReady(ctx, cr))) return { cr, standing: { kind: 'pending', waiting: SUPERVISOR_READY_WAIT } };
  const after = await transition(ctx, cr, 'completing the bootstrap', (current) => (standing(current, generation, operation).kind === 'completable' ? COMPLETION : null));
  return { cr: after, standing: standing(after, generation, operation) };
}

/** True once `generation` is released (or further): its install is done, whoever did it. */
function installed(now: Standing): boolean {
  return now.kind === 'completed' || now.kind === 'completable' || (now.kind === 'pending' && now.waiting !== RELEASE_WAIT);
}

/**
 * Waits until `generation` is complete — completing it here when it is ready to be, or accepting
 * another replica's completion — and returns the Sandbox; with `until: 'installed'`, only until it
 * is released (a start that joins another replica's start of the same generation). Wakes on
 * watch events of the Sandbox and the supervisor Pod, polls as the fallback, and fails with
 * FAILED_PRECONDITION when someone moved the sandbox elsewhere (a stop began, another start
 * began, it is being deleted). Waiting for supervisor readiness has a deadline of its own,
 * counted from when this wait first found the Sandbox Ready without its supervisor: past it the
 * wait fails with `SupervisorReadinessTimeout`, naming the stage (OpenShell#3566).
 */
export async function awaitGeneration(ctx: DriverContext, cr: KubeObject, generation: string, operation: GenerationOperation, until: 'installed' | 'complete' = 'complete'): Promise<KubeObject> {
  const state = readState(cr);
  const [group, version] = cr.apiVersion!.split('/');
  const changes = ChangeSignal.open(ctx.kube.watches, [
    { path: `/apis/${group}/${version}/namespaces/${state.namespace}/sandboxes`, name: state.crName },
    { path: `/api/v1/namespaces/${state.namespace}/pods`, name: sandboxObjectNames(state.id, state.crName).supervisorPod },
  ]);
  const deadline = Date.now() + ctx.config.readyTimeoutSeconds * 1000;
  let supervisorWaitSince: number | undefined;
  try {
    for (;;) {
      ctx.call.enter(READY_WAIT);
      const fresh = await ctx.kube.get(ctx.ref(cr)).catch((e) => Promise.reject(asDriverError(e, 'reading the Sandbox')));
      if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${state.crName} was deleted while ${ctx.call.stage}`);
      if (fresh.metadata!.uid !== cr.metadata!.uid) throw superseded(ctx, `Sandbox ${state.crName} was replaced`);
      const advanced = await advanceGeneration(ctx, fresh, generation, operation);
      ctx.call.enter(advanced.standing.kind === 'pending' ? advanced.standing.waiting : READY_WAIT);
      if (until === 'installed' && installed(advanced.standing)) return advanced.cr;
      switch (advanced.standing.kind) {
        case 'completed':
          return advanced.cr;
        case 'superseded':
          throw superseded(ctx, advanced.standing.what);
        case 'failed':
          throw new DriverError('FAILED_PRECONDITION', advanced.standing.message);
      }
      const onSupervisor = advanced.standing.kind === 'pending' && advanced.standing.waiting === SUPERVISOR_READY_WAIT;
      supervisorWaitSince = onSupervisor ? (supervisorWaitSince ?? Date.now()) : undefined;
      if (supervisorWaitSince !== undefined && Date.now() - supervisorWaitSince > ctx.config.supervisorReadySeconds * 1000) {
        const pod = sandboxObjectNames(state.id, state.crName).supervisorPod;
        throw new SupervisorReadinessTimeout(`${operation === 'create' ? 'create' : 'start'} failed while ${SUPERVISOR_READY_WAIT}: supervisor Pod ${pod} was not Ready within ${ctx.config.supervisorReadySeconds} s of the sandbox becoming Ready`);
      }
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out after ${ctx.config.readyTimeoutSeconds}s ${ctx.call.stage}`);
      await ctx.call.sleep(ctx.config.pollIntervalMs * 2, changes);
    }
  } finally {
    changes.close();
  }
}
