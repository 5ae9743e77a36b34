import { expect, faultSchedule, test, workloadStopTakes } from '../../fixtures/conformance.ts';

/**
 * A main command that ignores SIGTERM, SIGKILLed by the workload 6 s later: the workload Pod is
 * still terminating when the fresh driver's stop begins (inside its 10 s grace).
 */
const SLOW_TO_STOP_MAIN_COMMAND = ['sh', '-c', 'trap "" TERM; exec sleep 100000'];
const MAIN_STOP_MS = 6_000;

/**
 * Sieve's intermediate state, on the stop path: the driver is SIGKILLed (in process: halted)
 * right after the API server answered the write that turns the Sandbox's spec suspended — the
 * write landed, the driver never saw the answer — and started afresh, as its Deployment would.
 * The stop that was running fails as its connection drops; a stop on the fresh driver must
 * finish it in order from what the Sandbox records: wait until the workload Pod is gone and
 * the Sandbox reports suspended, then clean up. A driver that takes the recorded phase for the
 * stop having got that far (`--driver resume-skips-wait`) returns while the workload Pod still
 * stops, and fails here naming stop/returns-after-workload-gone-and-suspended.
 */
test.use({
  faultSchedule: faultSchedule(
    [
      {
        id: 'crash-after-suspension',
        trigger: { on: 'request', match: { object: { role: 'sandbox' }, suspends: true }, at: 'answered' },
        fault: { kind: 'crash' },
      },
    ],
    'the driver killed right after its suspension write landed',
  ),
});

test('crash-after-suspension-write: killed right after its suspension write lands, a fresh driver finishes the stop in order', { tag: ['@faults', '@restart'] }, async ({ sandboxes, driver, driverControl, timeline, schedule }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'crashsusp', command: SLOW_TO_STOP_MAIN_COMMAND, environment: workloadStopTakes(MAIN_STOP_MS) }));
  // Not a step named after the call: the call is cut short by the crash, and the stop/ rules judge the call that returns.
  const cut = await timeline.step('the driver is killed right after its suspension write lands', () => driver.stop(sandbox.id)).then(
    () => undefined,
    (error: Error & { code?: string }) => error,
  );
  test.skip(!schedule.hasFired('crash-after-suspension'), 'the driver never wrote the suspension with an update or a merge patch the proxy could read (a JSON patch, say), so the crash never came: nothing was judged under it');
  // The replica killed is the one whose write fired the fault. With several replicas that may be
  // another than the one serving the call (resuming the recorded stop beside it): then the call
  // may finish on its own replica, and the rules still judge both stops in order.
  const served = driverControl.routes().filter((r) => r.operation === 'stop').at(-1)?.replica;
  const crash = timeline.snapshot().entries.flatMap((e) => (e.kind === 'fault' && e.item === 'crash-after-suspension' && e.status === 'fired' ? [e] : []))[0];
  const killed = /replica (\d+) SIGKILLed/.exec(crash?.detail ?? '')?.[1];
  if (driverControl.replicas === 1 || killed === undefined || Number(killed) === served) {
    expect(cut, `the call on the killed driver (replica ${killed ?? '?'}, the call's ${served ?? '?'}) cannot have finished`).toBeInstanceOf(Error);
  }
  const stopped = await timeline.step('stop again on the fresh driver', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
  // Every stop/ rule judges both stops at the test's end, as every rule judges every test.
});
