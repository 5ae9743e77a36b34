import { DriverError } from '../compute-driver.ts';
import { ChangeSignal } from './change-signal.ts';
import { standing, type GenerationOperation } from './completion.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, type KubeObject } from './kube.ts';
import { ANNOTATION, BOOTSTRAP_GATE } from './names.ts';
import { renderSecrets } from './render.ts';
import { readState } from './sandbox-state.ts';
import { superseded, transition, type Decide } from './transition.ts';

/**
 * Installs a generation once the Sandbox runs: waits for the controller's workload Pod (owned by
 * this CR), records both Pod UIDs, creates the generation Secrets, removes the scheduling gates
 * (supervisor first), marks the phase `released` and returns the Sandbox: the generation is
 * installed. Its completion (completion.ts) is written later by whoever finds it Ready first: a
 * background completion of this driver or any replica's reconciliation. Shared by create and start.
 */
export async function installGeneration(ctx: DriverContext, cr: KubeObject, supervisor: KubeObject, boundaryAddress: string, operation: GenerationOperation): Promise<KubeObject> {
  const state = readState(cr);
  const generation = state.generation!;
  const workload = await waitForWorkloadPod(ctx, cr);
  // The controller writes the Sandbox's status as it creates the workload Pod, so the Sandbox
  // known before the wait is outdated now: decided from it, the next write would be a certain
  // 409 (then a read and a second write). Read it once instead.
  cr = await currentSandbox(ctx, cr, 'recording the Pod UIDs');
  const uids = { [ANNOTATION.workloadUid]: workload.metadata!.uid!, [ANNOTATION.supervisorUid]: supervisor.metadata!.uid! };
  cr = await transition(
    ctx,
    cr,
    'recording the Pod UIDs',
    preparing(ctx, generation, operation, (current) => {
      const annotations = current.metadata?.annotations ?? {};
      return Object.entries(uids).every(([key, uid]) => annotations[key] === uid) ? null : { metadata: { annotations: uids } };
    }),
  );
  ctx.call.enter('creating the generation Secrets');
  const who = { id: state.id, name: state.name, workspace: state.workspace, namespace: state.namespace, crName: state.crName };
  for (const secret of renderSecrets(ctx.config, who, generation, workload, supervisor, boundaryAddress)) {
    await ctx.kube.create(secret).catch((e) => Promise.reject(asDriverError(e, `creating Secret ${secret.metadata!.name}`)));
  }
  // Supervisor first: it must be connected to the boundary before the workload is released.
  ctx.call.enter('removing the scheduling gates');
  for (const pod of [supervisor, workload]) await removeBootstrapGate(ctx, state.namespace, pod);
  return transition(
    ctx,
    cr,
    'marking the generation released',
    preparing(ctx, generation, operation, (_current, s) => (s.phase === 'released' ? null : { metadata: { annotations: { [ANNOTATION.phase]: 'released' } } })),
  );
}

/**
 * Guards a transition of a generation being installed: it is written only while the Sandbox
 * still carries this generation's bootstrap (`preparing`, or already `released` for the release
 * itself); anything else means someone moved the sandbox on, and the call fails saying what.
 */
export function preparing(ctx: DriverContext, generation: string, operation: GenerationOperation, decide: Decide): Decide {
  return (current, state) => {
    const now = standing(current, generation, operation);
    if (now.kind === 'superseded') throw superseded(ctx, now.what);
    if (now.kind === 'completed') throw superseded(ctx, 'the generation was completed before it was released');
    return decide(current, state);
  };
}

/** The Sandbox as it stands now (same UID), to decide a transition from after others have written it. */
export async function currentSandbox(ctx: DriverContext, cr: KubeObject, stage: string): Promise<KubeObject> {
  const fresh = await ctx.kube.get(ctx.ref(cr)).catch((e) => Promise.reject(asDriverError(e, `${stage}: reading Sandbox ${cr.metadata!.name}`)));
  if (!fresh) throw new DriverError('NOT_FOUND', `sandbox not found: Sandbox ${cr.metadata!.name} was deleted while ${stage}`);
  if (fresh.metadata!.uid !== cr.metadata!.uid) throw superseded(ctx, `Sandbox ${cr.metadata!.name} was replaced (uid ${cr.metadata!.uid} is now ${fresh.metadata!.uid})`);
  return fresh;
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

/** Waits for the controller's gated workload Pod, owned by this Sandbox; wakes on watch events of it. */
async function waitForWorkloadPod(ctx: DriverContext, cr: KubeObject): Promise<KubeObject> {
  ctx.call.enter('waiting for the gated workload Pod');
  const deadline = Date.now() + ctx.config.workloadPodWaitSeconds * 1000;
  const initial = readState(cr);
  const changes = ChangeSignal.open(ctx.kube.watches, [{ path: `/api/v1/namespaces/${initial.namespace}/pods`, name: initial.workloadPod }]);
  try {
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
      await ctx.call.sleep(ctx.config.pollIntervalMs, changes);
    }
  } finally {
    changes.close();
  }
}
