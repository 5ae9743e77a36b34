import { expect, test } from '@playwright/test';
import { benchJson, figureRows, ISSUE_FIGURES, renderFiguresTable, type FigureSpec, type Measurement } from './figures-table.ts';

const SPECS: FigureSpec[] = [
  { id: 'one-lane', figure: 'one lane, wall', target: '<= 10 s', ratioOf: 'lane wall / longest scenario' },
  { id: 'list', figure: 'list 10k', target: '<= 100 ms', ratioOf: 'list / JSON.stringify' },
  { id: 'scale', figure: '100 sandboxes', target: '<= 60 s' },
];

const MEASURED: Measurement[] = [
  { id: 'one-lane', measured: '8.2 s', values: { seconds: 8.2, longestScenarioSeconds: 6.5 }, ratio: 8.2 / 6.5, pass: true, note: 'longest scenario 6.5 s' },
  { id: 'list', measured: '140 ms', values: { medianMs: 140 }, ratio: 2.5, pass: false },
];

test('one row per declared figure, in order: PASS, MISSED, and "not measured" for a figure no benchmark gave', () => {
  const rows = figureRows(SPECS, MEASURED);
  expect(rows.map((r) => [r.id, r.result])).toEqual([
    ['one-lane', 'PASS'],
    ['list', 'MISSED'],
    ['scale', 'not measured'],
  ]);
  const table = renderFiguresTable(rows).split('\n');
  expect(table[0]).toMatch(/^Figure\s+Measured\s+Target\s+Ratio\s+Result$/);
  expect(table[2]).toMatch(/^one lane, wall\s+8\.2 s\s+<= 10 s\s+1\.26 \(lane wall \/ longest scenario\)\s+PASS \(longest scenario 6\.5 s\)$/);
  expect(table[3]).toMatch(/^list 10k\s+140 ms\s+<= 100 ms\s+2\.50 \(list \/ JSON\.stringify\)\s+MISSED$/);
  expect(table[4]).toMatch(/^100 sandboxes\s+-\s+<= 60 s\s+not measured$/);
});

test('bench.json: date, machine, every figure with its values, ratio and result; the missed and unmeasured by id', () => {
  const machine = { node: 'v20.0.0', cores: 2, cpuModel: 'cpu', platform: 'linux/x64', loadAverage: { atStart: 0.5, atEnd: 1.5 } };
  const json = benchJson(figureRows(SPECS, MEASURED), { date: '2026-01-01T00:00:00.000Z', quick: false, machine });
  expect(json).toEqual({
    date: '2026-01-01T00:00:00.000Z',
    quick: false,
    machine,
    figures: [
      { id: 'one-lane', figure: 'one lane, wall', target: '<= 10 s', result: 'PASS', measured: '8.2 s', values: { seconds: 8.2, longestScenarioSeconds: 6.5 }, ratio: { value: 8.2 / 6.5, of: 'lane wall / longest scenario' }, note: 'longest scenario 6.5 s' },
      { id: 'list', figure: 'list 10k', target: '<= 100 ms', result: 'MISSED', measured: '140 ms', values: { medianMs: 140 }, ratio: { value: 2.5, of: 'list / JSON.stringify' }, note: null },
      { id: 'scale', figure: '100 sandboxes', target: '<= 60 s', result: 'not measured', measured: null, values: null, ratio: null, note: null },
    ],
    missed: ['list'],
    notMeasured: ['scale'],
  });
  // Machine-readable: it survives a JSON round trip unchanged.
  expect(JSON.parse(JSON.stringify(json))).toEqual(json);
});

test('a measurement for a figure nobody declared is refused, naming it', () => {
  expect(() => figureRows(SPECS, [{ id: 'typo', measured: '1', values: {}, pass: true }])).toThrow('measurements for undeclared figures: typo (declare them in ISSUE_FIGURES)');
});

test("issues 15's and 25's figures are all declared", () => {
  expect(ISSUE_FIGURES.map((f) => f.id)).toEqual(['one-lane', 'all-lanes', 'lane-cpu', 'lane-wall', 'npm-test', 'driver-scale', 'list-10k', 'stop-p95', 'cluster-start', 'create-conflicts']);
  expect(figureRows(ISSUE_FIGURES, []).every((r) => r.result === 'not measured')).toBe(true);
});
