import { DriverError, type SandboxSpec } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { sandboxIdentity } from './create.ts';
import { completeBootstrap, installGeneration, readyToComplete } from './generation.ts';
import { asDriverError, type KubeObject } from './kube.ts';
import { ANNOTATION, BOUNDARY_PORT, sandboxObjectNames } from './names.ts';
import { newGeneration, operatingSpec, renderSupervisorPod, workloadPodTemplate } from './render.ts';
import { readState } from './sandbox-state.ts';
import { stopSandbox } from './stop.ts';

/**
 * Start a stopped sandbox as a new generation: a new supervisor Pod and Secrets, stale
 * generations cleaned, the restart patch (running + new bootstrap Secret in the template),
 * then the same install as create. If it fails, a stop rolls it back.
 */
export async function startSandbox(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  let state = readState(cr);
  if (state.bootstrapping) {
    if (state.operation === 'stop') {
      cr = (await stopSandbox(ctx, cr)).sandbox;
      state = readState(cr);
    } else if (readyToComplete(cr)) {
      return completeBootstrap(ctx, cr);
    } else if (state.operation === 'create') {
      throw new DriverError('FAILED_PRECONDITION', 'initial sandbox bootstrap has not completed; wait for reconciliation');
    }
  }
  const workload = await ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: state.workloadPod });
  if (workload) throw new DriverError('FAILED_PRECONDITION', 'cannot rotate a running workload Pod; stop the sandbox first');

  const who = sandboxIdentity(cr);
  const launch = JSON.parse(cr.metadata?.annotations?.[ANNOTATION.mainProcessSpec] ?? '{}') as Partial<SandboxSpec>;
  const spec: SandboxSpec = { name: who.name, command: launch.command ?? [], environment: launch.environment, supervisorGraceSeconds: launch.supervisorGraceSeconds, workloadGraceSeconds: launch.workloadGraceSeconds };
  const generation = newGeneration();
  const names = sandboxObjectNames(who.id, who.crName);
  // Leftovers of earlier generations: the supervisor Pod (its Secret goes with it) and Secrets by exact name.
  await ctx.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: who.namespace, name: names.supervisorPod }).catch(() => undefined);
  const service = await ctx.kube.get({ apiVersion: 'v1', kind: 'Service', namespace: who.namespace, name: names.boundaryService });
  if (!service) throw new DriverError('FAILED_PRECONDITION', `boundary Service ${names.boundaryService} is missing`);
  const boundaryAddress = `${service.spec.clusterIP}:${BOUNDARY_PORT}`;
  try {
    await waitGone(ctx, who.namespace, names.supervisorPod);
    const grace = spec.supervisorGraceSeconds ?? ctx.config.supervisorGraceSeconds;
    const supervisor = await ctx.kube.create(renderSupervisorPod(ctx.config, who, cr, generation, boundaryAddress, grace)).catch((e) => Promise.reject(asDriverError(e, 'creating the supervisor Pod')));
    cr = await ctx.patchSandbox(cr, (current) => ({
      metadata: {
        annotations: {
          [ANNOTATION.bootstrapping]: 'true',
          [ANNOTATION.operation]: 'restart',
          [ANNOTATION.phase]: 'preparing',
          [ANNOTATION.generation]: generation,
          [ANNOTATION.startedAt]: String(Date.now()),
          [ANNOTATION.supervisorUid]: supervisor.metadata!.uid!,
        },
      },
      spec: { ...operatingSpec(current.apiVersion!, false), podTemplate: workloadPodTemplate(ctx.config, who, spec, generation) },
    }));
    return await installGeneration(ctx, cr, supervisor, boundaryAddress);
  } catch (error) {
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

async function waitGone(ctx: DriverContext, namespace: string, pod: string): Promise<void> {
  const deadline = Date.now() + (ctx.config.supervisorGraceSeconds + ctx.config.apiHeadroomSeconds) * 1000;
  while (await ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod })) {
    if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out waiting for the previous supervisor Pod ${pod} to go`);
    await new Promise((r) => setTimeout(r, ctx.config.pollIntervalMs));
  }
}
