import { DriverError } from '../compute-driver.ts';
import { isCallEnd } from './call-scope.ts';
import { ChangeSignal } from './change-signal.ts';
import { advanceGeneration, awaitGeneration } from './completion.ts';
import type { DriverContext } from './context.ts';
import { sandboxIdentity } from './create.ts';
import { readAnyVersion } from './fault-only-defects.ts';
import { installGeneration, preparing } from './generation.ts';
import { asDriverError, isConflict, type KubeObject } from './kube.ts';
import { ANNOTATION, BOUNDARY_PORT, sandboxObjectNames } from './names.ts';
import { newGeneration, operatingSpec, renderSupervisorPod, workloadPodTemplate } from './render.ts';
import { condition, readState, START_FAILED_ANNOTATION } from './sandbox-state.ts';
import type { LaunchSpec } from './sandbox-spec.ts';
import { stopSandbox } from './stop.ts';
import { Superseded, transition } from './transition.ts';

/**
 * Start a stopped sandbox as a new generation (`generationId`, the caller's, when given: a retry
 * of one start reuses it and finds it done). The start is first recorded on the Sandbox
 * (`restart`/`preparing`, guarded by the resourceVersion of the stopped state it was decided
 * from), so of two starts racing on two replicas exactly one proceeds and the other joins it.
 * Then the previous supervisor goes, a new gated supervisor is created, the running patch (with
 * the new generation's bootstrap Secret in the template), and the same install as create,
 * returning once the generation is `released`. If a step fails, a stop rolls it back. A sandbox
 * whose main process ended by itself (`Finished=True`, the gateway's Error) is stopped first.
 */
export async function startSandbox(ctx: DriverContext, cr: KubeObject, generationId?: string): Promise<KubeObject> {
  // stale-start-read: "its spec says running and its main process has not ended: nothing to do",
  // decided from a read that may be answered stale (a defect).
  if (ctx.config.variant === 'stale-start-read') {
    const seen = await readAnyVersion(ctx, ctx.ref(cr), `Sandbox ${cr.metadata!.name}`);
    if (seen && !readState(seen).suspendedInSpec && condition(readState(seen), 'Finished')?.status !== 'True') return seen;
  }
  let state = readState(cr);
  // A retry of a start that is already installed (or completed): nothing more to do.
  if (generationId && state.generation === generationId && (!state.bootstrapping || state.phase === 'released')) return cr;
  if (state.bootstrapping && state.operation === 'restart' && generationId && state.generation !== generationId) {
    throw new DriverError('FAILED_PRECONDITION', `another start of the sandbox is under way (generation ${state.generation?.slice(0, 12)})`);
  }
  if (state.bootstrapping) {
    if (state.operation === 'stop') {
      cr = (await stopSandbox(ctx, cr)).sandbox;
      state = readState(cr);
    } else if (state.operation === 'create') {
      const { cr: after, standing } = await advanceGeneration(ctx, cr, state.generation!, 'create');
      if (standing.kind === 'completed') return after;
      throw new DriverError('FAILED_PRECONDITION', 'initial sandbox bootstrap has not completed; wait for reconciliation');
    } else {
      // Another start is under way (here or on another replica): the same request, joined.
      return awaitGeneration(ctx, cr, state.generation!, 'restart', 'installed');
    }
  }
  if (!state.bootstrapping && !state.suspendedInSpec && condition(state, 'Finished')?.status === 'True') {
    // The main process ended by itself (the gateway's Error, OpenShell#3308): the generation is
    // stopped in order first (its supervisor goes, then the finished workload), then started anew.
    cr = (await stopSandbox(ctx, cr)).sandbox;
    state = readState(cr);
  }
  ctx.call.enter('checking the workload Pod is gone');
  const workload = await ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: state.workloadPod });
  if (workload) throw new DriverError('FAILED_PRECONDITION', 'cannot rotate a running workload Pod; stop the sandbox first');

  const who = sandboxIdentity(cr);
  const launch = JSON.parse(cr.metadata?.annotations?.[ANNOTATION.mainProcessSpec] ?? '{}') as Partial<LaunchSpec>;
  const spec: LaunchSpec = { name: who.name, command: launch.command ?? [], environment: launch.environment, image: launch.image, supervisorGraceSeconds: launch.supervisorGraceSeconds, workloadGraceSeconds: launch.workloadGraceSeconds };
  const names = sandboxObjectNames(who.id, who.crName);
  ctx.call.enter('reading the boundary Service');
  const service = await ctx.kube.get({ apiVersion: 'v1', kind: 'Service', namespace: who.namespace, name: names.boundaryService });
  if (!service) throw new DriverError('FAILED_PRECONDITION', `boundary Service ${names.boundaryService} is missing`);
  const boundaryAddress = `${service.spec.clusterIP}:${BOUNDARY_PORT}`;

  const generation = generationId ?? newGeneration();
  const startedAt = String(Date.now());
  const restarting = (extra: Record<string, string> = {}) => ({
    [ANNOTATION.bootstrapping]: 'true',
    [ANNOTATION.operation]: 'restart',
    [ANNOTATION.phase]: 'preparing',
    [ANNOTATION.generation]: generation,
    [ANNOTATION.startedAt]: startedAt,
    ...extra,
  });
  cr = await transition(ctx, cr, 'recording the start (phase preparing)', (_current, s) => {
    if (s.bootstrapping && s.operation === 'restart') return null; // ours, or another replica's start: joined below
    if (s.bootstrapping || !s.suspendedInSpec) throw new Superseded(`start did not begin: ${s.bootstrapping ? `a ${s.operation} of the sandbox began (phase ${s.phase})` : 'the sandbox is running again'}`);
    // A new start clears the last one's failed stage (stage-failure.ts).
    return { metadata: { annotations: { ...restarting(), [START_FAILED_ANNOTATION]: null } } };
  });
  const claimed = readState(cr);
  if (claimed.generation !== generation) return awaitGeneration(ctx, cr, claimed.generation!, 'restart', 'installed');

  try {
    // The previous generation's supervisor, if a stop left it (its Secret goes with it).
    await removePreviousSupervisor(ctx, who.namespace, names.supervisorPod, generation);
    const grace = spec.supervisorGraceSeconds ?? ctx.config.supervisorGraceSeconds;
    ctx.call.enter('creating the supervisor Pod');
    const supervisor = await ctx.kube.create(renderSupervisorPod(ctx.config, who, cr, generation, boundaryAddress, grace)).catch((e) => Promise.reject(asDriverError(e, 'creating the supervisor Pod')));
    cr = await transition(
      ctx,
      cr,
      'letting the workload run (restart patch)',
      preparing(ctx, generation, 'restart', (current, s) =>
        s.suspendedInSpec || current.metadata?.annotations?.[ANNOTATION.supervisorUid] !== supervisor.metadata!.uid
          ? {
              metadata: { annotations: restarting({ [ANNOTATION.supervisorUid]: supervisor.metadata!.uid! }) },
              spec: { ...operatingSpec(current.apiVersion!, false), podTemplate: workloadPodTemplate(ctx.config, who, spec, generation) },
            }
          : null,
      ),
    );
    return await installGeneration(ctx, cr, supervisor, boundaryAddress, 'restart');
  } catch (error) {
    if (isCallEnd(error) || error instanceof Superseded) throw error;
    const reason = asDriverError(error, 'restart failed');
    try {
      const fresh = (await ctx.kube.get(ctx.ref(cr))) ?? cr;
      await stopSandbox(ctx, fresh);
    } catch (rollback) {
      throw new DriverError(reason.code, `restart failed: ${reason.message}; rollback remains pending: ${(rollback as Error).message}`);
    }
    throw new DriverError(reason.code, `restart failed: ${reason.message}`);
  }
}

/**
 * Deletes a supervisor Pod left by an earlier generation (UID precondition) and waits until it is
 * gone; wakes on watch events. This start holds the Sandbox's claim, so no other start made it.
 */
async function removePreviousSupervisor(ctx: DriverContext, namespace: string, name: string, generation: string): Promise<void> {
  ctx.call.enter('waiting for the previous supervisor Pod to go');
  const ref = { apiVersion: 'v1', kind: 'Pod', namespace, name };
  const deadline = Date.now() + (ctx.config.supervisorGraceSeconds + ctx.config.apiHeadroomSeconds) * 1000;
  const changes = ChangeSignal.open(ctx.kube.watches, [{ path: `/api/v1/namespaces/${namespace}/pods`, name }]);
  try {
    for (let pod = await ctx.kube.get(ref); pod; pod = await ctx.kube.get(ref)) {
      if (pod.metadata?.annotations?.[ANNOTATION.generation] === generation) return;
      if (!pod.metadata?.deletionTimestamp) {
        await ctx.kube.delete(ref, { preconditions: { uid: pod.metadata!.uid! } }).catch((e) => {
          if (!isConflict(e)) return Promise.reject(asDriverError(e, `deleting the previous supervisor Pod ${name}`));
        });
      }
      if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out waiting for the previous supervisor Pod ${name} to go`);
      await ctx.call.sleep(ctx.config.pollIntervalMs, changes);
    }
  } finally {
    changes.close();
  }
}
