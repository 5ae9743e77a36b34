import { ANNOTATION, expect, invariantsIn, test, type Cluster, type DriverSandbox, type TestTimeline } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

async function bootstrapPhase(cluster: Cluster, apiVersion: string, sandbox: DriverSandbox): Promise<string | undefined> {
  const cr = await cluster.get(apiVersion, 'Sandbox', sandbox.namespace, sandbox.objects.sandbox);
  return cr?.metadata?.annotations?.[ANNOTATION.phase];
}

async function expectOrderHeld(timeline: TestTimeline) {
  for (const invariant of invariantsIn('stop/').filter((i) => i.id !== 'stop/supervisor-gone-within-deadline')) {
    await expect.soft(timeline, invariant.title).toHold(invariant.id);
  }
}

/**
 * The driver dies in the middle of a stop; a fresh one (external: a new process after SIGKILL;
 * in-process: a new instance after the old one is abandoned) finishes it from the persisted
 * phase, and the order never reverses.
 */
for (const phase of ['releasing', 'suspending'] as const) {
  test(`resume-after-crash: a stop interrupted while ${phase} is finished by a fresh driver`, async ({ sandboxes, driver, driverControl, cluster, timeline, handle, sandboxApiVersion }) => {
    const sandbox = await timeline.step('create', () => sandboxes.create({ name: `crash-${phase}`, command: RECORDING_MAIN_COMMAND }));
    void driver.stop(sandbox.id).catch(() => undefined);
    await timeline.step(`wait for the persisted phase "${phase}", then crash the driver`, async () => {
      await expect.poll(() => bootstrapPhase(cluster, sandboxApiVersion, sandbox), { intervals: [50], timeout: 60_000, message: `the stop should reach phase ${phase} (cluster ${handle.provider})` }).toBe(phase);
      await driverControl.crash();
    });
    const fresh = await timeline.step('a fresh driver stops the sandbox again', () => driverControl.restart());
    const stopped = await timeline.step('resumed stop', () => fresh.stop(sandbox.id));
    expect(stopped.phase).toBe('Stopped');
    expect(await bootstrapPhase(cluster, sandboxApiVersion, sandbox)).toBeUndefined();
    await expectOrderHeld(timeline);
  });
}
