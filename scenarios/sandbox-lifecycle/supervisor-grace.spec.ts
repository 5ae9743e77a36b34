import { expect, holds, test } from '../../fixtures/conformance.ts';
import { RECORDING_MAIN_COMMAND } from './main-command.ts';

test('supervisor-grace: an explicit supervisor grace is rendered on the Pod and bounds its deletion', async ({ sandboxes, driver, cluster, timeline }) => {
  const grace = 7;
  const sandbox = await timeline.step(`create with supervisor grace ${grace} s`, () => sandboxes.create({ name: 'grace', command: RECORDING_MAIN_COMMAND, supervisorGraceSeconds: grace }));
  const pod = await cluster.get('v1', 'Pod', sandbox.namespace, (await cluster.objects(sandbox)).supervisorPod!);
  expect(pod?.spec?.terminationGracePeriodSeconds, 'rendered explicitly on the supervisor Pod').toBe(grace);

  await timeline.step('stop', () => driver.stop(sandbox.id));
  await expect(timeline).toHold('stop/supervisor-gone-within-deadline');
  const [verdict] = await timeline.judge(holds('stop/supervisor-gone-within-deadline'));
  expect(verdict?.message, 'the deadline is the rendered grace plus API headroom').toContain(`grace ${grace} s + headroom ${timeline.settings.apiHeadroomSeconds} s`);
});
