/**
 * `npm run bench` with no name: the benchmarks that give issues 15's and 25's figures, one after
 * the other (lanes first: wall times suffer most from anything else running; `npm test` last,
 * the longest), then ONE table of every
 * declared figure (figures-table.ts) and reports/bench.json. A missed target is MISSED, exit 0;
 * a benchmark that cannot run leaves its figures "not measured", says why, and the exit is 1.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { progressLog, type BenchOptions } from './common.ts';
import { benchJson, figureRows, ISSUE_FIGURES, renderFiguresTable, type Measurement } from './figures-table.ts';

interface FigureSource {
  /** The benchmark's name, as in progress lines. */
  name: string;
  measure(options: BenchOptions, progress: (line: string) => void): Promise<Measurement[]>;
}

/** Each benchmark that gives figures: one entry (its figures declared in ISSUE_FIGURES). */
const FIGURE_SOURCES: readonly FigureSource[] = [
  { name: 'lanes', measure: async (o, p) => (await import('./lanes.ts')).laneFigures(o, p) },
  { name: 'stop', measure: async (o, p) => (await import('./stop-latency.ts')).stopFigures(o, p) },
  { name: 'apiserver', measure: async (o, p) => (await import('./apiserver.ts')).apiserverFigures(o, p) },
  { name: 'driver-scale', measure: async (o, p) => (await import('./driver-scale.ts')).driverScaleFigures(o, p) },
  { name: 'tests', measure: async (o, p) => (await import('./test-suite.ts')).testSuiteFigures(o, p) },
];

/** Resolves to the exit code: 0 when every benchmark ran (whatever its figures), 1 when one could not. */
export async function runIssueFigures(options: BenchOptions): Promise<number> {
  const loadAtStart = loadavg()[0];
  const measurements: Measurement[] = [];
  const broken: string[] = [];
  for (const source of FIGURE_SOURCES) {
    const progress = progressLog(source.name);
    try {
      measurements.push(...(await source.measure(options, progress)));
    } catch (error) {
      progress(`could not run: ${(error as Error).stack ?? String(error)}`);
      broken.push(`${source.name}: ${(error as Error).message}`);
    }
  }
  const rows = figureRows(ISSUE_FIGURES, measurements);
  const list = cpus();
  const machine = { node: process.version, cores: availableParallelism(), cpuModel: list[0]?.model, platform: `${process.platform}/${process.arch}`, loadAverage: { atStart: loadAtStart, atEnd: loadavg()[0] } };
  process.stdout.write(`\nIssue 15 and 25 figures${options.quick ? ' (QUICK: small sizes, not comparable with the targets)' : ''} — ${machine.cores} x ${machine.cpuModel}, Node ${machine.node}, load average ${loadAtStart.toFixed(1)} -> ${machine.loadAverage.atEnd.toFixed(1)}\n\n`);
  process.stdout.write(renderFiguresTable(rows));
  const file = resolve('reports/bench.json');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(benchJson(rows, { date: new Date().toISOString(), quick: options.quick, machine }), null, 2)}\n`);
  process.stdout.write(`\nFigures written to ${relative(process.cwd(), file)}\n`);
  if (broken.length) process.stderr.write(`error: ${broken.length} benchmark(s) could not run: ${broken.join('; ')}\n`);
  return broken.length ? 1 : 0;
}
