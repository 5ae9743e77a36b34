import { ANNOTATION, expect, supervisorCleanupTakes, test, type Cluster, type Sandbox } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/** How long the supervisor's clean-up takes in the `releasing` case: the phase lasts at least that long. */
const SLOW_CLEANUP_MS = 4_000;

const phaseOf = (cr: { metadata?: { annotations?: Record<string, string> } } | undefined) => cr?.metadata?.annotations?.[ANNOTATION.phase];

async function stopPhase(cluster: Cluster, apiVersion: string, sandbox: Sandbox, crName: string): Promise<string | undefined> {
  return phaseOf(await cluster.get(apiVersion, 'Sandbox', sandbox.namespace, crName));
}

/**
 * Two replicas of the driver on one cluster (the ha lane): the replica that runs a stop is
 * SIGKILLed in the middle of it while the other keeps reconciling every second. The survivor
 * must finish the stop from the persisted phase in order (supervisor gone, exit 0, before the
 * suspension: the stop/ rules, which judge every test at its end), the harness's call on the dead replica must fail as its connection drops rather
 * than wait out its deadline, and the gateway's next stop — now routed to the survivor — must
 * return Stopped. The stop goes wherever the test's seeded routing sends it; that replica is
 * killed. Each phase is held open with what any cluster has: `releasing` by a supervisor whose
 * clean-up through the boundary takes a few seconds (the fixture programs, set through the
 * sandbox's environment); `suspending` by an admission policy refusing the workload Pod's
 * deletion, so the stop waits for the Pod to go (its call still running) until the kill has
 * happened. The phase is watched for, so however briefly it lasted, the kill lands inside it.
 */
for (const phase of ['releasing', 'suspending'] as const) {
  test(`replica-killed-mid-stop: the replica running a stop is killed while ${phase}; the other replica finishes it in order`, { tag: ['@replicas', '@restart'] }, async ({ sandboxes, driver, driverControl, cluster, timeline, faults, sandboxApiVersion }) => {
    driverControl.requireReplicas(2);
    const lastStop = () => driverControl.routes().filter((r) => r.operation === 'stop').at(-1);
    const sandbox = await timeline.step('create', () =>
      sandboxes.create({ name: `kill-${phase}`, command: RECORDING_MAIN_COMMAND, environment: phase === 'releasing' ? supervisorCleanupTakes(SLOW_CLEANUP_MS) : undefined }),
    );
    const objects = await cluster.objects(sandbox);
    const held =
      phase === 'suspending'
        ? await timeline.step('hold the phase "suspending": refuse the workload Pod\'s deletion', () =>
            faults.deny({
              operations: ['DELETE'],
              group: '',
              resource: 'pods',
              namespace: sandbox.namespace,
              names: [objects.workloadPod!],
              message: `the workload Pod of sandbox ${sandbox.id} is held while the replica running its stop is killed`,
            }),
          )
        : undefined;

    // Sent where the test's routing seed sends it, once the watch for its phase is open (however
    // briefly the phase lasts, it is seen); the route is known as the call is sent.
    let pending: Promise<(Error & { code?: string }) | undefined> | undefined;
    const send = () => {
      pending = driver.stop(sandbox.id).then(
        () => undefined,
        (error: Error & { code?: string }) => error,
      );
    };
    const killed = await timeline.step(`watch for the persisted phase "${phase}", then SIGKILL the replica the call went to`, async () => {
      await cluster.waitFor({ apiVersion: sandboxApiVersion, kind: 'Sandbox', namespace: sandbox.namespace, name: objects.sandbox! }, (cr) => phaseOf(cr) === phase, {
        what: `the stop should reach phase ${phase}`,
        describe: (cr) => (cr ? `phase ${phaseOf(cr) ?? '(none)'}` : 'no Sandbox'),
        cause: send,
      });
      const route = lastStop();
      expect(route, 'the gateway routed the call').toBeDefined();
      await driverControl.crash({ replica: route!.replica });
      return route!.replica;
    });
    const survivor = killed === 0 ? 1 : 0;
    await timeline.step(`the call on replica ${killed} fails with its connection, not at its deadline`, async () => {
      const error = await pending!;
      expect(error, 'the call on the killed replica cannot have finished').toBeInstanceOf(Error);
      expect(error?.code, `the call failed with: ${error?.message}`).toBe('UNAVAILABLE');
    });
    if (held) await timeline.step("let the workload Pod's deletion through again", () => held.remove());

    const stopped = await timeline.step(`stop on the surviving replica ${survivor}`, () => driver.stop(sandbox.id));
    expect(lastStop(), 'the gateway sent the next stop to the survivor').toMatchObject({ operation: 'stop', replica: survivor });
    expect(stopped.phase).toBe('Stopped');
    expect(await stopPhase(cluster, sandboxApiVersion, sandbox, objects.sandbox!), 'the stop phase is cleared').toBeUndefined();
  });
}
