import { DriverError } from '../compute-driver.ts';
import { ChangeSignal } from './change-signal.ts';
import type { DriverContext } from './context.ts';
import { readAnyVersion, suspendTakingConflictAsWritten, waitOnWatchAlone, waitTakingExpiryForDeletion } from './fault-only-defects.ts';
import { asDriverError, isConflict, statusOf, type KubeObject } from './kube.ts';
import { ANNOTATION, sandboxObjectNames } from './names.ts';
import { operatingSpec } from './render.ts';
import { CLEANUP_FAILED_ANNOTATION, condition, readState, type SandboxState } from './sandbox-state.ts';
import { superseded, transition, type Decide } from './transition.ts';

/** Result of a stop: the final CR and cleanup problems that did not prevent suspension (also recorded on the Sandbox). */
export interface StopOutcome {
  sandbox: KubeObject;
  warnings: string[];
}

const STOP_INITIAL_POLL_MS = 250;
const STOP_MAX_POLL_MS = 2000;

const BOOTSTRAP_KEYS_CLEARED = {
  [ANNOTATION.bootstrapping]: null,
  [ANNOTATION.startedAt]: null,
  [ANNOTATION.operation]: null,
  [ANNOTATION.phase]: null,
  [ANNOTATION.generation]: null,
  [ANNOTATION.workloadUid]: null,
  [ANNOTATION.supervisorUid]: null,
};

/** The completion patch: the stop phase cleared; Secret cleanup failures recorded for the status to report. */
function stopCompletion(warnings: string[]) {
  return { metadata: { annotations: { ...BOOTSTRAP_KEYS_CLEARED, [ANNOTATION.readiness]: 'unavailable', [CLEANUP_FAILED_ANNOTATION]: warnings.length ? warnings.join('; ') : null } } };
}

const stopping = (state: SandboxState, phase?: string) => state.bootstrapping && state.operation === 'stop' && (phase === undefined || state.phase === phase);
/** Stopped and settled: suspended with the stop phase cleared (the workload Pod is checked apart). */
export const settled = (state: SandboxState) => !state.bootstrapping && state.suspendedInSpec;

/**
 * Stop, in the order that lets the supervisor clean up (OpenShell#3424):
 *   1. stop-begin patch (phase `releasing`) — durable intent;
 *   2. delete the supervisor Pod while the workload's boundary is reachable, and wait until it is gone
 *      (its grace period + API headroom);
 *   3. only then the suspension patch (phase `suspending`);
 *   4. wait for the workload Pod to be gone (and, on v1beta1, a current-generation Suspended=True);
 *   5. delete the supervisor again (idempotent) and the generation Secrets by exact name — a Secret
 *      failure is reported on its own and never prevents suspension;
 *   6. completion patch.
 * Each step is decided from the Sandbox as it stands, so a stop that finds `releasing` resumes at
 * step 2 and one that finds `suspending` only waits and cleans — after a crash, or while another
 * replica runs the same stop: whoever writes a transition first, the other sees it and writes
 * nothing, and neither ever suspends before the supervisor is gone. Returns once the Sandbox is
 * suspended, its workload Pod gone and the stop phase cleared, whoever finished it.
 * Runs under the sandbox's lifecycle gate (the caller holds it).
 */
export async function stopSandbox(ctx: DriverContext, cr: KubeObject): Promise<StopOutcome> {
  if (ctx.config.variant === 'suspend-first') return stopSuspendFirst(ctx, cr);
  const warnings: string[] = [];
  // The generation being stopped: the supervisor Pod of a later one is never touched.
  const generation = readState(cr).generation;
  let state = readState(cr);
  if (settled(state)) return { sandbox: await waitForWorkloadGone(ctx, cr), warnings };
  // resume-skips-wait: a stop found already suspending is finished at once, as if the workload were gone (a defect).
  if (ctx.config.variant === 'resume-skips-wait' && stopping(state, 'suspending')) {
    warnings.push(...(await cleanUp(ctx, cr, generation)));
    return { sandbox: await transition(ctx, cr, 'completing the stop', stopStep('suspending', () => stopCompletion(warnings), ctx)), warnings };
  }
  if (!stopping(state)) {
    cr = await transition(ctx, cr, 'recording the stop (phase releasing)', (_current, s) => {
      if (stopping(s) || settled(s)) return null; // begun, or already finished, by someone else
      return { metadata: { annotations: stopAnnotations('releasing', String(Date.now())) } };
    });
  }
  let workloadGone = false;
  for (;;) {
    state = readState(cr);
    if (settled(state)) return { sandbox: workloadGone ? cr : await waitForWorkloadGone(ctx, cr), warnings };
    if (!stopping(state)) throw superseded(ctx, describeMove(state));
    if (state.phase !== 'suspending') {
      await deleteSupervisorAndWait(ctx, cr);
      cr =
        ctx.config.variant === 'conflict-as-success'
          ? await suspendTakingConflictAsWritten(ctx, cr, suspension(cr, 'suspending'))
          : await transition(ctx, cr, 'suspending the workload', stopStep('releasing', (current) => suspension(current, 'suspending'), ctx));
      continue;
    }
    cr = await waitForWorkloadGone(ctx, cr);
    workloadGone = true;
    if (!stopping(readState(cr), 'suspending')) continue; // finished or moved on meanwhile: decide again
    warnings.push(...(await cleanUp(ctx, cr, generation)));
    cr = await transition(ctx, cr, 'completing the stop', stopStep('suspending', () => stopCompletion(warnings), ctx));
  }
}

/**
 * A stop transition out of `from`: written while the Sandbox still shows `from`; nothing when it
 * already shows a later stop phase or the finished stop; FAILED_PRECONDITION when someone moved
 * the sandbox elsewhere (a start began after another replica finished the stop).
 */
function stopStep(from: 'releasing' | 'suspending', write: (current: KubeObject) => Record<string, unknown>, ctx: DriverContext): Decide {
  return (current, state) => {
    if (stopping(state, from)) return write(current);
    if (stopping(state, 'suspending') || settled(state)) return null;
    throw superseded(ctx, describeMove(state));
  };
}

function describeMove(state: SandboxState): string {
  if (state.bootstrapping) return `a ${state.operation === 'restart' ? 'start' : state.operation} of the sandbox began (phase ${state.phase})`;
  return 'the sandbox is running again';
}

function stopAnnotations(phase: 'releasing' | 'suspending' | 'rolling-back', startedAt: string) {
  return {
    [ANNOTATION.bootstrapping]: 'true',
    [ANNOTATION.startedAt]: startedAt,
    [ANNOTATION.operation]: 'stop',
    [ANNOTATION.phase]: phase,
    [ANNOTATION.readiness]: 'unavailable',
  };
}

/** The suspension patch: the stop phase plus the suspended spec, in one write. */
function suspension(current: KubeObject, phase: 'suspending' | 'rolling-back'): Record<string, unknown> {
  return {
    metadata: { annotations: stopAnnotations(phase, current.metadata?.annotations?.[ANNOTATION.startedAt] ?? String(Date.now())) },
    spec: operatingSpec(current.apiVersion!, true),
  };
}

/**
 * The pre-#3424 order, kept as a clearly marked defect for the suite's self-test: suspend the
 * workload first, then delete the supervisor with a flat API-timeout wait. The supervisor then
 * has no boundary to clean up through and is SIGKILLed at its grace period.
 */
async function stopSuspendFirst(ctx: DriverContext, cr: KubeObject): Promise<StopOutcome> {
  const generation = readState(cr).generation;
  cr = await transition(ctx, cr, 'suspending the workload', (current, state) => (stopping(state, 'rolling-back') ? null : suspension(current, 'rolling-back')));
  cr = await waitForWorkloadGone(ctx, cr);
  await deleteSupervisorAndWait(ctx, cr, { flatWaitSeconds: ctx.config.apiHeadroomSeconds });
  const warnings = await cleanUp(ctx, cr, generation);
  cr = await transition(ctx, cr, 'completing the stop', (_current, state) => (state.bootstrapping ? stopCompletion(warnings) : null));
  return { sandbox: cr, warnings };
}

/**
 * Deletes the supervisor Pod with a UID precondition and waits until that Pod is gone. A Pod
 * already terminating (another replica's delete) is only waited for, and a DELETE is sent only
 * while the Sandbox, read just before, still shows the stop: once another replica has finished
 * it, a supervisor under that name belongs to a start that began since and is left alone. A Pod
 * under the supervisor's name whose UID is not the one the Sandbox recorded at create or start
 * (`sandbox-runtime-supervisor-uid`) is not this sandbox's supervisor: someone replaced it under
 * the same name, so ours is gone, and the replacement is left alone (OpenShell#3556). The
 * deadline is the Pod's own grace period (30 s if unset) plus API headroom; the suspend-first
 * variant waits a flat API timeout instead, which is the race #3421 reported, and the
 * headroom-deadline variant waits the API headroom only and then goes on as if the Pod were gone.
 */
export async function deleteSupervisorAndWait(ctx: DriverContext, cr: KubeObject, options: { flatWaitSeconds?: number } = {}): Promise<void> {
  ctx.call.enter('waiting for the supervisor Pod to be gone');
  const state = readState(cr);
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: sandboxObjectNames(state.id, state.crName).supervisorPod };
  const fresh = () => ctx.kube.get(ref).catch((e) => Promise.reject(asDriverError(e, 'reading the supervisor Pod')));
  // error-as-gone: any read of the supervisor Pod that failed is taken for its absence (a defect).
  const errorAsGone = ctx.config.variant === 'error-as-gone' ? () => fresh().catch(() => undefined) : undefined;
  let pod = await (errorAsGone ?? fresh)();
  if (!pod) return;
  // stale-supervisor-read: after the first read, reads the API server may answer from a stale cache (a defect).
  const read = ctx.config.variant === 'stale-supervisor-read' ? () => readAnyVersion(ctx, ref, 'the supervisor Pod') : (errorAsGone ?? fresh);
  const headroomOnly = ctx.config.variant === 'headroom-deadline';
  const flat = options.flatWaitSeconds ?? (headroomOnly ? ctx.config.apiHeadroomSeconds : undefined);
  const seconds = flat ?? (pod.spec?.terminationGracePeriodSeconds ?? 30) + ctx.config.apiHeadroomSeconds;
  const deadline = Date.now() + seconds * 1000;
  const timeoutMessage = flat !== undefined ? 'timed out waiting for supervisor Pod deletion' : `timed out after ${seconds}s waiting for supervisor Pod deletion`;
  const changes = ChangeSignal.open(ctx.kube.watches, [{ path: `/api/v1/namespaces/${state.namespace}/pods`, name: ref.name }]);
  try {
    while (pod) {
      if (!isRecordedSupervisor(cr, pod)) {
        ctx.log(`sandbox ${state.id}: supervisor Pod ${ref.name} has UID ${pod.metadata?.uid}, not the recorded ${recordedSupervisorUid(cr)}: a replacement, left alone`);
        return;
      }
      if (!pod.metadata?.deletionTimestamp) {
        const now = await ctx.kube.get(ctx.ref(cr)).catch((e) => Promise.reject(asDriverError(e, 'reading the Sandbox')));
        if (!now || now.metadata?.uid !== cr.metadata?.uid || !stopping(readState(now))) return; // the stop is over: decide again from the Sandbox
        try {
          await ctx.kube.delete(ref, { preconditions: { uid: pod.metadata!.uid! }, propagationPolicy: 'Foreground' });
        } catch (error) {
          // 409: the Pod was replaced under the same name; the stale precondition protected the new one. Re-read.
          if (!isConflict(error)) throw asDriverError(error, `deleting supervisor Pod ${ref.name}`);
        }
      }
      // watch-trusting-wait: the deletion awaited on a watch alone, whose end is taken for it (a defect).
      if (ctx.config.variant === 'watch-trusting-wait') return waitOnWatchAlone(ctx, ref, pod.metadata!.resourceVersion!, deadline);
      // expired-watch-as-gone: the same wait, resumed when the stream ends, but a 410 Expired taken for the deletion (a defect).
      if (ctx.config.variant === 'expired-watch-as-gone') return waitTakingExpiryForDeletion(ctx, ref, pod.metadata!.resourceVersion!, deadline);
      if (Date.now() > deadline) {
        if (!headroomOnly) throw new DriverError('UNAVAILABLE', timeoutMessage);
        ctx.log(`sandbox ${state.id}: ${timeoutMessage} after ${seconds}s; suspending anyway (headroom-deadline defect)`);
        return;
      }
      await ctx.call.sleep(ctx.config.pollIntervalMs, changes);
      pod = await read();
    }
  } finally {
    changes.close();
  }
}

/** The supervisor Pod UID the Sandbox recorded when its generation was installed, if any. */
function recordedSupervisorUid(cr: KubeObject): string | undefined {
  return cr.metadata?.annotations?.[ANNOTATION.supervisorUid];
}

/** True unless the Sandbox recorded another supervisor UID than this Pod's (an unrecorded one is given the benefit: a create cut short before the record). */
function isRecordedSupervisor(cr: KubeObject, pod: KubeObject): boolean {
  const recorded = recordedSupervisorUid(cr);
  return !recorded || recorded === pod.metadata?.uid;
}

/** True when the supervisor Pod carries `generation` (or either side does not say). */
function ofGeneration(pod: KubeObject, generation: string | undefined): boolean {
  const own = pod.metadata?.annotations?.[ANNOTATION.generation];
  return !generation || !own || own === generation;
}

/** Waits until the workload Pod is gone (and on v1beta1 a current-generation Suspended=True), with back-off; wakes on watch events. */
async function waitForWorkloadGone(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  ctx.call.enter('waiting for the workload Pod to be gone');
  const grace = (cr.spec?.podTemplate?.spec?.terminationGracePeriodSeconds as number | undefined) ?? 30;
  const seconds = grace + ctx.config.apiHeadroomSeconds;
  const deadline = Date.now() + seconds * 1000;
  const v1beta1 = cr.apiVersion!.endsWith('v1beta1');
  let interval = STOP_INITIAL_POLL_MS;
  const initial = readState(cr);
  const [group, version] = cr.apiVersion!.split('/');
  const changes = ChangeSignal.open(ctx.kube.watches, [
    { path: `/api/v1/namespaces/${initial.namespace}/pods`, name: initial.workloadPod },
    { path: `/apis/${group}/${version}/namespaces/${initial.namespace}/sandboxes`, name: initial.crName },
  ]);
  try {
    for (;;) {
      // Both read at once (the Pod by the name the Sandbox was read with: it does not change).
      const [fresh, pod] = await Promise.all([
        ctx.kube.get(ctx.ref(cr)).catch((e) => Promise.reject(asDriverError(e, 'reading the Sandbox'))),
        ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: initial.namespace, name: initial.workloadPod }).catch((e) => Promise.reject(asDriverError(e, 'reading the workload Pod'))),
      ]);
      if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${cr.metadata!.name} disappeared while stopping`);
      cr = fresh;
      const state = readState(cr);
      const suspended = condition(state, 'Suspended');
      if (suspended?.status === 'False' && suspended.reason === 'PodNotOwned') {
        throw new DriverError('FAILED_PRECONDITION', `Kubernetes sandbox stop rejected: ${suspended.message || 'backing pod is not owned by this sandbox'}`);
      }
      if (!pod && (!v1beta1 || suspended?.status === 'True')) return cr;
      if (!state.suspendedInSpec) throw superseded(ctx, describeMove(state));
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out after ${seconds}s waiting for Kubernetes sandbox to stop`);
      await ctx.call.sleep(interval, changes);
      interval = Math.min(interval * 2, STOP_MAX_POLL_MS);
    }
  } finally {
    changes.close();
  }
}

/**
 * The supervisor again (idempotent, only this generation's) and the generation Secrets by exact
 * name; failures become warnings. Another replica finishing the same stop meets 404s here.
 */
async function cleanUp(ctx: DriverContext, cr: KubeObject, generation: string | undefined): Promise<string[]> {
  ctx.call.enter('deleting the generation Secrets');
  const state = readState(cr);
  const names = sandboxObjectNames(state.id, state.crName, generation ?? state.generation);
  const supervisorRef = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: names.supervisorPod };
  const supervisorAgain = async () => {
    const supervisor = await ctx.kube.get(supervisorRef).catch((e) => Promise.reject(asDriverError(e, 'reading the supervisor Pod')));
    if (supervisor && !supervisor.metadata?.deletionTimestamp && ofGeneration(supervisor, generation) && isRecordedSupervisor(cr, supervisor)) {
      await ctx.kube.delete(supervisorRef, { preconditions: { uid: supervisor.metadata!.uid! } }).catch((e) => {
        if (!isConflict(e)) return Promise.reject(asDriverError(e, 'deleting the supervisor Pod'));
      });
    }
  };
  const deleteSecret = async (secret: string): Promise<string | undefined> => {
    try {
      await ctx.kube.delete({ apiVersion: 'v1', kind: 'Secret', namespace: state.namespace, name: secret });
      return undefined;
    } catch (error) {
      const status = statusOf(error);
      const warning = `deleting generation Secret ${secret} failed: ${status?.message ?? (error as Error).message}`;
      ctx.log(`sandbox ${state.id}: ${warning}`);
      return warning;
    }
  };
  // At once: the supervisor was gone before the suspension (step 2), so nothing here waits on anything else.
  const secrets = [names.sandboxSecret, names.supervisorSecret].filter((s): s is string => !!s);
  const [, ...failures] = await Promise.all([supervisorAgain(), ...secrets.map(deleteSecret)]);
  return failures.filter((w): w is string => w !== undefined);
}
