/**
 * `npm run bench -- lanes`: how long the conformance suite takes on the embedded cluster, and
 * what the timeline recorder costs. Wall-time targets (one lane <= 10 s, all lanes <= 30 s on
 * 2 cores) are absolute, each set beside a baseline from the same run: the longest scenario in
 * the lane (no lane can beat it), and the slowest lane of the six (lanes run side by side, so
 * the run cannot beat it). The recorder's cost is a ratio against the same lifecycle run without
 * a recorder, measured in this run.
 */
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { sandboxApiVersion } from '../driver/agent-sandbox-api.ts';
import { KubernetesDriver } from '../driver/kubernetes/kubernetes-driver.ts';
import { Gateway } from '../driver/gateway/gateway.ts';
import { HARNESS_DRIVER_SETTINGS } from '../lanes/driver-settings.ts';
import { findLane, LANES } from '../lanes/index.ts';
import { OPENSHELL_ROLES } from '../lanes/openshell-roles.ts';
import { TimelineRecorder } from '../timeline/collect/recorder.ts';
import { reapedChildrenCpuMs } from '../fixtures/reporters/process-tree-cpu.ts';
import type { CostReport, TestCost } from '../fixtures/reporters/test-cost.ts';
import { fmt, machine, progressLog, renderTable, startBenchCluster, writeReport, type BenchOptions, type Row } from './common.ts';
import type { Measurement } from './figures-table.ts';

interface LaneTiming {
  seconds: number;
  exitCode: number;
  /** Each lane's own wall time inside the run, from the runner's progress lines (side by side: from the run's start). */
  laneSeconds: Record<string, number>;
  /** The longest single test (scenario run) of any lane, from Playwright's results.json. */
  longestScenarioSeconds: number;
  /** CPU time of the whole run (lane runner, embedded cluster, Playwright and its workers, driver processes, fixture programs); undefined without /proc. */
  cpuSeconds: number | undefined;
  /** Per scenario: the wall and CPU time its worker spent on it (the in-process driver and recorders included; the cluster not), from the lane's test-cost.json. */
  scenarios: TestCost[];
}

async function timeLane(args: string[], reportDir: string): Promise<LaneTiming> {
  const started = performance.now();
  const cpuBefore = reapedChildrenCpuMs();
  const run = await execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', ...args, '--cluster', 'embedded', '--report-dir', reportDir], { reject: false, all: true, env: { CI: '' } });
  const seconds = (performance.now() - started) / 1000;
  // The lane's process has exited and been reaped, and it reaped its own children: its whole tree's CPU.
  const cpuAfter = reapedChildrenCpuMs();
  const cpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000;
  // Side by side and not on a terminal, the runner prints `[lane] passed (+12.3s)` as each lane ends.
  const laneSeconds = Object.fromEntries([...(run.all ?? '').matchAll(/^\[(\S+)\] (?:passed|FAILED) \(\+([\d.]+)s\)$/gm)].map((m) => [m[1], Number(m[2])]));
  return { seconds, exitCode: run.exitCode ?? 1, laneSeconds, longestScenarioSeconds: longestScenario(reportDir, args), cpuSeconds, scenarios: scenarioCosts(reportDir, args) };
}

/** What each scenario cost its worker, from the lanes' test-cost.json (fixtures/reporters/test-cost.ts). */
function scenarioCosts(reportDir: string, args: string[]): TestCost[] {
  const lanes = args.includes('--all') ? LANES.map((l) => l.name) : [findLane(args[0]).name];
  return lanes.flatMap((lane) => {
    try {
      return (JSON.parse(readFileSync(join(reportDir, lane, 'test-cost.json'), 'utf8')) as CostReport).tests.map((t) => ({ ...t, title: `${lane} › ${t.title}` }));
    } catch {
      return []; // a lane that did not get to run its scenarios
    }
  });
}

/** The longest test duration in the lanes' results.json files (seconds). */
function longestScenario(reportDir: string, args: string[]): number {
  const lanes = args.includes('--all') ? LANES.map((l) => l.name) : [findLane(args[0]).name];
  let longest = 0;
  const walk = (suite: { specs?: { tests: { results: { duration: number }[] }[] }[]; suites?: unknown[] }) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests) for (const r of t.results) longest = Math.max(longest, r.duration / 1000);
    for (const child of suite.suites ?? []) walk(child as typeof suite);
  };
  for (const lane of lanes) {
    try {
      for (const suite of JSON.parse(readFileSync(join(reportDir, lane, 'results.json'), 'utf8')).suites) walk(suite);
    } catch {
      // a lane that did not get to run its scenarios has no results
    }
  }
  return longest;
}

/** `npm run lane -- v1beta1` and (unless --quick) `npm run lanes`, each timed as a whole. */
async function timeLanes(options: BenchOptions, log: (line: string) => void): Promise<{ one: LaneTiming; all?: LaneTiming }> {
  const reports = await mkdtemp(join(tmpdir(), 'bench-lanes-'));
  try {
    log('timing `npm run lane -- v1beta1` on the embedded cluster');
    const one = await timeLane(['v1beta1'], join(reports, 'one'));
    log(`one lane: ${one.seconds.toFixed(1)} s (exit ${one.exitCode}), longest scenario ${one.longestScenarioSeconds.toFixed(1)} s`);
    if (options.quick) return { one };
    log('timing `npm run lanes` (all six, side by side) on the embedded cluster');
    const all = await timeLane(['--all'], join(reports, 'all'));
    log(`all lanes: ${all.seconds.toFixed(1)} s (exit ${all.exitCode}); lanes ${JSON.stringify(all.laneSeconds)}`);
    return { one, all };
  } finally {
    await rm(reports, { recursive: true, force: true });
  }
}

/** The lane figures of issues 15 and 25 for `npm run bench` (figures-table.ts). */
export async function laneFigures(options: BenchOptions, log: (line: string) => void): Promise<Measurement[]> {
  const { one, all } = await timeLanes(options, log);
  const failed = (t: LaneTiming, what: string) => (t.exitCode ? `${what} FAILED, exit ${t.exitCode}` : undefined);
  /** One lane's wall time against a target in seconds (issue 15's and issue 25's are the same measurement). */
  const laneWall = (id: string, targetSeconds: number): Measurement => ({
    id,
    measured: `${one.seconds.toFixed(1)} s`,
    values: { seconds: one.seconds, longestScenarioSeconds: one.longestScenarioSeconds },
    ratio: one.longestScenarioSeconds ? one.seconds / one.longestScenarioSeconds : undefined,
    pass: one.seconds <= targetSeconds && one.exitCode === 0,
    note: failed(one, 'the lane') ?? `longest scenario ${one.longestScenarioSeconds.toFixed(1)} s`,
  });
  const figures: Measurement[] = [
    laneWall('one-lane', 10),
    {
      id: 'lane-cpu',
      measured: one.cpuSeconds === undefined ? 'n/a (no /proc)' : `${one.cpuSeconds.toFixed(1)} s`,
      values: { cpuSeconds: one.cpuSeconds ?? NaN, wallSeconds: one.seconds },
      ratio: one.cpuSeconds === undefined ? undefined : one.cpuSeconds / one.seconds,
      pass: one.cpuSeconds !== undefined && one.cpuSeconds <= 25 && one.exitCode === 0,
      note: failed(one, 'the lane'),
    },
    laneWall('lane-wall', 25),
  ];
  if (all) {
    const slowest = Math.max(0, ...Object.values(all.laneSeconds));
    figures.push({
      id: 'all-lanes',
      measured: `${all.seconds.toFixed(1)} s`,
      values: { seconds: all.seconds, slowestLaneSeconds: slowest, ...Object.fromEntries(Object.entries(all.laneSeconds).map(([l, s]) => [`lane:${l}`, s])) },
      ratio: slowest ? all.seconds / slowest : undefined,
      pass: all.seconds <= 30 && all.exitCode === 0,
      note: failed(all, 'a lane') ?? `slowest lane ${slowest.toFixed(1)} s`,
    });
  }
  return figures;
}

/** One create -> stop -> start -> delete cycle with the reference driver; milliseconds. */
async function lifecycle(driver: Gateway, name: string): Promise<number> {
  const started = performance.now();
  const sandbox = await driver.create({ name, command: ['sh', '-c', 'exec sleep 100000'] });
  await driver.stop(sandbox.id);
  await driver.start(sandbox.id);
  await driver.delete(sandbox.id);
  return performance.now() - started;
}

async function recorderOverhead(cycles: number, log: (line: string) => void): Promise<{ without: number[]; withRecorder: number[] }> {
  const cluster = await startBenchCluster('v0.5.0');
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  const reference = new KubernetesDriver({ kubeconfig: kc, ...HARNESS_DRIVER_SETTINGS });
  const driver = new Gateway({ clients: [reference] });
  const without: number[] = [];
  const withRecorder: number[] = [];
  try {
    // Alternate, so a slow stretch of the machine hits both sides.
    for (let i = 0; i < cycles; i++) {
      log(`recorder overhead: cycle ${i + 1}/${cycles} without recorder`);
      without.push(await lifecycle(driver, `plain-${i}`));
      log(`recorder overhead: cycle ${i + 1}/${cycles} with recorder`);
      const recorder = new TimelineRecorder(kc, { namespace: HARNESS_DRIVER_SETTINGS.namespace, roles: OPENSHELL_ROLES, sandboxApiVersion: sandboxApiVersion('v1beta1') });
      await recorder.start();
      withRecorder.push(await lifecycle(driver, `recorded-${i}`));
      recorder.stop();
    }
  } finally {
    await driver.close();
    await reference.close();
    await cluster.stop();
  }
  return { without, withRecorder };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runLanesBenchmark(options: BenchOptions): Promise<void> {
  const log = progressLog('lanes');
  const { one, all } = await timeLanes(options, log);
  const overhead = await recorderOverhead(options.quick ? 1 : 3, log);
  const ratio = median(overhead.withRecorder) / median(overhead.without);
  const rows: Row[] = [
    { measure: 'one lane (v1beta1), wall time', value: `${one.seconds.toFixed(1)} s${one.exitCode ? ' (lane FAILED)' : ''}`, target: '<= 10 s', pass: one.seconds <= 10 && one.exitCode === 0 },
    { measure: 'one lane: its longest scenario', value: `${one.longestScenarioSeconds.toFixed(1)} s` },
    {
      measure: 'one lane: CPU time (runner, cluster, workers, drivers, programs)',
      value: one.cpuSeconds === undefined ? 'n/a (no /proc)' : `${one.cpuSeconds.toFixed(1)} s (${(one.cpuSeconds / one.seconds).toFixed(2)} cores busy)`,
      target: '<= 25 s',
      pass: one.cpuSeconds !== undefined && one.cpuSeconds <= 25,
    },
    { measure: 'one lane, wall time (issue 25)', value: `${one.seconds.toFixed(1)} s`, target: '<= 25 s', pass: one.seconds <= 25 && one.exitCode === 0 },
    ...(all
      ? [
          { measure: 'all lanes side by side, wall time', value: `${all.seconds.toFixed(1)} s${all.exitCode ? ' (a lane FAILED)' : ''}`, target: '<= 30 s', pass: all.seconds <= 30 && all.exitCode === 0 },
          { measure: 'all lanes: each lane, side by side', value: Object.entries(all.laneSeconds).map(([l, s]) => `${l} ${s.toFixed(1)} s`).join(', ') },
        ]
      : []),
    { measure: 'lifecycle cycle without recorder (median)', value: fmt.ms(median(overhead.without)) },
    { measure: 'lifecycle cycle with recorder (median)', value: fmt.ms(median(overhead.withRecorder)) },
    { measure: 'recorder overhead (with / without)', value: `${ratio.toFixed(2)}x` },
  ];
  process.stdout.write(renderTable('Conformance lanes on the embedded cluster', rows));
  process.stdout.write(`\nOne lane (v1beta1), per scenario: wall and CPU time of its worker (the embedded cluster's share is in the lane's CPU time above)\n`);
  for (const t of [...one.scenarios].sort((a, b) => (b.cpuMs ?? 0) - (a.cpuMs ?? 0))) {
    process.stdout.write(`${fmt.ms(t.wallMs).padStart(10)} ${(t.cpuMs === undefined ? 'n/a' : fmt.ms(t.cpuMs)).padStart(10)}  ${t.title}\n`);
  }
  const file = await writeReport('lanes', { machine: machine(), oneLane: one, allLanes: all, recorder: { ...overhead, ratio } });
  process.stdout.write(`\nwritten: ${file}\n`);
}
