import { DriverError } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { isCallEnd } from './call-scope.ts';
import { currentSandbox, installGeneration, preparing } from './generation.ts';
import { asDriverError, type KubeObject } from './kube.ts';
import { BOUNDARY_PORT, crName, LABEL } from './names.ts';
import { newGeneration, operatingSpec, renderBoundaryService, renderSandbox, renderSupervisorPod, type SandboxIdentity } from './render.ts';
import { readState } from './sandbox-state.ts';
import type { LaunchSpec } from './sandbox-spec.ts';
import { Superseded, transition } from './transition.ts';
import { ensureWorkspace } from './workspaces.ts';

/**
 * Create, for the id the caller minted: ALREADY_EXISTS when a Sandbox carries that id already.
 * The CR is born suspended with the bootstrap annotations; then the boundary Service, the gated
 * supervisor Pod, the running patch, and the generation install, returning the Sandbox once the
 * generation is `released` (its completion is a state reached later: see completion.ts). If a
 * companion step fails the CR is deleted (rollback) and the error returned. Not when the
 * caller's deadline ended the call, nor when someone else moved the sandbox on (a stop began):
 * the Sandbox is then durable state that reconciliation completes once Ready or reaps after
 * the bootstrap grace, or that a stop takes.
 */
export async function createSandbox(ctx: DriverContext, id: string, spec: LaunchSpec): Promise<KubeObject> {
  const workspace = spec.workspace ?? ctx.config.defaultWorkspace;
  // API first: a cluster without Agent Sandbox must fail before the workspace namespace is made.
  ctx.call.enter('detecting the Agent Sandbox API');
  const apiVersion = await ctx.sandboxApiVersion();
  ctx.call.enter('checking the sandbox id is free');
  if ((await ctx.listSandboxes(id)).length) throw new DriverError('ALREADY_EXISTS', `sandbox already exists: a Sandbox resource carries ${LABEL.sandboxId}=${id}`);
  ctx.call.enter('preparing the workspace');
  const namespace = await ensureWorkspace(ctx, workspace);
  const who: SandboxIdentity = { id, name: spec.name, workspace, namespace, crName: crName(ctx.config.workspaceMode, workspace, spec.name) };
  ctx.call.subject = `sandbox ${id}, Sandbox ${namespace}/${who.crName}`;
  const generation = newGeneration();
  let cr: KubeObject;
  ctx.call.enter('creating the Sandbox');
  try {
    cr = await ctx.kube.create(renderSandbox(ctx.config, apiVersion, who, spec, generation));
  } catch (error) {
    const e = asDriverError(error, `creating Sandbox ${who.crName}`);
    if (e.code === 'ALREADY_EXISTS') throw new DriverError('ALREADY_EXISTS', `sandbox already exists: ${who.namespace}/${who.crName}`);
    throw e;
  }
  try {
    ctx.call.enter('creating the boundary Service');
    const service = await ctx.kube.create(renderBoundaryService(ctx.config, who, cr)).catch((e) => Promise.reject(asDriverError(e, 'creating the boundary Service')));
    const boundaryAddress = `${service.spec.clusterIP}:${BOUNDARY_PORT}`;
    const grace = spec.supervisorGraceSeconds ?? ctx.config.supervisorGraceSeconds;
    ctx.call.enter('creating the supervisor Pod');
    const supervisor = await ctx.kube.create(renderSupervisorPod(ctx.config, who, cr, generation, boundaryAddress, grace)).catch((e) => Promise.reject(asDriverError(e, 'creating the supervisor Pod')));
    // The controller has written the new Sandbox's status meanwhile, on a loaded cluster as a rule:
    // decide from the Sandbox as it is now, not as it was created (a certain 409, a read, a write).
    cr = await transition(
      ctx,
      await currentSandbox(ctx, cr, 'letting the workload run (running patch)'),
      'letting the workload run (running patch)',
      preparing(ctx, generation, 'create', (current, state) => (state.suspendedInSpec ? { spec: operatingSpec(current.apiVersion!, false) } : null)),
    );
    return await installGeneration(ctx, cr, supervisor, boundaryAddress, 'create');
  } catch (error) {
    if (isCallEnd(error) || error instanceof Superseded) {
      ctx.log(`sandbox ${id}: create ended without completing: ${(error as Error).message}; reconciliation completes it once Ready or reaps it after the bootstrap grace`);
      throw error;
    }
    const reason = asDriverError(error, `creating sandbox ${spec.name}`);
    ctx.log(`sandbox ${id}: create failed, rolling back: ${reason.message}`);
    await ctx.kube.delete(ctx.ref(cr), { preconditions: { uid: cr.metadata!.uid }, propagationPolicy: 'Background' }).catch(() => undefined);
    throw reason;
  }
}

export function sandboxIdentity(cr: KubeObject): SandboxIdentity {
  const state = readState(cr);
  return { id: state.id, name: state.name, workspace: state.workspace, namespace: state.namespace, crName: state.crName };
}
