/** What every benchmark shares: options, progress lines, the cluster, the result table, the JSON report. */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import type { AgentSandboxVersion } from '../cluster/embedded/agent-sandbox/install.ts';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../fixtures/programs/catalogue.ts';

export interface BenchOptions {
  /** Small sizes for a smoke run; the figures are then not comparable with the targets. */
  quick: boolean;
}

/** Progress goes to stderr with the elapsed time, so stdout holds only the result table. */
export function progressLog(name: string): (line: string) => void {
  const started = performance.now();
  return (line) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`[bench ${name} ${seconds}s] ${line}\n`);
  };
}

export interface Row {
  measure: string;
  value: string;
  /** Human form of the target, or '' when the figure is reported only. */
  target?: string;
  /** undefined: no target. */
  pass?: boolean;
}

export function renderTable(title: string, rows: Row[]): string {
  const cells = rows.map((r) => [r.measure, r.value, r.target ?? '', r.pass === undefined ? '' : r.pass ? 'PASS' : 'MISSED']);
  const head = ['Measure', 'Value', 'Target', 'Result'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((cell, i) => (i === 1 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [title, '', line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}

/** The embedded cluster in this process, its node running the fixture programs; Agent Sandbox when a version is given. */
export function startBenchCluster(agentSandbox?: AgentSandboxVersion): Promise<EmbeddedCluster> {
  return EmbeddedCluster.start({ node: { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE }, agentSandbox });
}

interface BenchReport {
  name: string;
  options: BenchOptions;
  /** Why a --quick run's figures do not compare with the targets, for the title. */
  quickNote: string;
  /** More of the title after the name, e.g. the sizes. */
  subtitle?: string;
  /** The load warning when the run began (busyWarning()). */
  busyAtStart?: string;
  rows: Row[];
  /** Printed under the table. */
  note?: string;
  /** The figures for the JSON report (sizes, targets, results, …). */
  figures: Record<string, unknown>;
}

/**
 * The end of every benchmark: the table (with a load warning when the machine was busy),
 * reports/bench/<name>.json with the figures and which targets were met, and the missed ones.
 */
export async function reportBenchmark(report: BenchReport): Promise<void> {
  const { name, options, rows } = report;
  const missed = rows.filter((r) => r.pass === false).map((r) => r.measure);
  const m = machine();
  const title = `${name} benchmark${options.quick ? ` (QUICK: ${report.quickNote})` : ''}${report.subtitle ? ` — ${report.subtitle}` : ''} — ${m.cpus} x ${m.cpuModel}, Node ${m.node}`;
  const busyAtEnd = busyWarning();
  process.stdout.write('\n' + renderTable(title, rows));
  if (report.note) process.stdout.write(`\n${report.note}\n`);
  if (report.busyAtStart || busyAtEnd) process.stdout.write(`\n${report.busyAtStart ?? busyAtEnd}\n`);
  const file = await writeReport(name, {
    benchmark: name,
    date: new Date().toISOString(),
    quick: options.quick,
    machine: m,
    loadAverage: { atStart: report.busyAtStart ?? 'ok', atEnd: busyAtEnd ?? 'ok' },
    ...report.figures,
    pass: Object.fromEntries(rows.filter((r) => r.pass !== undefined).map((r) => [r.measure, r.pass])),
    missed,
  });
  process.stdout.write(`\n${missed.length ? `MISSED ${missed.length} target(s): ${missed.join('; ')}` : 'All targets met.'}\nFigures written to ${file}\n`);
}

export function machine(): Record<string, unknown> {
  const list = cpus();
  return { cpus: list.length, cpuModel: list[0]?.model, node: process.version, platform: `${process.platform}/${process.arch}` };
}

export async function writeReport(name: string, data: unknown): Promise<string> {
  const file = resolve('reports/bench', `${name}.json`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(data, null, 2) + '\n');
  return relative(process.cwd(), file);
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n)} ms`,
  mib: (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`,
};

/**
 * `gc()` without `--expose-gc` on the command line (npm run bench runs plain tsx): the flag
 * can still be set at run time and the function fetched from a fresh context.
 */
export function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

/** A warning when other processes keep the CPUs busy: the figures are then noisy. */
export function busyWarning(): string | undefined {
  const [load] = loadavg();
  const cpus = availableParallelism();
  return load > cpus ? `WARNING: load average ${load.toFixed(1)} on ${cpus} CPUs: other processes compete with the benchmark; figures are noisy.` : undefined;
}

export function settledMemory(gc: (() => void) | undefined): NodeJS.MemoryUsage {
  gc?.();
  gc?.();
  return process.memoryUsage();
}
