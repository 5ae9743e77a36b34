import { test } from '../../fixtures/conformance.ts';
import { readBatch } from './batch-file.ts';
import { runProgram } from './run-program.ts';
import { OUTCOME_ATTACHMENT } from './run-outcome.ts';

/**
 * The runs of one exploration batch, one test each, under the lane's fixtures as every scenario
 * runs: the run's fault schedule over its body, the timeline recorded, every invariant family
 * judging it at its end. The program's own checks (the lifecycle model, liveness, convergence)
 * are attached as explore-outcome.json and fail the test too; the search reads both back.
 */
for (const run of readBatch().runs) {
  test.describe(run.id, () => {
    if (run.schedule) test.use({ faultSchedule: run.schedule });
    test(run.id, async ({ sandboxes, driverControl, timeline, schedule }, testInfo) => {
      const outcome = await runProgram(run.program, { sandboxes, driverControl, timeline, schedule });
      await testInfo.attach(OUTCOME_ATTACHMENT, { body: JSON.stringify(outcome), contentType: 'application/json' });
      if (outcome.findings.length) throw new Error(outcome.findings.map((f) => `${f.id}: ${f.message}`).join('\n'));
    });
  });
}
