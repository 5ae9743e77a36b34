import { DriverError } from '../compute-driver.ts';
import { ChangeSignal } from './change-signal.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isConflict, statusOf, type KubeObject } from './kube.ts';
import { ANNOTATION, LABEL, sandboxObjectNames } from './names.ts';
import { operatingSpec } from './render.ts';
import { condition, readState } from './sandbox-state.ts';

/** Result of a stop: the final CR and cleanup problems that did not prevent suspension. */
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
 * A stop that finds `releasing` resumes at step 2; one that finds `suspending` only waits and cleans.
 * Runs under the sandbox's lifecycle gate (the caller holds it).
 */
export async function stopSandbox(ctx: DriverContext, cr: KubeObject): Promise<StopOutcome> {
  if (ctx.config.variant === 'suspend-first') return stopSuspendFirst(ctx, cr);
  let state = readState(cr);
  if (state.phase !== 'releasing' && state.phase !== 'suspending') {
    cr = await ctx.patchSandbox(cr, () => ({
      metadata: {
        annotations: {
          [ANNOTATION.bootstrapping]: 'true',
          [ANNOTATION.startedAt]: String(Date.now()),
          [ANNOTATION.operation]: 'stop',
          [ANNOTATION.phase]: 'releasing',
          [ANNOTATION.readiness]: 'unavailable',
        },
      },
    }));
    state = readState(cr);
  }
  if (state.phase !== 'suspending') {
    await deleteSupervisorAndWait(ctx, cr);
    cr = await suspend(ctx, cr, 'suspending');
  }
  cr = await waitForWorkloadGone(ctx, cr);
  const warnings = await cleanUp(ctx, cr);
  cr = await ctx.patchSandbox(cr, () => ({ metadata: { annotations: { ...BOOTSTRAP_KEYS_CLEARED, [ANNOTATION.readiness]: 'unavailable' } } }));
  return { sandbox: cr, warnings };
}

/**
 * The pre-#3424 order, kept as a clearly marked defect for the suite's self-test: suspend the
 * workload first, then delete the supervisor with a flat API-timeout wait. The supervisor then
 * has no boundary to clean up through and is SIGKILLed at its grace period.
 */
async function stopSuspendFirst(ctx: DriverContext, cr: KubeObject): Promise<StopOutcome> {
  cr = await suspend(ctx, cr, 'rolling-back');
  cr = await waitForWorkloadGone(ctx, cr);
  await deleteSupervisorAndWait(ctx, cr, { flatWaitSeconds: ctx.config.apiHeadroomSeconds });
  const warnings = await cleanUp(ctx, cr);
  cr = await ctx.patchSandbox(cr, () => ({ metadata: { annotations: { ...BOOTSTRAP_KEYS_CLEARED, [ANNOTATION.readiness]: 'unavailable' } } }));
  return { sandbox: cr, warnings };
}

async function suspend(ctx: DriverContext, cr: KubeObject, phase: 'suspending' | 'rolling-back'): Promise<KubeObject> {
  return ctx.patchSandbox(cr, (current) => ({
    metadata: {
      annotations: {
        [ANNOTATION.bootstrapping]: 'true',
        [ANNOTATION.startedAt]: current.metadata?.annotations?.[ANNOTATION.startedAt] ?? String(Date.now()),
        [ANNOTATION.operation]: 'stop',
        [ANNOTATION.phase]: phase,
        [ANNOTATION.readiness]: 'unavailable',
      },
    },
    spec: operatingSpec(current.apiVersion!, true),
  }));
}

/**
 * Deletes the supervisor Pod with a UID precondition and waits until that Pod is gone. The
 * deadline is the Pod's own grace period (30 s if unset) plus API headroom; the suspend-first
 * variant waits a flat API timeout instead, which is the race #3421 reported.
 */
export async function deleteSupervisorAndWait(ctx: DriverContext, cr: KubeObject, options: { flatWaitSeconds?: number } = {}): Promise<void> {
  const state = readState(cr);
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: sandboxObjectNames(state.id, state.crName).supervisorPod };
  let pod = await ctx.kube.get(ref).catch((e) => Promise.reject(asDriverError(e, 'reading the supervisor Pod')));
  if (!pod) return;
  const seconds = options.flatWaitSeconds ?? (pod.spec?.terminationGracePeriodSeconds ?? 30) + ctx.config.apiHeadroomSeconds;
  const deadline = Date.now() + seconds * 1000;
  const timeoutMessage = options.flatWaitSeconds !== undefined ? 'timed out waiting for supervisor Pod deletion' : `timed out after ${seconds}s waiting for supervisor Pod deletion`;
  let deletedUid: string | undefined;
  const changes = ChangeSignal.open(ctx.kube.config, [{ path: `/api/v1/namespaces/${state.namespace}/pods`, name: ref.name }]);
  try {
    while (pod) {
      const uid = pod.metadata!.uid!;
      if (deletedUid !== uid) {
        try {
          await ctx.kube.delete(ref, { preconditions: { uid }, propagationPolicy: 'Foreground' });
          deletedUid = uid;
        } catch (error) {
          // 409: the Pod was replaced under the same name; the stale precondition protected the new one. Re-read.
          if (!isConflict(error)) throw asDriverError(error, `deleting supervisor Pod ${ref.name}`);
        }
      }
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', timeoutMessage);
      await changes.sleep(ctx.config.pollIntervalMs);
      pod = await ctx.kube.get(ref).catch((e) => Promise.reject(asDriverError(e, 'reading the supervisor Pod')));
    }
  } finally {
    changes.close();
  }
}

/** Waits until the workload Pod is gone (and on v1beta1 a current-generation Suspended=True), with back-off. */
async function waitForWorkloadGone(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  const grace = (cr.spec?.podTemplate?.spec?.terminationGracePeriodSeconds as number | undefined) ?? 30;
  const seconds = grace + ctx.config.apiHeadroomSeconds;
  const deadline = Date.now() + seconds * 1000;
  const v1beta1 = cr.apiVersion!.endsWith('v1beta1');
  let interval = STOP_INITIAL_POLL_MS;
  const initial = readState(cr);
  const [group, version] = cr.apiVersion!.split('/');
  const changes = ChangeSignal.open(ctx.kube.config, [
    { path: `/api/v1/namespaces/${initial.namespace}/pods`, name: initial.workloadPod },
    { path: `/apis/${group}/${version}/namespaces/${initial.namespace}/sandboxes`, name: initial.crName },
  ]);
  try {
    for (;;) {
      const fresh = await ctx.kube.get(ctx.ref(cr)).catch((e) => Promise.reject(asDriverError(e, 'reading the Sandbox')));
      if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${cr.metadata!.name} disappeared while stopping`);
      cr = fresh;
      const state = readState(cr);
      const suspended = condition(state, 'Suspended');
      if (suspended?.status === 'False' && suspended.reason === 'PodNotOwned') {
        throw new DriverError('FAILED_PRECONDITION', `Kubernetes sandbox stop rejected: ${suspended.message || 'backing pod is not owned by this sandbox'}`);
      }
      const pod = await ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: state.workloadPod }).catch((e) => Promise.reject(asDriverError(e, 'reading the workload Pod')));
      if (!pod && (!v1beta1 || suspended?.status === 'True')) return cr;
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out after ${seconds}s waiting for Kubernetes sandbox to stop`);
      await changes.sleep(interval);
      interval = Math.min(interval * 2, STOP_MAX_POLL_MS);
    }
  } finally {
    changes.close();
  }
}

/** Supervisor again (idempotent) and the generation Secrets by exact name; failures become warnings. */
async function cleanUp(ctx: DriverContext, cr: KubeObject): Promise<string[]> {
  const state = readState(cr);
  const names = sandboxObjectNames(state.id, state.crName, state.generation);
  await ctx.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: names.supervisorPod }).catch((e) => Promise.reject(asDriverError(e, 'deleting the supervisor Pod')));
  const warnings: string[] = [];
  for (const secret of [names.sandboxSecret, names.supervisorSecret]) {
    if (!secret) continue;
    try {
      await ctx.kube.delete({ apiVersion: 'v1', kind: 'Secret', namespace: state.namespace, name: secret });
    } catch (error) {
      const status = statusOf(error);
      const warning = `deleting generation Secret ${secret} failed: ${status?.message ?? (error as Error).message}`;
      ctx.log(`sandbox ${state.id}: ${warning}`);
      warnings.push(warning);
    }
  }
  return warnings;
}

