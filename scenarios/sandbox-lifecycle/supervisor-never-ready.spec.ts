import { expect, isSuspendedInSpec, supervisorNeverConnects, test, type Sandbox } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

const STAGE = 'waiting for supervisor readiness';

/**
 * The stage deadline a driver the harness starts gets here (the lanes' default is the driver's,
 * 30 s): the test waits it out twice, and what it checks — the stage named, nothing left
 * half-started — does not depend on its length.
 */
test.use({ driverSettings: { supervisorReadySeconds: 1 } });

/**
 * OpenShell#3566: a supervisor that never becomes ready (here: the workload's boundary refuses its
 * connection check, REFUSE_SUPERVISOR, while the workload itself is Ready) must make create and
 * start fail within that stage's own deadline, with an error naming the stage — never a generic
 * timeout of the whole call — and leave nothing half-started: the supervisor and workload Pods
 * gone, the generation Secrets gone, the Sandbox suspended.
 */
test('supervisor-never-ready: create and start fail naming the stage "waiting for supervisor readiness", leaving nothing half-started', async ({ sandboxes, driverControl, cluster, timeline, sandboxApiVersion }) => {
  const driver = await driverControl.current();
  const failure = (error: Error & { code?: string }) => error;

  const created = await timeline.step('create', () => sandboxes.create({ name: 'neverready', command: RECORDING_MAIN_COMMAND, environment: supervisorNeverConnects() })).then(() => undefined, failure);
  expect(created?.message, 'the create fails naming its stage').toContain(STAGE);
  expect(created?.code, 'the driver\'s stage deadline, not the call\'s own deadline').not.toBe('DEADLINE_EXCEEDED');
  const [sandbox] = await driver.list().then((all) => all.filter((s) => s.name === 'neverready' && sandboxes.ids.includes(s.id)));
  expect(sandbox, 'the failed create left its sandbox to inspect').toBeDefined();
  await nothingHalfStarted(sandbox!);

  const started = await timeline.step('start', () => driver.start(sandbox!.id)).then(() => undefined, failure);
  expect(started?.message, 'the start fails naming its stage').toContain(STAGE);
  expect(started?.code).not.toBe('DEADLINE_EXCEEDED');
  await nothingHalfStarted(sandbox!);

  async function nothingHalfStarted(s: Sandbox) {
    await timeline.step('nothing is left half-started', async () => {
      await expect.poll(async () => (await driver.get(s.id)).phase, { message: 'the rolled-back sandbox shows Stopped', timeout: 60_000 }).toBe('Stopped');
      const objects = await cluster.objects(s);
      expect({ supervisorPod: objects.supervisorPod, workloadPod: objects.workloadPod, secrets: objects.secrets }, 'no Pod or generation Secret of the failed generation remains').toEqual({ supervisorPod: undefined, workloadPod: undefined, secrets: [] });
      const cr = await cluster.get(sandboxApiVersion, 'Sandbox', objects.namespace, objects.sandbox!);
      expect(isSuspendedInSpec(sandboxApiVersion, cr?.spec), 'the Sandbox is suspended').toBe(true);
    });
  }
});
