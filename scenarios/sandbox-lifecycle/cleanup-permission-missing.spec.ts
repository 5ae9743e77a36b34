import { cleanupFailures, expect, isSuspendedInSpec, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

/**
 * A driver whose role lacks a permission its clean-up needs (OpenShell#3363: a missing Secret
 * permission left sandboxes stuck). The stop must still finish in order — supervisor gone,
 * then the suspension (the stop/ rules, judged at the test's end) — and report the Secret failure on its own; once the permission is
 * back, a later stop cleans up with nothing to report.
 */
test('cleanup-permission-missing: without Secret delete a stop still suspends in order and reports CleanupFailed; restored, a later stop cleans up', async ({ driverAccess, driverControl, sandboxes, cluster, timeline, sandboxApiVersion }) => {
  await timeline.step("the driver's role lacks delete on Secrets", () => driverAccess.withhold({ group: '', resource: 'secrets', verb: 'delete' }));
  const driver = await driverControl.current();
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'noperm', command: RECORDING_MAIN_COMMAND }));
  const first = await cluster.objects(sandbox);

  const stopped = await timeline.step('stop without the permission', () => driver.stop(sandbox.id));
  expect(stopped.phase, 'the stop finishes although its Secret clean-up was refused').toBe('Stopped');
  const failures = cleanupFailures(stopped);
  expect(failures.length, 'the refused Secret deletion is reported on its own').toBeGreaterThan(0);
  expect(failures.map((c) => c.message).join('\n')).toContain(`User "${driverAccess.username}" cannot delete resource "secrets"`);
  await timeline.step('the workload is suspended and gone', async () => {
    const cr = await cluster.get(sandboxApiVersion, 'Sandbox', sandbox.namespace, first.sandbox!);
    expect(isSuspendedInSpec(sandboxApiVersion, cr?.spec), 'the Sandbox is suspended in its spec').toBe(true);
    expect(await cluster.get('v1', 'Pod', sandbox.namespace, first.workloadPod!)).toBeUndefined();
  });

  await timeline.step('the permission is restored', () => driverAccess.restore());
  const restarted = await timeline.step('start', () => driver.start(sandbox.id));
  expect(restarted.phase).toBe('Ready');
  const second = await cluster.objects(restarted);
  const again = await timeline.step('stop with the permission', () => driver.stop(sandbox.id));
  expect(again.phase).toBe('Stopped');
  expect(cleanupFailures(again), 'nothing left to report').toEqual([]);
  await timeline.step("both generations' Secrets are gone", async () => {
    for (const name of [...first.secrets, ...second.secrets]) {
      // The driver deletes the last generation's; the first one's went with the Pods that owned them.
      await expect.poll(async () => (await cluster.get('v1', 'Secret', sandbox.namespace, name)) === undefined, { message: `Secret ${sandbox.namespace}/${name} should be gone`, timeout: 30_000 }).toBe(true);
    }
  });
});
