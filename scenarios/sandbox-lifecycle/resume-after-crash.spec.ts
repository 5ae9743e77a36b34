import { ANNOTATION, expect, supervisorCleanupTakes, test, type Cluster, type Sandbox } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/** How long the supervisor's clean-up takes in the `releasing` case: the phase lasts at least that long. */
const SLOW_CLEANUP_MS = 4_000;

const phaseOf = (cr: { metadata?: { annotations?: Record<string, string> } } | undefined) => cr?.metadata?.annotations?.[ANNOTATION.phase];

async function bootstrapPhase(cluster: Cluster, apiVersion: string, sandbox: Sandbox, crName: string): Promise<string | undefined> {
  return phaseOf(await cluster.get(apiVersion, 'Sandbox', sandbox.namespace, crName));
}

/**
 * The driver dies in the middle of a stop; a fresh one (external: a new process after SIGKILL;
 * in-process: a new instance after the old one is abandoned) finishes it from the persisted
 * phase, and the order never reverses (the stop/ rules, which judge every test at its end). Each phase is held open with what any cluster has:
 * `releasing` by a supervisor whose clean-up through the boundary takes a few seconds (the
 * fixture programs, set through the sandbox's environment); `suspending` by an admission policy
 * refusing the write that would end it (the stop's completion) until the crash has happened.
 * The phase is watched for, so however briefly it lasted, the crash lands inside it.
 */
for (const phase of ['releasing', 'suspending'] as const) {
  test(`resume-after-crash: a stop interrupted while ${phase} is finished by a fresh driver`, { tag: '@restart' }, async ({ sandboxes, driver, driverControl, cluster, timeline, faults, sandboxApiVersion }) => {
    const sandbox = await timeline.step('create', () =>
      sandboxes.create({ name: `crash-${phase}`, command: RECORDING_MAIN_COMMAND, environment: phase === 'releasing' ? supervisorCleanupTakes(SLOW_CLEANUP_MS) : undefined }),
    );
    const objects = await cluster.objects(sandbox);
    const held =
      phase === 'suspending'
        ? await timeline.step('hold the phase "suspending": refuse the write that completes it', () =>
            faults.deny({
              operations: ['UPDATE'],
              group: 'agents.x-k8s.io',
              resource: 'sandboxes',
              namespace: sandbox.namespace,
              names: [objects.sandbox!],
              user: faults.driverUser,
              when: `has(oldObject.metadata.annotations) && ${JSON.stringify(ANNOTATION.phase)} in oldObject.metadata.annotations && oldObject.metadata.annotations[${JSON.stringify(ANNOTATION.phase)}] == "suspending" && !(has(object.metadata.annotations) && ${JSON.stringify(ANNOTATION.phase)} in object.metadata.annotations)`,
              message: `completing the stop of sandbox ${sandbox.id} is held while the driver crashes`,
            }),
          )
        : undefined;
    await timeline.step(`watch for the persisted phase "${phase}", then crash the driver`, async () => {
      await cluster.waitFor({ apiVersion: sandboxApiVersion, kind: 'Sandbox', namespace: sandbox.namespace, name: objects.sandbox! }, (cr) => phaseOf(cr) === phase, {
        what: `the stop should reach phase ${phase}`,
        describe: (cr) => (cr ? `phase ${phaseOf(cr) ?? '(none)'}` : 'no Sandbox'),
        // The stop starts once the watch is open: however briefly the phase lasts, it is seen.
        cause: () => void driver.stop(sandbox.id).catch(() => undefined),
      });
      await driverControl.crash();
    });
    if (held) await timeline.step('let the completing write through again', () => held.remove());
    const fresh = await timeline.step('a fresh driver stops the sandbox again', () => driverControl.restart());
    const stopped = await timeline.step('resumed stop', () => fresh.stop(sandbox.id));
    expect(stopped.phase).toBe('Stopped');
    expect(await bootstrapPhase(cluster, sandboxApiVersion, sandbox, objects.sandbox!)).toBeUndefined();
  });
}
