/**
 * The lane runner: runs each lane (lane-job.ts) and ends with the lane x scenario table. Lanes
 * run side by side, each on its own cluster, with one progress line per lane while they run;
 * then each lane's output is printed whole, one lane after another. `--serial` runs them one
 * after the other, Playwright printing straight to the terminal. Ctrl-C stops Playwright, tears
 * down whatever is up and exits 130 (run-control.ts).
 */
import type { Lane } from '../lane-declaration.ts';
import { writeConformanceReport } from './conformance-report.ts';
import { LaneProgress } from './lane-progress.ts';
import { runLane, type LaneOutput, type LaneResult, type LaneRunOptions } from './lane-job.ts';
import { forever, RunControl } from './run-control.ts';
import { summaryTable, type Outcome } from './summary-table.ts';

export { ROOT } from './lane-job.ts';

/**
 * Why lanes that would run side by side run one after the other instead, or undefined. Lanes on
 * one existing cluster would meet: the shared-mode lanes keep their sandboxes in one driver
 * namespace, where one lane's driver reconciles (and may reap) the other's sandboxes, and the
 * lanes' admission-policy faults bind to that namespace.
 */
export function serialReason(options: Pick<LaneRunOptions, 'lanes' | 'provider' | 'serial'>): string | undefined {
  if (options.serial || options.lanes.length < 2) return undefined;
  if (options.provider.name === 'existing') {
    return "the lanes share one existing cluster: in its driver namespace one lane's driver would reconcile another lane's sandboxes and one lane's faults would refuse another's writes; one after the other";
  }
  return undefined;
}

/** Runs the lanes; resolves to the exit code (0 when every lane passed). */
export async function runLanes(options: LaneRunOptions): Promise<number> {
  const reason = serialReason(options);
  if (reason) process.stdout.write(`lanes: ${reason}\n`);
  const sideBySide = !options.serial && !reason && options.lanes.length > 1;
  const results = sideBySide ? await runSideBySide(options) : await runOneAfterAnother(options);

  const table = new Map<string, Outcome[]>();
  for (const r of results) if (r.column && r.outcomes) table.set(r.column, r.outcomes);
  if (table.size) {
    process.stdout.write(`\nLane x scenario (driver: ${options.driver.kind === 'harness' ? options.driver.variant : 'external'}; reports in ${options.reportRoot}/<lane>/)\n\n${summaryTable(table)}\n\n`);
  }
  if (options.conformanceReport) {
    const lanes = options.lanes.map((lane, i) => ({ lane, cluster: options.provider.name, ...results[i] }));
    const path = writeConformanceReport(options.reportRoot, { driver: options.driver, declaredDriver: options.conformanceReport.driver, capabilities: options.capabilities, lanes });
    process.stdout.write(`conformance report: ${path}\n`);
  }
  const kept = results.flatMap((r) => (r.keptRunning ? [r.keptRunning] : []));
  if (kept.length) {
    process.stdout.write(`--keep: the embedded cluster${kept.length > 1 ? 's keep' : ' keeps'} running; ${kept.join('; ')}; Ctrl-C to stop\n`);
    await forever();
  }
  return results.some((r) => r.failed) ? 1 : 0;
}

async function runOneAfterAnother(options: LaneRunOptions): Promise<LaneResult[]> {
  const control = new RunControl(options.provider);
  const terminal: LaneOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), capturesPlaywright: false };
  const results: LaneResult[] = [];
  for (const lane of options.lanes) results.push(await runLane(lane, options, control, terminal, () => undefined));
  return results;
}

async function runSideBySide(options: LaneRunOptions): Promise<LaneResult[]> {
  const buffers = new Map(options.lanes.map((lane) => [lane.name, new BufferedOutput()]));
  const progress = new LaneProgress(options.lanes.map((l) => l.name));
  const replay = (lanes: readonly Lane[]) => {
    for (const lane of lanes) {
      process.stdout.write(`\n===== ${lane.name} =====\n`);
      buffers.get(lane.name)!.replay();
    }
  };
  // On Ctrl-C: what each lane printed so far, before the tear-down messages.
  const control = new RunControl(options.provider, () => {
    progress.done();
    replay(options.lanes);
  });
  const results = await Promise.all(options.lanes.map((lane) => runLane(lane, options, control, buffers.get(lane.name)!, (state) => progress.update(lane.name, state), options.lanes.length)));
  progress.done();
  replay(options.lanes);
  return results;
}

/** A lane's output kept in order (stdout and stderr chunks as they came) and printed whole later. */
class BufferedOutput implements LaneOutput {
  readonly capturesPlaywright = true;
  private readonly chunks: { stream: 'out' | 'err'; text: string }[] = [];

  out(text: string): void {
    this.chunks.push({ stream: 'out', text });
  }

  err(text: string): void {
    this.chunks.push({ stream: 'err', text });
  }

  replay(): void {
    for (const { stream, text } of this.chunks.splice(0)) (stream === 'out' ? process.stdout : process.stderr).write(text);
  }
}
