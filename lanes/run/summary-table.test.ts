import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { invariantRates, readOutcomes, summaryTable } from './summary-table.ts';

/** A Playwright JSON report as the json reporter writes it, cut to what the summary reads. */
const report = {
  suites: [
    {
      title: 'sandbox-lifecycle/stop-ordering.spec.ts',
      file: 'sandbox-lifecycle/stop-ordering.spec.ts',
      specs: [
        { title: 'stop-ordering: the order', tests: [{ status: 'unexpected', results: [{ status: 'failed', errors: [{ message: 'FAIL stop/b-rule: ...\n\nFAIL stop/a-rule: ...' }] }] }] },
        { title: 'needs faults', tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: 'lane x lacks fault-injection' }], results: [{ status: 'skipped' }] }] },
        { title: 'failed and inconclusive', tests: [{ status: 'unexpected', results: [{ status: 'failed', errors: [{ message: 'Error: the order\n\nINCONCLUSIVE stop/c-rule: a watch gap\n\nFAIL stop/a-rule: ...' }] }] }] },
        { title: 'a count of its own', tests: [{ status: 'unexpected', results: [{ status: 'failed', errors: [{ message: 'Error: FAIL count/supervisor Pod created during "stop again": supervisor Pod created happens 0 time(s) during step "stop again"\n  violated: …' }] }] }] },
        { title: 'plain failure', tests: [{ status: 'unexpected', results: [{ status: 'failed', error: { message: '\u001b[31mexpected 1 to be 2\u001b[39m\nmore' } }] }] },
        { title: 'fine', tests: [{ status: 'expected', results: [{ status: 'passed' }] }] },
      ],
    },
  ],
};

test('outcomes name the registered invariants a failure mentions, a scenario assertion by its id, the skip reason, or the first line', () => {
  const path = test.info().outputPath('results.json');
  writeFileSync(path, JSON.stringify(report));
  const outcomes = readOutcomes(path, ['stop/a-rule', 'stop/b-rule', 'stop/c-rule']);
  expect(outcomes).toEqual([
    { scenario: 'sandbox-lifecycle/stop-ordering › stop-ordering: the order', status: 'failed', detail: 'stop/a-rule, stop/b-rule' },
    { scenario: 'sandbox-lifecycle/stop-ordering › needs faults', status: 'skipped', detail: 'lane x lacks fault-injection' },
    { scenario: 'sandbox-lifecycle/stop-ordering › failed and inconclusive', status: 'failed', detail: 'stop/a-rule; INCONCLUSIVE stop/c-rule' },
    { scenario: 'sandbox-lifecycle/stop-ordering › a count of its own', status: 'failed', detail: 'count/supervisor Pod created during "stop again"' },
    { scenario: 'sandbox-lifecycle/stop-ordering › plain failure', status: 'failed', detail: 'expected 1 to be 2' },
    { scenario: 'sandbox-lifecycle/stop-ordering › fine', status: 'passed', detail: undefined },
  ]);
  expect(readOutcomes(test.info().outputPath('missing.json'), [])).toEqual([]);
  expect(summaryTable(new Map([['lane-a', outcomes]])).split('\n').slice(0, 3)).toEqual([
    '| scenario | lane-a |',
    '|---|---|',
    '| sandbox-lifecycle/stop-ordering › a count of its own | FAIL (count/supervisor Pod created during "stop again") |',
  ]);
});

/** A test of the report with the verdicts.json attachment the timeline fixture gives it, inline as the json reporter writes it. */
const judged = (status: string, verdicts: { id: string; status: string; noEpisode?: boolean; expectedByTest?: boolean }[], repeatEachIndex: number) => ({
  status,
  repeatEachIndex,
  results: [{ status: status === 'expected' ? 'passed' : 'failed', errors: status === 'expected' ? [] : [{ message: 'FAIL stop/a-rule: ...' }], attachments: [{ name: 'verdicts.json', contentType: 'application/json', body: Buffer.from(JSON.stringify(verdicts)).toString('base64') }] }],
});

test('with --repeat-each, each invariant\'s violations / evaluations, INCONCLUSIVE and expected-by-the-test counts per lane, from the tests\' verdicts', () => {
  const v = (id: string, status: string, noEpisode?: boolean) => ({ id, title: id, source: 's', message: `${id}: m`, evidence: [], status, ...(noEpisode ? { noEpisode } : {}) });
  // A FAIL the scenario provoked and asserted with .not.toHold: no violation.
  const provoked = (id: string) => ({ ...v(id, 'FAIL'), expectedByTest: true });
  const repeated = {
    suites: [
      {
        title: 'sandbox-lifecycle/stop-ordering.spec.ts',
        file: 'sandbox-lifecycle/stop-ordering.spec.ts',
        specs: [
          {
            title: 'stop-ordering: the order',
            tests: [
              judged('expected', [v('stop/a-rule', 'PASS'), v('stop/b-rule', 'PASS'), v('delete/c-rule', 'INCONCLUSIVE', true), v('order/x before y', 'FAIL')], 0),
              judged('unexpected', [v('stop/a-rule', 'FAIL'), v('stop/b-rule', 'INCONCLUSIVE'), v('delete/c-rule', 'INCONCLUSIVE', true)], 1),
              judged('expected', [v('stop/a-rule', 'PASS'), v('stop/a-rule', 'PASS'), v('stop/b-rule', 'PASS'), v('delete/c-rule', 'INCONCLUSIVE', true)], 2),
              judged('expected', [v('stop/a-rule', 'PASS'), provoked('stop/b-rule'), v('delete/c-rule', 'INCONCLUSIVE', true)], 3),
            ],
          },
        ],
      },
    ],
  };
  const path = test.info().outputPath('results.json');
  writeFileSync(path, JSON.stringify(repeated));
  const outcomes = readOutcomes(path, ['stop/a-rule', 'stop/b-rule', 'delete/c-rule']);
  expect(outcomes.map((o) => o.status)).toEqual(['passed', 'failed', 'passed', 'passed']);
  // Scenario assertions (order/...) are not registered invariants: left out.
  expect(outcomes[0].verdicts?.map((x) => x.id)).toEqual(['stop/a-rule', 'stop/b-rule', 'delete/c-rule']);
  expect(invariantRates(outcomes)).toEqual([
    { id: 'stop/a-rule', violations: 1, evaluations: 5, inconclusive: 0, expected: 0 },
    { id: 'stop/b-rule', violations: 0, evaluations: 4, inconclusive: 1, expected: 1 },
    // Nothing of the family's kind in any test: no evaluation.
    { id: 'delete/c-rule', violations: 0, evaluations: 0, inconclusive: 0, expected: 0 },
  ]);
  expect(summaryTable(new Map([['lane-a', outcomes], ['lane-b', []]])).split('\n')).toEqual([
    '| scenario | lane-a | lane-b |',
    '|---|---|---|',
    '| sandbox-lifecycle/stop-ordering › stop-ordering: the order | FAIL ×1 (stop/a-rule), pass ×3 | — |',
    '',
    '| invariant: violations/evaluations (INCONCLUSIVE) | lane-a | lane-b |',
    '|---|---|---|',
    '| stop/a-rule | 1/5 | — |',
    '| stop/b-rule | 0/4 (1 INCONCLUSIVE, 1 expected by the test) | — |',
    '| delete/c-rule | — | — |',
  ]);
});

test('a report without verdicts (tests that ran without the timeline fixture) shows the scenario table alone', () => {
  const path = test.info().outputPath('results.json');
  writeFileSync(path, JSON.stringify(report));
  expect(summaryTable(new Map([['lane-a', readOutcomes(path, ['stop/a-rule'])]]))).not.toContain('invariant:');
});

test('a verdicts.json that is not JSON is an error naming the report', () => {
  const path = test.info().outputPath('results.json');
  const broken = { suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [{ title: 't', tests: [{ status: 'expected', results: [{ status: 'passed', attachments: [{ name: 'verdicts.json', body: Buffer.from('{nope').toString('base64') }] }] }] }] }] };
  writeFileSync(path, JSON.stringify(broken));
  expect(() => readOutcomes(path, [])).toThrow(`${path}: cannot read the verdicts.json attachment`);
});
