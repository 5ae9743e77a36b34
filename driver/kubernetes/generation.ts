import { setTimeout as sleep } from 'node:timers/promises';
import { DriverError } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, type KubeObject } from './kube.ts';
import { ANNOTATION, BOOTSTRAP_GATE, sandboxObjectNames } from './names.ts';
import { renderSecrets } from './render.ts';
import { condition, readState } from './sandbox-state.ts';

/**
 * Installs a generation once the Sandbox runs: waits for the controller's workload Pod (owned by
 * this CR), records both Pod UIDs, creates the generation Secrets, removes the scheduling gates
 * (supervisor first), marks the phase `released`, and completes when the CR is Ready.
 * Shared by create and start.
 */
export async function installGeneration(ctx: DriverContext, cr: KubeObject, supervisor: KubeObject, boundaryAddress: string): Promise<KubeObject> {
  const state = readState(cr);
  const workload = await waitForWorkloadPod(ctx, cr);
  cr = await ctx.patchSandbox(cr, () => ({
    metadata: { annotations: { [ANNOTATION.workloadUid]: workload.metadata!.uid!, [ANNOTATION.supervisorUid]: supervisor.metadata!.uid! } },
  }));
  const who = { id: state.id, name: state.name, workspace: state.workspace, namespace: state.namespace, crName: state.crName };
  for (const secret of renderSecrets(ctx.config, who, state.generation!, workload, supervisor, boundaryAddress)) {
    await ctx.kube.create(secret).catch((e) => Promise.reject(asDriverError(e, `creating Secret ${secret.metadata!.name}`)));
  }
  // Supervisor first: it must be connected to the boundary before the workload is released.
  for (const pod of [supervisor, workload]) await removeBootstrapGate(ctx, state.namespace, pod);
  cr = await ctx.patchSandbox(cr, () => ({ metadata: { annotations: { [ANNOTATION.phase]: 'released' } } }));
  return completeWhenReady(ctx, cr);
}

/** Removes the bootstrap gate from exactly the Pod observed (UID-guarded JSON patch). */
async function removeBootstrapGate(ctx: DriverContext, namespace: string, pod: KubeObject): Promise<void> {
  const index = ((pod.spec?.schedulingGates ?? []) as { name: string }[]).findIndex((g) => g.name === BOOTSTRAP_GATE);
  if (index < 0) return;
  await ctx.kube
    .jsonPatchPod(namespace, pod.metadata!.name!, [
      { op: 'test', path: '/metadata/uid', value: pod.metadata!.uid },
      { op: 'test', path: `/spec/schedulingGates/${index}/name`, value: BOOTSTRAP_GATE },
      { op: 'remove', path: `/spec/schedulingGates/${index}` },
    ])
    .catch((e) => Promise.reject(asDriverError(e, `removing the scheduling gate of Pod ${pod.metadata!.name}`)));
}

async function waitForWorkloadPod(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  const deadline = Date.now() + ctx.config.workloadPodWaitSeconds * 1000;
  for (;;) {
    const fresh = (await ctx.kube.get(ctx.ref(cr))) ?? cr;
    const state = readState(fresh);
    const pod = await ctx.kube.get({ apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: state.workloadPod });
    if (pod && !pod.metadata?.deletionTimestamp) {
      const controller = pod.metadata?.ownerReferences?.find((r) => r.controller);
      if (controller?.kind !== 'Sandbox' || controller.uid !== cr.metadata!.uid) {
        throw new DriverError('FAILED_PRECONDITION', `workload Pod ${state.workloadPod} is not controlled by the created Sandbox UID`);
      }
      return pod;
    }
    if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out waiting for gated workload Pod ${state.workloadPod}`);
    await sleep(ctx.config.pollIntervalMs);
  }
}

/** True when the CR reports Ready at its current generation and no current-generation Suspended=True. */
export function readyToComplete(cr: KubeObject): boolean {
  const state = readState(cr);
  return (
    state.bootstrapping &&
    state.phase === 'released' &&
    (state.operation === 'create' || state.operation === 'restart') &&
    condition(state, 'Ready')?.status === 'True' &&
    condition(state, 'Suspended')?.status !== 'True'
  );
}

export async function completeBootstrap(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  return ctx.patchSandbox(cr, () => ({
    metadata: {
      annotations: {
        [ANNOTATION.bootstrapping]: null,
        [ANNOTATION.startedAt]: null,
        [ANNOTATION.operation]: null,
        [ANNOTATION.phase]: null,
        [ANNOTATION.readiness]: 'ready',
      },
    },
  }));
}

async function completeWhenReady(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  const deadline = Date.now() + ctx.config.readyTimeoutSeconds * 1000;
  const state = readState(cr);
  const supervisorRef = { apiVersion: 'v1', kind: 'Pod', namespace: state.namespace, name: sandboxObjectNames(state.id, state.crName).supervisorPod };
  for (;;) {
    const fresh = await ctx.kube.get(ctx.ref(cr));
    if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${cr.metadata!.name} disappeared while starting`);
    cr = fresh;
    const supervisor = await ctx.kube.get(supervisorRef);
    const supervisorReady = ((supervisor?.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True');
    if (readyToComplete(cr) && supervisorReady) return completeBootstrap(ctx, cr);
    const finished = condition(readState(cr), 'Finished');
    if (finished?.status === 'True') throw new DriverError('FAILED_PRECONDITION', `the workload Pod ended before the sandbox became Ready: ${finished.reason} ${finished.message ?? ''}`.trim());
    if (Date.now() > deadline) throw new DriverError('UNAVAILABLE', `timed out after ${ctx.config.readyTimeoutSeconds}s waiting for the sandbox to become Ready`);
    await sleep(ctx.config.pollIntervalMs * 2);
  }
}
