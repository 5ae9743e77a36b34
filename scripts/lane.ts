#!/usr/bin/env tsx
/**
 * `npm run lane -- <lane> [options] [-- <playwright args>]`: brings up a cluster for the lane,
 * runs the conformance scenarios against it, writes reports/<lane>/, prints the lane x
 * scenario table, and tears the cluster down (unless --keep).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa, type ResultPromise } from 'execa';
import type { ClusterHandle, ClusterProvider } from '../cluster/cluster-provider.ts';
import { chooseProvider } from '../cluster/select.ts';
import { prepareOperatorWorkspaces } from '../fixtures/operator.ts';
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { DRIVER_SOCKET_ENV, DRIVER_VARIANT_ENV, HANDLE_ENV } from '../fixtures/handle.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';
import { findLane, LANES, type Lane } from '../lanes/index.ts';
import { readOutcomes, summaryTable, type Outcome } from './lane/summary.ts';

const ROOT = resolve(import.meta.dirname, '..');
const LANE_WORKERS = 2;

const HELP = `Usage: npm run lane -- <lane>... [options] [-- <playwright args>]
       npm run lanes [-- options]          (all five lanes)
       npm run lane -- --list              (lanes, scenarios and invariants)

Lanes: ${LANES.map((l) => (l.aliases.length ? `${l.name} (alias ${l.aliases.join(', ')})` : l.name)).join(', ')}

Options:
  --cluster embedded|kind|existing   where to run (default: kind when the kind CLI and a running
                                     Docker daemon are found, else embedded; the choice is printed)
  --driver reference|suspend-first|external=<socket>
                                     the driver under test (default: reference). suspend-first is
                                     the pre-#3424 ordering defect: the suite must fail on it.
                                     external=<socket> tests a driver you run yourself.
  --keep                             keep the cluster afterwards (kind: not deleted; embedded: keeps
                                     running until Ctrl-C)
  --report-dir DIR                   where reports go (default: reports/); a folder per lane
  --all                              every lane
  --list                             print lanes, scenarios and invariants, then exit
  -h, --help                         this help

Everything after -- goes to Playwright, e.g. -- --grep stop-ordering --repeat-each 3
Reports: reports/<lane>/ (html/index.html opens offline, junit.xml, results.json, summary.md)
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\nRun \`npm run lane -- --help\` for usage.\n`);
  process.exit(2);
}

const separator = process.argv.indexOf('--', 2);
const ownArgs = separator >= 0 ? process.argv.slice(2, separator) : process.argv.slice(2);
const playwrightArgs = separator >= 0 ? process.argv.slice(separator + 1) : [];

let parsed;
try {
  parsed = parseArgs({
    args: ownArgs,
    allowPositionals: true,
    options: { 'report-dir': { type: 'string' }, cluster: { type: 'string' }, driver: { type: 'string' }, keep: { type: 'boolean' }, all: { type: 'boolean' }, list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values.list) {
  await printList();
  process.exit(0);
}

let lanes: Lane[];
try {
  lanes = values.all ? [...LANES] : positionals.map(findLane);
} catch (error) {
  fail((error as Error).message);
}
if (lanes.length === 0) fail('name a lane (or --all)');

const driverFlag = values.driver ?? 'reference';
let variant = 'reference';
let externalSocket: string | undefined;
if (driverFlag.startsWith('external=')) externalSocket = resolve(driverFlag.slice('external='.length));
else if (driverFlag === 'reference' || driverFlag === 'suspend-first') variant = driverFlag;
else fail(`unknown driver "${driverFlag}"; choose reference, suspend-first or external=<socket>`);
if (externalSocket) await assertListening(externalSocket);

let chosen: { provider: ClusterProvider; reason: string };
try {
  chosen = await chooseProvider(values.cluster);
} catch (error) {
  fail((error as Error).message);
}
const { provider } = chosen;
process.stdout.write(`cluster: ${provider.name} (${chosen.reason})\n`);

// Ctrl-C: stop Playwright, tear the cluster down, leave nothing behind.
let running: ResultPromise | undefined;
const active = new Map<string, ClusterHandle>();
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the run and tearing down ${[...active.keys()].join(', ') || 'nothing'}\n`);
    running?.kill('SIGINT');
    void (async () => {
      await running?.catch(() => undefined);
      for (const [lane, handle] of active) {
        const opts = options(lane);
        await provider.down(handle, opts).catch(() => undefined);
        if (provider.name === 'embedded') rmSync(opts.workDir, { recursive: true, force: true });
      }
      process.exit(130);
    })();
  });
}

function options(lane: string) {
  // kind clusters outlive a run (get-or-create), so their files keep one place per lane; an
  // embedded cluster lives and dies with this process, so its files are this run's alone and
  // concurrent runs on one machine cannot overwrite each other's kubeconfig.
  const workDir = join(ROOT, '.cluster', provider.name, provider.name === 'embedded' ? `${lane}-${process.pid}` : lane);
  mkdirSync(workDir, { recursive: true });
  return { keep: !!values.keep, workDir, progress: (line: string) => process.stdout.write(`[${lane}] ${line}\n`) };
}

const results = new Map<string, Outcome[]>();
let failed = false;
for (const lane of lanes) {
  if (interrupted) break;
  const opts = options(lane.name);
  const reportDir = join(resolve(values['report-dir'] ?? join(ROOT, 'reports')), lane.name);
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  opts.progress(`${lane.description}`);
  let handle: ClusterHandle;
  try {
    handle = await provider.up({ lane: lane.name, agentSandbox: lane.agentSandbox, images: FIXTURE_PROGRAMS }, opts);
  } catch (error) {
    process.stderr.write(`[${lane.name}] error: could not bring up the cluster: ${(error as Error).message}\n`);
    failed = true;
    continue;
  }
  active.set(lane.name, handle);
  try {
    if (lane.operator) opts.progress(`operator: labelled workspace namespaces ${(await prepareOperatorWorkspaces(handle.kubeconfigPath, lane)).join(', ')}`);
    const handlePath = join(opts.workDir, 'handle.json');
    writeFileSync(handlePath, JSON.stringify(handle, null, 2));
    opts.progress(`running scenarios (driver: ${externalSocket ? `external at ${externalSocket}` : variant}${lane.driver.deployment === 'external' && !externalSocket ? ', as an external process' : ''})`);
    // Scenarios mostly wait on the cluster, so more workers than cores pay off; --workers after -- wins.
    const workers = playwrightArgs.some((a) => a.startsWith('--workers') || a === '-j') ? [] : ['--workers', String(LANE_WORKERS)];
    running = execa(join(ROOT, 'node_modules/.bin/playwright'), ['test', '--project', lane.name, ...workers, ...playwrightArgs], {
      cwd: ROOT,
      stdio: 'inherit',
      reject: false,
      env: { [HANDLE_ENV]: handlePath, CONFORMANCE_REPORT_DIR: reportDir, [DRIVER_VARIANT_ENV]: variant, ...(externalSocket ? { [DRIVER_SOCKET_ENV]: externalSocket } : {}) },
    });
    const result = await running;
    running = undefined;
    if (interrupted) await new Promise(() => undefined); // the signal handler tears down and exits 130
    const outcomes = readOutcomes(join(reportDir, 'results.json'));
    results.set(lane.name, outcomes);
    writeFileSync(join(reportDir, 'summary.md'), `### ${lane.name} on ${provider.name} (driver: ${variant})\n\n${summaryTable(new Map([[lane.name, outcomes]]))}\n`);
    if (result.exitCode !== 0) {
      failed = true;
      if (provider.exportLogs) {
        opts.progress('exporting cluster logs for the failure report');
        await provider.exportLogs(handle, join(reportDir, 'cluster-logs')).catch((e: Error) => opts.progress(`could not export logs: ${e.message}`));
      }
    }
  } finally {
    if (values.keep && provider.name === 'embedded') {
      opts.progress(`--keep: the embedded cluster keeps running; KUBECONFIG=${handle.kubeconfigPath}; Ctrl-C to stop it`);
      await new Promise(() => undefined);
    }
    if (!interrupted) {
      await provider.down(handle, opts);
      active.delete(lane.name);
      if (provider.name === 'embedded') rmSync(opts.workDir, { recursive: true, force: true });
    }
  }
}

if (results.size) {
  process.stdout.write(`\nLane x scenario (driver: ${externalSocket ? 'external' : variant}; reports in reports/<lane>/)\n\n${summaryTable(results)}\n\n`);
}
process.exit(failed ? 1 : 0);

async function assertListening(socket: string): Promise<void> {
  await new Promise<void>((ok) => {
    const s = connect(socket);
    s.once('connect', () => {
      s.destroy();
      ok();
    });
    s.once('error', (error) => fail(`no compute driver is listening on ${socket} (${error.message}); start one with \`npm run driver -- serve --socket ${socket}\``));
  });
}

async function printList(): Promise<void> {
  process.stdout.write('Lanes\n');
  for (const lane of LANES) {
    process.stdout.write(`  ${lane.name.padEnd(16)} Agent Sandbox ${lane.agentSandbox.version} (${lane.agentSandbox.apiVersion}), driver ${lane.driver.workspaceMode} mode ${lane.driver.deployment}${lane.aliases.length ? `; alias ${lane.aliases.join(', ')}` : ''}\n`);
    for (const l of lane.lacks) process.stdout.write(`    lacks ${l.capability}: ${l.reason}\n`);
  }
  const listing = await execa(join(ROOT, 'node_modules/.bin/playwright'), ['test', '--list', '--project', LANES[1].name, '--reporter', 'list'], { cwd: ROOT, reject: false, env: { [HANDLE_ENV]: '/dev/null' } });
  process.stdout.write('\nScenarios (each runs in every lane)\n');
  for (const line of listing.stdout.split('\n')) {
    const m = /›\s+(.*)$/.exec(line);
    if (m && line.includes('.spec.ts')) process.stdout.write(`  ${line.replace(/^\s*\[[^\]]+\]\s+›\s+/, '')}\n`);
  }
  process.stdout.write('\nInvariants\n');
  for (const i of INVARIANTS) process.stdout.write(`  ${i.id}\n    ${i.title}\n    source: ${i.source}\n`);
}
