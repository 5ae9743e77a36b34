import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { describeRealism } from '../cluster/embedded/agent-sandbox/realism.ts';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../fixtures/programs/catalogue.ts';
import { findLane, LANES, type Lane } from '../lanes/index.ts';
import { laneOnRelease } from '../lanes/release-axis.ts';
import { readOutcomes } from '../lanes/run/summary-table.ts';
import type { Timeline } from '../timeline/model.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The lane command; its runs write only the reports these tests read (results.json, summary.md): the HTML, JUnit and blob reports are cli/ and scripts/packaging/'s to test. */
function lane(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', '--reports', 'results', ...args], { cwd: ROOT, reject: false, all: true, env: { CI: '', ...env } });
}

/**
 * The suite's self-test: on the pre-#3424 ordering defect the v1beta1 lane must FAIL, and say
 * which ordering invariant broke. A suite that passed here could not be trusted anywhere.
 */
test('the v1beta1 lane fails on the suspend-first driver and names the violated invariants', async () => {
  test.setTimeout(240_000);
  const reports = test.info().outputPath('reports');
  const run = await lane(['v1beta1', '--cluster', 'embedded', '--seed', '20260915', '--report-dir', reports, '--driver', 'suspend-first', '--', '--grep', 'stop-ordering']);
  expect(run.exitCode, run.all).toBe(1);
  const summary = readFileSync(`${reports}/shared-v1beta1/summary.md`, 'utf8');
  // The release and the controller's seed, at lane start and in the report.
  expect(run.all).toContain('Agent Sandbox v0.5.0 controller: realism on, seed 20260915');
  expect(summary).toContain('### shared-v1beta1: Agent Sandbox v0.5.0 (Sandbox API v1beta1) on embedded, realism on, seed 20260915');
  expect(summary).toMatch(/stop-ordering .*\| FAIL \(.*stop\/supervisor-gone-before-workload-delete/);
  expect(summary).toContain('stop/suspend-after-supervisor-gone');
  expect(summary).toContain('stop/supervisor-exit-clean');
  expect(run.all).toContain('timed out waiting for supervisor Pod deletion');
  expect(run.all).toContain('SIGKILLed at the end of its grace period');
});

/**
 * The fault scenarios' self-test: each catches a defect that passes every scripted scenario on a
 * healthy cluster and breaks only under its fault schedule, and says what broke. The four lanes
 * run side by side, one defect each, each on its own embedded cluster.
 */
test('each fault scenario fails on the defect only its faults expose, naming what broke', async () => {
  test.setTimeout(300_000);
  const cases = [
    { variant: 'stale-supervisor-read', scenario: 'stale-view-during-stop', names: 'stop/suspend-after-supervisor-gone' },
    { variant: 'watch-trusting-wait', scenario: 'watch-held-during-stop', names: 'stop/suspend-after-supervisor-gone' },
    { variant: 'resume-skips-wait', scenario: 'crash-after-suspension-write', names: 'stop/returns-after-workload-gone-and-suspended' },
    { variant: 'conflict-as-success', scenario: 'conflict-storm', names: 'stop did not finish' },
  ];
  // Beside them, the reference driver replays a schedule file (`--faults`) on a scripted scenario: it holds, and the faults are in its timeline.
  const file = test.info().outputPath('schedule.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'sandbox-conformance.io/v1alpha1',
      kind: 'FaultSchedule',
      items: [
        { id: 'slow-writes', trigger: { on: 'start' }, fault: { kind: 'latency', match: { writes: true }, ms: 50 }, heal: { afterMs: 3000 } },
        { id: 'cut-watches', trigger: { on: 'event', object: { role: 'supervisorPod' }, change: 'deletion-requested' }, fault: { kind: 'watch-close', match: { resource: 'pods' }, afterEvents: 0 } },
        { id: 'relist', trigger: { on: 'after', item: 'cut-watches' }, fault: { kind: 'watch-expire', match: { resource: 'pods' } }, heal: { afterMs: 1000 } },
      ],
    }),
  );
  const replay = (async () => {
    const reports = test.info().outputPath('replay');
    const run = await lane(['v1beta1', '--cluster', 'embedded', '--faults', file, '--report-dir', reports, '--', '--grep', 'stop-ordering', '--workers', '1']);
    return { run, results: readFileSync(`${reports}/shared-v1beta1/results.json`, 'utf8') };
  })();
  const runs = await Promise.all(
    cases.map(async (c) => {
      const reports = test.info().outputPath(c.variant);
      const run = await lane(['v1beta1', '--cluster', 'embedded', '--seed', '20261203', '--report-dir', reports, '--driver', c.variant, '--', '--grep', c.scenario, '--workers', '1']);
      return { ...c, run, summary: readFileSync(`${reports}/shared-v1beta1/summary.md`, 'utf8') };
    }),
  );
  for (const { variant, scenario, names, run, summary } of runs) {
    expect(run.exitCode, `${variant}: ${run.all}`).toBe(1);
    expect(summary, `${variant} on ${scenario}`).toMatch(new RegExp(`${scenario} .*\\| FAIL`));
    expect(run.all, `${variant} on ${scenario}: the failure names what broke`).toContain(names);
  }
  const { run, results } = await replay;
  expect(run.exitCode, run.all).toBe(0);
  expect(run.all).toContain(`fault schedule: ${file} (slow-writes: latency, cut-watches: watch-close, relist: watch-expire), run by every test`);
  const timeline = timelineOf(results);
  expect(timeline.entries.filter((e) => e.kind === 'fault').map((e) => `${e.status} ${e.item}`)).toEqual(expect.arrayContaining(['fired slow-writes', 'healed slow-writes', 'fired cut-watches', 'fired relist', 'healed relist']));
});

/** The timeline.json attachment of the one test in a results.json. */
function timelineOf(results: string): Timeline {
  const found: Timeline[] = [];
  const walk = (suite: { suites?: unknown[]; specs?: { tests: { results: { attachments: { name: string; body?: string }[] }[] }[] }[] }) => {
    for (const child of suite.suites ?? []) walk(child as typeof suite);
    for (const spec of suite.specs ?? []) for (const t of spec.tests) for (const r of t.results) for (const a of r.attachments) if (a.name === 'timeline.json' && a.body) found.push(JSON.parse(Buffer.from(a.body, 'base64').toString('utf8')) as Timeline);
  };
  for (const suite of (JSON.parse(results) as { suites: Parameters<typeof walk>[0][] }).suites) walk(suite);
  expect(found, 'one test with a timeline').toHaveLength(1);
  return found[0];
}

/**
 * The lanes in groups, each group on its own cluster: shared-v1beta1 and managed one after the
 * other on one cluster (so a lane is shown to leave an existing cluster fit for the next), every
 * other lane alone, so the groups spread over the test workers instead of queueing behind one
 * test; and shared-v1beta1 once more on v0.5.4 (`--agent-sandbox`), OpenShell's default release
 * since its #2937.
 */
function laneGroups(): { release: string; lanes: Lane[]; args: string[] }[] {
  const together = ['shared-v1beta1', 'managed'];
  const groups: Lane[][] = [LANES.filter((l) => together.includes(l.name)), ...LANES.filter((l) => !together.includes(l.name)).map((l) => [l])];
  for (const group of groups) if (new Set(group.map((l) => l.agentSandbox.version)).size !== 1) throw new Error(`lanes ${group.map((l) => l.name).join(', ')} run on different Agent Sandbox releases: they cannot share a cluster`);
  return [
    ...groups.map((lanes) => ({ release: lanes[0].agentSandbox.version, lanes, args: lanes.map((l) => l.name) })),
    { release: 'v0.5.4', lanes: [laneOnRelease(findLane('shared-v1beta1'), 'v0.5.4', LANES)], args: ['shared-v1beta1', '--agent-sandbox', 'v0.5.4'] },
  ];
}

/**
 * Every lane, every scenario, nothing skipped, on a cluster the lanes did not bring up
 * themselves: an embedded cluster started here and reached only through `--cluster existing`
 * and KUBECONFIG, as a kind or any other cluster would be. So no scenario can lean on a hook
 * only the embedded cluster has. The lanes of one release run one after the other on one
 * cluster; the releases run side by side.
 */
for (const { release, lanes, args } of laneGroups()) {
  const names = lanes.map((l) => l.name);
  test(`lanes ${names.join(', ')} pass every scenario, none skipped but for replica count, on a cluster reached through the existing provider (Agent Sandbox ${release})`, async ({}, testInfo) => {
    test.setTimeout(20 * 60_000);
    const dir = mkdtempSync(join(tmpdir(), 'lane-self-test-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    const cluster = await EmbeddedCluster.start({ kubeconfigPath, node: { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE }, agentSandbox: lanes[0].agentSandbox.version });
    try {
      await testInfo.attach('cluster', { body: `embedded cluster at ${cluster.url}, Agent Sandbox ${release}, ${describeRealism(cluster.agentSandboxRealism!)}` });
      const reports = testInfo.outputPath('reports');
      const started = Date.now();
      // The existing provider's two workers: these lanes run four at once, so the cores are busy
      // either way, and each worker fewer saves its start-up (npm test: 1,012 -> 940 CPU-s with 2 instead of 4).
      const run = await lane([...args, '--cluster', 'existing', '--report-dir', reports], { KUBECONFIG: kubeconfigPath });
      await testInfo.attach('lane output', { body: `${run.all}\n\n(${((Date.now() - started) / 1000).toFixed(0)} s)` });
      expect(run.all).toContain('cluster: existing (requested with --cluster existing');
      const listed = await scenarioTitles();
      for (const name of names) {
        const outcomes = readOutcomes(join(reports, name, 'results.json'), []);
        expect(outcomes.map((o) => o.scenario).sort(), `lane ${name} ran every scenario`).toEqual(listed);
        const replicas = lanes.find((l) => l.name === name)!.driver.replicas ?? 1;
        const notPassed = outcomes.filter((o) => o.status !== 'passed' && !skippedForReplicas(o, name, replicas));
        expect(notPassed.map((o) => `${o.scenario}: ${o.status} ${o.detail ?? ''}`), `lane ${name}: every scenario passed, none skipped but for more replicas than the lane runs`).toEqual([]);
        expect(readFileSync(join(reports, name, 'summary.md'), 'utf8')).toContain(`### ${name}: Agent Sandbox ${release} (Sandbox API `);
      }
      expect(run.exitCode, run.all).toBe(0);
    } finally {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * The one skip a lane may show: a scenario that needs more driver replicas than the lane runs
 * (`driverControl.requireReplicas`), and only when the lane truly runs fewer. Any other skip,
 * or this one in the ha lane, is a failure.
 */
function skippedForReplicas(o: { status: string; detail?: string }, lane: string, replicas: number): boolean {
  const m = /^needs (\d+) driver replicas: lane (\S+) runs (\d+) replicas? of the driver/.exec(o.detail ?? '');
  return o.status === 'skipped' && !!m && m[2] === lane && Number(m[3]) === replicas && Number(m[1]) > replicas;
}

/** The scenarios as the summary names them (`<file without .spec.ts> › <title>`), from Playwright's own listing; listed once per worker. */
let listed: Promise<string[]> | undefined;
function scenarioTitles(): Promise<string[]> {
  listed ??= listScenarios();
  return listed;
}

async function listScenarios(): Promise<string[]> {
  const listing = await lane(['--list']);
  return listing.stdout
    .split('\n')
    .map((line) => /^ {2}(scenarios\/\S+)\.spec\.ts:\d+:\d+ › (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => `${m[1]} › ${m[2]}`)
    .sort();
}
