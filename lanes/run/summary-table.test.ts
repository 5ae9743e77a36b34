import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { readOutcomes, summaryTable } from './summary-table.ts';

/** A Playwright JSON report as the json reporter writes it, cut to what the summary reads. */
const report = {
  suites: [
    {
      title: 'sandbox-lifecycle/stop-ordering.spec.ts',
      file: 'sandbox-lifecycle/stop-ordering.spec.ts',
      specs: [
        { title: 'stop-ordering: the order', tests: [{ status: 'unexpected', results: [{ status: 'failed', errors: [{ message: 'FAIL stop/b-rule: ...\n\nFAIL stop/a-rule: ...' }] }] }] },
        { title: 'needs faults', tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: 'lane x lacks fault-injection' }], results: [{ status: 'skipped' }] }] },
        { title: 'plain failure', tests: [{ status: 'unexpected', results: [{ status: 'failed', error: { message: '\u001b[31mexpected 1 to be 2\u001b[39m\nmore' } }] }] },
        { title: 'fine', tests: [{ status: 'expected', results: [{ status: 'passed' }] }] },
      ],
    },
  ],
};

test('outcomes name the registered invariants a failure mentions, the skip reason, or the first line', () => {
  const path = test.info().outputPath('results.json');
  writeFileSync(path, JSON.stringify(report));
  const outcomes = readOutcomes(path, ['stop/a-rule', 'stop/b-rule', 'stop/c-rule']);
  expect(outcomes).toEqual([
    { scenario: 'sandbox-lifecycle/stop-ordering › stop-ordering: the order', status: 'failed', detail: 'stop/a-rule, stop/b-rule' },
    { scenario: 'sandbox-lifecycle/stop-ordering › needs faults', status: 'skipped', detail: 'lane x lacks fault-injection' },
    { scenario: 'sandbox-lifecycle/stop-ordering › plain failure', status: 'failed', detail: 'expected 1 to be 2' },
    { scenario: 'sandbox-lifecycle/stop-ordering › fine', status: 'passed', detail: undefined },
  ]);
  expect(readOutcomes(test.info().outputPath('missing.json'), [])).toEqual([]);
  expect(summaryTable(new Map([['lane-a', outcomes]])).split('\n').slice(0, 3)).toEqual([
    '| scenario | lane-a |',
    '|---|---|',
    '| sandbox-lifecycle/stop-ordering › fine | pass |',
  ]);
});
