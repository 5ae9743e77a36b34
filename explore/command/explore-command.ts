/**
 * `npm run explore -- <lane> [options]` and `npm run explore -- replay <dir>`: the command line
 * of the search. Every argument is checked before anything starts (a clear message, exit 2,
 * nothing written); then the search runs on the embedded cluster, its report is written and its
 * table printed. Exit 0: nothing found; 1: a finding (or, for replay, the failure reproduced).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { FixtureImage } from '../../cluster/cluster-provider.ts';
import { EmbeddedProvider } from '../../cluster/embedded-provider.ts';
import { DRIVER_VARIANTS } from '../../driver/compute-driver.ts';
import { findLane } from '../../lanes/index.ts';
import type { Lane } from '../../lanes/lane-declaration.ts';
import { testsSideBySide } from '../../lanes/run/driver-launch.ts';
import { laneWorkers, ROOT } from '../../lanes/run/lane-job.ts';
import { describeDriver, type DriverUnderTest } from '../../lanes/run/lane-run.ts';
import { RunControl } from '../../lanes/run/run-control.ts';
import { signatureOf } from '../oracle/signature.ts';
import { readFindingFile } from '../report/finding-file.ts';
import { mergeReports } from '../report/merge-reports.ts';
import { findingsTable, writeReport } from '../report/write-report.ts';
import type { BatchContext, RunResult } from '../run/run-batch.ts';
import { runBatch } from '../run/run-batch.ts';
import { CandidateRuns } from '../search/candidate-runs.ts';
import { explore } from '../search/explore-search.ts';

export interface ExploreCommandContext {
  images: readonly FixtureImage[];
  invariantIds: readonly string[];
}

export const exploreHelp = `Usage: npm run explore -- <lane> [--runs N | --budget 10m] [options]
       npm run explore -- replay <dir> [--replays N]
       npm run explore -- merge <out-dir> <report-dir>...   (the findings of several shards, as one report)

Searches seeded call programs and fault schedules for failures no scenario scripts, on the
embedded cluster; shrinks each failure to a minimal reproducer and replays it.

Options:
  --runs N           fault runs (default 30), over N/3 programs each run once without faults first
  --budget DURATION  instead of --runs: search until this much time is spent (90s, 10m, 1h)
  --seed S           the search's one seed (default: drawn and printed): programs, schedules,
                     the controller's timing and the replica routing
  --driver reference|<defect variant>|exec=<command>
                     the driver under test (default: reference); variants: ${DRIVER_VARIANTS.join(', ')}
  --workers K        runs at once (default: as a lane runs its scenarios)
  --tries K          a shrink candidate fails when it fails with the signature in any of K tries (default 3)
  --replays N        replays of each minimal reproducer for its reproduction rate (default 10;
                     0: none, the report shows the first failing run)
  --shard I/N        this machine's share of the search (1 <= I <= N): the same seed, disjoint
                     programs and runs, as Playwright shards tests; join the shards' reports
                     with merge
  --no-shrink        report each failure as found
  --report-dir DIR   where reports go (default: reports/explore); a folder per lane, one per signature
  -h, --help         this help

Exit status: 0 nothing found, 1 a failure found (replay: it reproduced), 2 bad usage, 130 interrupted

Docs: README.md "Exploring"
`;

export class UsageError extends Error {}

const OPTIONS = {
  runs: { type: 'string' },
  budget: { type: 'string' },
  seed: { type: 'string' },
  driver: { type: 'string' },
  workers: { type: 'string' },
  tries: { type: 'string' },
  replays: { type: 'string' },
  'no-shrink': { type: 'boolean' },
  shard: { type: 'string' },
  'report-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type ExploreArguments =
  | { kind: 'help' }
  | { kind: 'search'; lane: Lane; driver: DriverUnderTest; runs?: number; budgetMs?: number; seed?: number; workers?: number; tries: number; replays: number; shrink: boolean; reportDir: string; shard?: { index: number; count: number } }
  | { kind: 'replay'; dir: string; replays: number; workers?: number }
  | { kind: 'merge'; out: string; inputs: string[] };

/** The arguments checked as the command checks them before it starts anything; throws UsageError. Reads no file (the docs test checks documented commands with it). */
export function parseExploreArguments(argv: string[]): ExploreArguments {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const whole = (flag: string, value: string | undefined, min: number) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) throw new UsageError(`--${flag} must be a whole number >= ${min}, got "${value}"`);
    return Number(value);
  };
  // A search may skip the replays (0); a replay is nothing but them.
  const replays = whole('replays', values.replays, positionals[0] === 'replay' ? 1 : 0) ?? 10;
  const workers = whole('workers', values.workers, 1);
  if (positionals[0] === 'replay') {
    if (positionals.length !== 2) throw new UsageError('replay takes one folder: npm run explore -- replay reports/explore/<lane>/<signature>');
    const dir = resolve(positionals[1]);
    const searchOnly = (['runs', 'budget', 'seed', 'driver', 'tries', 'no-shrink', 'report-dir'] as const).filter((f) => values[f] !== undefined);
    if (searchOnly.length) throw new UsageError(`replay runs the finding as recorded; --${searchOnly[0]} is for a search`);
    return { kind: 'replay', dir, replays, workers };
  }
  if (positionals[0] === 'merge') {
    if (positionals.length < 3) throw new UsageError('merge takes the folder to write and at least one report folder: npm run explore -- merge reports/explore merged/shard-1 merged/shard-2');
    return { kind: 'merge', out: resolve(positionals[1]), inputs: positionals.slice(2).map((p) => resolve(p)) };
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `one lane at a time, got ${positionals.join(', ')}` : 'name a lane, e.g. npm run explore -- v1beta1 --runs 30');
  let lane: Lane;
  try {
    lane = findLane(positionals[0]);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.runs !== undefined && values.budget !== undefined) throw new UsageError('--runs and --budget: choose one');
  const runs = whole('runs', values.runs, 1);
  const budgetMs = values.budget === undefined ? undefined : duration(values.budget);
  const seed = whole('seed', values.seed, 0);
  const shard = values.shard === undefined ? undefined : /^(\d+)\/(\d+)$/.exec(values.shard);
  if (shard === null || (shard && (Number(shard[1]) < 1 || Number(shard[1]) > Number(shard[2])))) throw new UsageError(`--shard must be I/N with 1 <= I <= N, got "${values.shard}"`);
  return {
    kind: 'search',
    lane,
    driver: driverOf(values.driver ?? 'reference'),
    runs: runs ?? (budgetMs === undefined ? 30 : undefined),
    budgetMs,
    seed,
    workers,
    tries: whole('tries', values.tries, 1) ?? 3,
    replays,
    shrink: !values['no-shrink'],
    reportDir: resolve(values['report-dir'] ?? join(ROOT, 'reports', 'explore')),
    ...(shard && { shard: { index: Number(shard[1]) - 1, count: Number(shard[2]) } }),
  };
}

export function holdsFinding(dir: string): boolean {
  return !!statSync(dir, { throwIfNoEntry: false })?.isDirectory() && existsSync(join(dir, 'finding.json'));
}

/** `90s`, `10m`, `1h`. */
function duration(text: string): number {
  const m = /^(\d+)(s|m|h)$/.exec(text);
  if (!m || Number(m[1]) === 0) throw new UsageError(`--budget must be a duration like 90s, 10m or 1h, got "${text}"`);
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
}

function driverOf(flag: string): DriverUnderTest {
  if (flag.startsWith('exec=')) {
    const command = flag.slice('exec='.length).trim();
    if (!command) throw new UsageError("--driver exec= needs a command, e.g. --driver exec='npm run -s driver -- serve'");
    return { kind: 'exec', command };
  }
  if (flag.startsWith('external=')) throw new UsageError('--driver external=: a driver someone else started cannot be crashed or put behind the fault proxy; use exec=<command>');
  const variant = DRIVER_VARIANTS.find((v) => v === flag);
  if (!variant) throw new UsageError(`unknown driver "${flag}"; choose ${DRIVER_VARIANTS.join(', ')} or exec=<command>`);
  return { kind: 'harness', variant };
}

export async function runExploreCommand(argv: string[], context: ExploreCommandContext): Promise<number> {
  let args: ExploreArguments;
  try {
    args = parseExploreArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n\nRun \`npm run explore -- --help\` for usage.\n`);
    return 2;
  }
  if (args.kind === 'help') {
    process.stdout.write(exploreHelp);
    return 0;
  }
  if (args.kind === 'replay' && !holdsFinding(args.dir)) {
    process.stderr.write(`error: ${args.dir}: no finding there (a folder \`npm run explore\` wrote holds finding.json)\n`);
    return 2;
  }
  if (args.kind === 'merge') return mergeCommand(args);
  return args.kind === 'replay' ? replay(args, context) : search(args, context);
}

function batchContext(lane: Lane, driver: DriverUnderTest, seed: number, workers: number | undefined, workDir: string, context: ExploreCommandContext): Omit<BatchContext, 'onProgress'> {
  const provider = new EmbeddedProvider();
  return {
    lane,
    provider,
    driver,
    seed,
    workers: workers ?? (testsSideBySide(driver, lane) ? laneWorkers('embedded') : 1),
    images: context.images,
    invariantIds: context.invariantIds,
    workDir,
    control: new RunControl(provider),
  };
}

async function search(args: Extract<ExploreArguments, { kind: 'search' }>, context: ExploreCommandContext): Promise<number> {
  const seed = args.seed ?? randomBytes(4).readUInt32BE();
  const dir = join(args.reportDir, args.lane.name);
  const workDir = join(dir, `.work-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  const batches = batchContext(args.lane, args.driver, seed, args.workers, workDir, context);
  process.stdout.write(`explore ${args.lane.name}: seed ${seed} (the same search again: --seed ${seed}); driver ${describeDriver(args.driver)}; ${args.runs !== undefined ? `${args.runs} fault runs` : `budget ${args.budgetMs! / 1000} s`}; ${batches.workers} at once${args.shard ? `; shard ${args.shard.index + 1}/${args.shard.count}` : ''}\n`);
  try {
    const report = await explore({ context: batches, seed, runs: args.runs, budgetMs: args.budgetMs, tries: args.tries, replays: args.replays, shrink: args.shrink, shard: args.shard });
    const reportContext = { lane: args.lane.name, driver: args.driver, seed, dir };
    writeReport(report, reportContext);
    const perMinute = report.runsTotal / (report.totalMs / 60_000);
    process.stdout.write(`\n${report.runs} fault runs over ${report.references} programs in ${(report.searchMs / 1000).toFixed(0)} s; ${report.runsTotal} runs in all (${perMinute.toFixed(1)} runs/min)\n`);
    process.stdout.write(report.findings.length ? `\n${findingsTable(report, reportContext)}\n\nsummary: ${join(dir, 'summary.md')}\n` : `no failure found; summary: ${join(dir, 'summary.md')}\n`);
    return report.findings.length ? 1 : 0;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function mergeCommand(args: Extract<ExploreArguments, { kind: 'merge' }>): number {
  const missing = args.inputs.filter((dir) => !statSync(dir, { throwIfNoEntry: false })?.isDirectory());
  if (missing.length) {
    process.stderr.write(`error: no such report folder: ${missing.join(', ')}\n`);
    return 2;
  }
  const merged = mergeReports(args.inputs, args.out);
  process.stdout.write(`${merged.length ? merged.map((m) => `${m.lane}: ${m.signature} (${m.failingRuns} failing runs, from ${m.from})`).join('\n') : 'no finding in any shard'}\nsummary: ${join(args.out, 'summary.md')}\n`);
  return merged.length ? 1 : 0;
}

async function replay(args: Extract<ExploreArguments, { kind: 'replay' }>, context: ExploreCommandContext): Promise<number> {
  const finding = readFindingFile(args.dir);
  const lane = findLane(finding.lane);
  const workDir = join(args.dir, `.work-${process.pid}`);
  const batches = batchContext(lane, finding.driver, finding.seed, args.workers, workDir, context);
  process.stdout.write(`replaying ${finding.signature} on ${lane.name} (driver ${finding.driver.kind === 'harness' ? finding.driver.variant : finding.driver.kind}, seed ${finding.seed}): ${finding.schedule.items.length} schedule item(s), ${args.replays} time(s)\n`);
  try {
    const runs = new CandidateRuns(finding.signature, async (list, label) => (await runBatch({ ...batches, onProgress: (done, total) => process.stdout.write(`${label}: ${done}/${total}\n`) }, { runs: list }, 'replay')).results, 1);
    const replays = await runs.replay({ program: finding.program, schedule: finding.schedule }, args.replays, 'replay');
    const failed = replays.filter((r) => r.fails);
    const shown: RunResult | undefined = failed[0]?.result ?? replays[0]?.result;
    if (shown?.timelineHtml && existsSync(shown.timelineHtml)) {
      mkdirSync(join(args.dir, 'replay'), { recursive: true });
      copyFileSync(shown.timelineHtml, join(args.dir, 'replay', 'timeline.html'));
    }
    // What the replays that did not reproduce it ended as: passed, or another failure (a different signature is a lead too).
    const others = new Map<string, number>();
    for (const r of replays.filter((r) => !r.fails)) {
      const ended = signatureOf(r.result!) ?? 'passed';
      others.set(ended, (others.get(ended) ?? 0) + 1);
    }
    const rest = others.size ? ` (the others: ${[...others].map(([what, n]) => `${what} ×${n}`).join(', ')})` : '';
    process.stdout.write(`reproduced ${failed.length}/${replays.length}${failed.length ? `: ${finding.signature}` : ''}${rest}; timeline: ${join(args.dir, 'replay', 'timeline.html')}\n`);
    return failed.length ? 1 : 0;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
