/**
 * The project's speed figures (issues 15 and 25) as one table: each figure, what was measured, its target, a ratio against
 * a baseline measured in the same run where one is meaningful, and PASS / MISSED (or "not
 * measured" while no benchmark gives it). Pure: figures in, table text and bench.json out, so
 * its shape is tested over figures given as data (figures-table.test.ts).
 */

/** A figure the issue asks for: declared here once; a benchmark that measures it returns a Measurement with its id. */
export interface FigureSpec {
  id: string;
  figure: string;
  /** Human form of the target. */
  target: string;
  /** What the ratio divides by what, when a ratio is meaningful. */
  ratioOf?: string;
}

/** One benchmark's result for one figure. */
export interface Measurement {
  id: string;
  /** Human form: `8.3 s`, `64 ms`, `1.04`, `41 s; 180 MiB`. */
  measured: string;
  /** The figures themselves, for bench.json (`{ seconds: 8.3 }`, `{ p95: 1.04 }`). */
  values: Record<string, number>;
  ratio?: number;
  /** The target was met. */
  pass: boolean;
  /** Said next to the result: a failed lane, a quick run, the baseline's own figure. */
  note?: string;
}

export const ISSUE_FIGURES: readonly FigureSpec[] = [
  { id: 'one-lane', figure: 'one lane (v1beta1), wall', target: '<= 10 s', ratioOf: 'lane wall / longest scenario in it' },
  { id: 'all-lanes', figure: 'every lane (npm run lanes, 6 lanes), wall', target: '<= 30 s', ratioOf: 'all-lanes wall / slowest lane in it' },
  { id: 'lane-cpu', figure: 'one lane (v1beta1), CPU time of its whole process tree (issue 25)', target: '<= 25 s', ratioOf: 'lane CPU / lane wall: cores busy' },
  { id: 'lane-wall', figure: 'one lane (v1beta1), wall (issue 25)', target: '<= 25 s', ratioOf: 'lane wall / longest scenario in it' },
  { id: 'npm-test', figure: 'npm test as CI runs it, wall (issue 25)', target: '<= 8 min', ratioOf: "wall / (workers' CPU / cores): 1 when bound by CPU alone" },
  { id: 'driver-scale', figure: '100 sandboxes create -> stop -> start -> delete through the wire; driver RSS (issues 15, 25)', target: '<= 60 s; <= 200 MiB' },
  { id: 'list-10k', figure: 'list 10k Pods, median', target: '<= 100 ms', ratioOf: 'list / bare JSON.stringify of the same objects' },
  { id: 'stop-p95', figure: 'stop / its lower bound, p95 over 20 stops', target: '<= 1.1', ratioOf: 'the figure is the ratio (stop / supervisor termination + the controller\'s suspension + workload termination)' },
  { id: 'cluster-start', figure: 'embedded cluster start, first in a fresh process', target: '<= 1 s', ratioOf: 'start / a bare https server start' },
  { id: 'create-conflicts', figure: "create: the driver's 409 retries per create (10 at once)", target: '0 avoidable (running patch, Pod UIDs)' },
];

export type Result = 'PASS' | 'MISSED' | 'not measured';

export interface FigureRow extends FigureSpec {
  measurement?: Measurement;
  result: Result;
}

/** The declared figures with what was measured; a measurement for an undeclared figure is an error (a typo would vanish). */
export function figureRows(specs: readonly FigureSpec[], measurements: readonly Measurement[]): FigureRow[] {
  const known = new Set(specs.map((s) => s.id));
  const stray = measurements.filter((m) => !known.has(m.id)).map((m) => m.id);
  if (stray.length) throw new Error(`measurements for undeclared figures: ${stray.join(', ')} (declare them in ISSUE_FIGURES)`);
  return specs.map((spec) => {
    const measurement = measurements.find((m) => m.id === spec.id);
    return { ...spec, measurement, result: !measurement ? 'not measured' : measurement.pass ? 'PASS' : 'MISSED' };
  });
}

export function renderFiguresTable(rows: readonly FigureRow[]): string {
  const head = ['Figure', 'Measured', 'Target', 'Ratio', 'Result'];
  const cells = rows.map((r) => [
    r.figure,
    r.measurement?.measured ?? '-',
    r.target,
    r.measurement?.ratio === undefined ? '' : `${r.measurement.ratio.toFixed(2)} (${r.ratioOf})`,
    `${r.result}${r.measurement?.note ? ` (${r.measurement.note})` : ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}

export interface BenchMachine {
  node: string;
  cores: number;
  cpuModel?: string;
  platform: string;
  /** 1-minute load average at start and end: other work on the machine skews every figure. */
  loadAverage: { atStart: number; atEnd: number };
}

/** reports/bench.json: the machine, the date and every declared figure, measured or not. */
export function benchJson(rows: readonly FigureRow[], context: { date: string; quick: boolean; machine: BenchMachine }) {
  return {
    date: context.date,
    quick: context.quick,
    machine: context.machine,
    figures: rows.map((r) => ({
      id: r.id,
      figure: r.figure,
      target: r.target,
      result: r.result,
      measured: r.measurement?.measured ?? null,
      values: r.measurement?.values ?? null,
      ratio: r.measurement?.ratio === undefined ? null : { value: r.measurement.ratio, of: r.ratioOf },
      note: r.measurement?.note ?? null,
    })),
    missed: rows.filter((r) => r.result === 'MISSED').map((r) => r.id),
    notMeasured: rows.filter((r) => r.result === 'not measured').map((r) => r.id),
  };
}
