/**
 * `npm run lane -- <lane> [options] [-- <playwright args>]`: the command line of the lane
 * runner. Parses and checks the options (a clear message and exit 2 on bad input), prints
 * `--help` and `--list`, picks the cluster provider, then runs the lanes.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import type { FixtureImage } from '../../cluster/cluster-provider.ts';
import { chooseProvider } from '../../cluster/select.ts';
import { KNOWN_AGENT_SANDBOX_VERSIONS } from '../../cluster/agent-sandbox-release.ts';
import { CAPABILITY_NAMES, parseCapabilities, readConformanceFile, type ConformanceFile, type DeclaredCapabilities } from '../capabilities.ts';
import { findLane, LANES, type Lane } from '../index.ts';
import { readRolesFile } from '../openshell-roles.ts';
import { laneOnRelease } from '../release-axis.ts';
import { DRIVER_VARIANTS } from '../../driver/compute-driver.ts';
import { readSchedule } from '../../faults/schedule/parse-schedule.ts';
import { itemNeeds, type Schedule } from '../../faults/schedule/schedule.ts';
import { LANE_RUN_ENV, type DriverUnderTest } from './lane-run.ts';
import { PLAYWRIGHT_CLI, PLAYWRIGHT_CONFIG, ROOT, type LaneRunOptions } from './lane-job.ts';
import { CONTRACT, harnessVersion } from './conformance-report.ts';
import { runLanes } from './run-lanes.ts';

/** What the lane runner is given from outside lanes/: the fixture programs and the invariants the timeline engine registers. */
export interface LaneCommandContext {
  images: readonly FixtureImage[];
  invariants: readonly { id: string; title: string; source: string }[];
  /**
   * How the command is invoked, for its help and messages (`npm run lane --`, or
   * `sandbox-conformance run`), where reports go by default and where cluster files go.
   * Default: the checkout's (`reports/`, `.cluster/`).
   */
  invocation?: { command: string; defaultReportDir: string; workRoot?: (reportRoot: string) => string };
}

/** The lane command's --help (the docs test checks it names every option). */
export const laneHelp = (command: string, defaultReportDir: string) => `Usage: ${command} <lane>... [options] [-- <playwright args>]
       ${command} --all [options]          (all ${LANES.length} lanes, side by side)
       ${command} --list                   (lanes, scenarios and invariants)

Lanes: ${LANES.map((l) => (l.aliases.length ? `${l.name} (alias ${l.aliases.join(', ')})` : l.name)).join(', ')}

Options:
  --cluster embedded|kind|existing   where to run (default: kind when kind >= v0.27, a running
                                     Docker daemon and kubectl are found, else embedded; the
                                     choice is printed)
  --agent-sandbox VERSION            run the lanes on another Agent Sandbox release (${KNOWN_AGENT_SANDBOX_VERSIONS.join(', ')});
                                     only one under which the driver uses the lane's Sandbox API
                                     version (v0.4.6 for v1alpha1, v0.5.x for the others). Reports
                                     name the lane <lane>-<version>
  --realism on|off                   embedded cluster: the Agent Sandbox controller's real-cluster
                                     timing (lagging cache, reconcile latency, conflict retries);
                                     default on
  --seed N                           the run's one seed (default: drawn; printed at lane start
                                     and in summary.md). It seeds the embedded cluster's controller
                                     timing and, in lanes with driver replicas (ha), the routing of
                                     each call to a replica (per test: derived from N and the
                                     test's title and repeat index). The same seed replays both.
                                     On kind and existing clusters only for lanes with replicas
                                     (routing alone)
  --driver reference|<defect variant>|exec=<command>|external=<socket>
                                     the driver under test (default: reference). Defect variants:
                                     suspend-first (the pre-#3424 ordering defect) and
                                     headroom-deadline (waits for the supervisor only the API
                                     headroom) fail the suite; stale-supervisor-read,
                                     watch-trusting-wait, resume-skips-wait and
                                     conflict-as-success fail only under faults (the fault scenarios);
                                     expired-watch-as-gone, error-as-gone and stale-start-read pass
                                     every scenario and fail only where npm run explore finds them.
                                     exec='CMD ARGS' starts a compute driver binary per test as
                                     CMD ARGS --bind-socket <path> with KUBECONFIG set (and
                                     restarts it for crash scenarios); external=<socket> tests a
                                     driver you run yourself.
  --faults FILE                      a fault schedule (JSON or YAML; README "Fault schedules") every
                                     test runs over its body, beside a scenario's own: faults
                                     between the driver and the API server, fired by triggers,
                                     recorded in each test's timeline
  --fault-proxy SOCKET               with --driver external=: the control socket of the fault
                                     proxy your driver reaches the cluster through (\`npm run
                                     fault-proxy\`); fault schedules then act on its requests, one
                                     test at a time
  --roles FILE                       YAML mapping sandbox, supervisorPod, workloadPod and
                                     generationSecrets to label selectors with {id} (default:
                                     OpenShell's labels): how the harness finds the objects
  --keep                             keep the cluster afterwards (kind: not deleted; embedded: keeps
                                     running until Ctrl-C)
  --report-dir DIR                   where reports go (default: ${defaultReportDir}); a folder per
                                     lane, and conformance-report.yaml for the whole run
  --reports full|results             full (default): every report below; results: only
                                     results.json, summary.md and conformance-report.yaml, no HTML,
                                     JUnit or blob report (~3 CPU-seconds less per lane, for runs
                                     nobody opens)
  --scenarios DIR                    your own *.spec.ts (importing sandbox-conformance/fixtures),
                                     run beside the suite as the project <lane>/yours
  --capabilities LIST                what the driver supports, comma-separated (${CAPABILITY_NAMES.join(', ')});
                                     a scenario needing one not listed is skipped with the reason
                                     (default: conformance.yaml's capabilities:, else all)
  --conformance FILE                 the driver's declaration (default: ./conformance.yaml when it
                                     exists): driver: {name, version} and capabilities: [...]
  --driver-version V                 the driver's version for conformance-report.yaml (default:
                                     conformance.yaml, else the driver's GetCapabilities answer)
  --grep REGEX, --workers N, --repeat-each N
                                     passed to Playwright (as after --)
  --all                              every lane
  --serial                           several lanes: one after the other, Playwright printing
                                     straight to the terminal (default: side by side, each on its
                                     own cluster, one progress line per lane, then each lane's
                                     output whole; lanes on one existing cluster always run one
                                     after the other, saying why)
  --list                             print lanes, scenarios and invariants, then exit
  -h, --help                         this help

Everything after -- goes to Playwright, e.g. -- --grep stop-ordering --repeat-each 3
Reports: ${defaultReportDir}<lane>/ (html/index.html opens offline, junit.xml, results.json, summary.md)
Exit status: 0 every scenario passed (or was skipped), 1 a scenario or a lane failed, 2 bad usage,
130 interrupted

Docs: docs/lanes.md
`;

/** The lane command's options (`npm run lane`, `sandbox-conformance run`). */
export const LANE_OPTIONS = {
  'report-dir': { type: 'string' },
  reports: { type: 'string' },
  cluster: { type: 'string' },
  'agent-sandbox': { type: 'string' },
  realism: { type: 'string' },
  seed: { type: 'string' },
  driver: { type: 'string' },
  roles: { type: 'string' },
  faults: { type: 'string' },
  'fault-proxy': { type: 'string' },
  keep: { type: 'boolean' },
  all: { type: 'boolean' },
  serial: { type: 'boolean' },
  list: { type: 'boolean' },
  scenarios: { type: 'string' },
  capabilities: { type: 'string' },
  conformance: { type: 'string' },
  'driver-version': { type: 'string' },
  grep: { type: 'string' },
  workers: { type: 'string' },
  'repeat-each': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * The lane command's arguments checked as the command checks them before it starts anything:
 * its own options (an unknown one throws), the lanes named (an unknown lane throws), the release
 * (one that does not fit a lane throws) and the driver (an unknown variant throws). Reads no
 * file and starts nothing; the docs test checks every documented command with it.
 */
export function parseLaneArguments(argv: string[]): { values: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof LANE_OPTIONS }>>['values']; lanes: Lane[]; playwrightArgs: string[] } {
  const separator = argv.indexOf('--');
  const ownArgs = separator >= 0 ? argv.slice(0, separator) : argv;
  const playwrightArgs = separator >= 0 ? argv.slice(separator + 1) : [];
  const { values, positionals } = parseArgs({ args: ownArgs, allowPositionals: true, options: LANE_OPTIONS });
  let lanes = values.all ? [...LANES] : positionals.map(findLane);
  const release = values['agent-sandbox'];
  if (release !== undefined) lanes = lanes.map((lane) => laneOnRelease(lane, release, LANES));
  const driver = values.driver;
  if (driver !== undefined && !driver.startsWith('exec=') && !driver.startsWith('external=') && !DRIVER_VARIANTS.some((v) => v === driver)) {
    throw new Error(`unknown driver "${driver}"; choose ${DRIVER_VARIANTS.join(', ')}, exec=<command> or external=<socket>`);
  }
  reportsOption(values.reports);
  return { values, lanes, playwrightArgs };
}

/** `--reports`: which reports Playwright writes; undefined for the default (every one). */
function reportsOption(value: string | undefined): LaneRunOptions['reports'] {
  if (value !== undefined && value !== 'full' && value !== 'results') throw new Error(`--reports must be full or results, got "${value}"`);
  return value;
}

let usageHint = 'npm run lane -- --help';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\nRun \`${usageHint}\` for usage.\n`);
  process.exit(2);
}

/** Runs the command; resolves to the exit code. */
export async function runLaneCommand(argv: string[], context: LaneCommandContext): Promise<number> {
  const invocation = context.invocation ?? { command: 'npm run lane --', defaultReportDir: 'reports/' };
  usageHint = `${invocation.command} --help`;
  const separator = argv.indexOf('--');
  const ownArgs = separator >= 0 ? argv.slice(0, separator) : argv;
  const playwrightArgs = separator >= 0 ? argv.slice(separator + 1) : [];

  let parsed;
  try {
    parsed = parseArgs({
      args: ownArgs,
      allowPositionals: true,
      options: LANE_OPTIONS,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(laneHelp(invocation.command, invocation.defaultReportDir));
    return 0;
  }
  if (values.list) {
    await printList(context);
    return 0;
  }

  let lanes: Lane[];
  try {
    lanes = values.all ? [...LANES] : positionals.map(findLane);
    const release = values['agent-sandbox'];
    if (release !== undefined) lanes = lanes.map((lane) => laneOnRelease(lane, release, LANES));
  } catch (error) {
    fail((error as Error).message);
  }
  if (lanes.length === 0) fail('name a lane (or --all)');
  let reports: LaneRunOptions['reports'];
  try {
    reports = reportsOption(values.reports);
  } catch (error) {
    fail((error as Error).message);
  }
  const realism = realismOption(values.realism);
  const seed = seedOption(values.seed);
  const routed = lanes.some((lane) => (lane.driver.replicas ?? 1) > 1);
  if (realism === 'off' && seed !== undefined && !routed) fail('--seed seeds the realism (and the routing of lanes with driver replicas); with --realism off and no such lane there is nothing to seed');

  const driver = driverUnderTest(values.driver ?? 'reference');
  if (driver.kind === 'socket') await assertListening(driver.socket);
  const faultProxyControl = values['fault-proxy'] === undefined ? undefined : resolve(values['fault-proxy']);
  if (faultProxyControl !== undefined) {
    if (driver.kind !== 'socket') fail(`--fault-proxy is for a driver you serve yourself (--driver external=<socket>); the harness puts the drivers it starts behind a fault proxy of its own`);
    if (values.workers !== undefined && values.workers !== '1') fail(`--fault-proxy runs one test at a time (a schedule's faults act on every request of the driver), got --workers ${values.workers}`);
    await assertFaultProxy(faultProxyControl);
  }
  let roles;
  try {
    roles = values.roles === undefined ? undefined : readRolesFile(resolve(values.roles));
  } catch (error) {
    fail((error as Error).message);
  }

  let faults: { schedule: Schedule; file: string } | undefined;
  try {
    faults = values.faults === undefined ? undefined : { schedule: readSchedule(resolve(values.faults)), file: values.faults };
  } catch (error) {
    fail((error as Error).message);
  }

  const scenariosDir = values.scenarios === undefined ? undefined : resolve(values.scenarios);
  if (scenariosDir !== undefined && !statSync(scenariosDir, { throwIfNoEntry: false })?.isDirectory()) fail(`--scenarios ${values.scenarios}: no such folder`);
  for (const [flag, value] of [['--workers', values.workers], ['--repeat-each', values['repeat-each']]] as const) {
    if (value !== undefined && !/^[1-9]\d*$/.test(value)) fail(`${flag} must be a whole number >= 1, got "${value}"`);
  }
  const passed = [
    ...(values.grep !== undefined ? ['--grep', values.grep] : []),
    ...(values.workers !== undefined || faultProxyControl !== undefined ? ['--workers', values.workers ?? '1'] : []),
    ...(values['repeat-each'] !== undefined ? ['--repeat-each', values['repeat-each']] : []),
  ];
  let declaration: ConformanceFile = {};
  let capabilities: DeclaredCapabilities | undefined;
  try {
    const file = values.conformance ?? (existsSync('conformance.yaml') ? 'conformance.yaml' : undefined);
    if (file !== undefined) declaration = readConformanceFile(resolve(file));
    if (values.capabilities !== undefined) capabilities = { declared: parseCapabilities(values.capabilities.split(',').map((c) => c.trim()).filter(Boolean), '--capabilities'), source: '--capabilities' };
    else if (declaration.capabilities) capabilities = { declared: declaration.capabilities, source: file! };
  } catch (error) {
    fail((error as Error).message);
  }

  let chosen;
  try {
    chosen = await chooseProvider(values.cluster);
  } catch (error) {
    fail((error as Error).message);
  }
  const harness = harnessVersion();
  process.stdout.write(`${harness.name} ${harness.version}: contract ${CONTRACT}; Agent Sandbox releases ${KNOWN_AGENT_SANDBOX_VERSIONS.join(', ')}\n`);
  process.stdout.write(`cluster: ${chosen.provider.name} (${chosen.reason})\n`);
  const embeddedOnly = faults?.schedule.items.filter((i) => itemNeeds(i).includes('embedded-cluster')) ?? [];
  if (embeddedOnly.length && chosen.provider.name !== 'embedded') {
    fail(`${values.faults}: ${embeddedOnly.map((i) => `item "${i.id}" (${i.fault.kind})`).join(', ')} needs the embedded cluster's own fault hooks, and this run is on ${chosen.provider.name} (use --cluster embedded, or drop the item)`);
  }
  const reachable = (need: string) => need === 'admission-policy' || need === 'embedded-cluster' || (need === 'driver-through-proxy' && faultProxyControl !== undefined);
  const outOfReach = driver.kind === 'socket' ? (faults?.schedule.items.filter((i) => !itemNeeds(i).every(reachable)) ?? []) : [];
  if (outOfReach.length && driver.kind === 'socket') {
    fail(
      faultProxyControl
        ? `${values.faults}: ${outOfReach.map((i) => `item "${i.id}" (${i.fault.kind})`).join(', ')} crashes or multiplies the driver, and the driver at ${driver.socket} is not the harness's to start; run it with --driver exec='…'`
        : `${values.faults}: ${outOfReach.map((i) => `item "${i.id}" (${i.fault.kind})`).join(', ')} acts on the driver's requests or process, and the driver at ${driver.socket} was started by someone else with its own kubeconfig; serve it behind \`npm run fault-proxy\` and pass --fault-proxy, or run it with --driver exec='…' so the harness starts it behind the fault proxy`,
    );
  }
  const embedded = chosen.provider.name === 'embedded';
  if (!embedded && (realism !== undefined || (seed !== undefined && !routed))) {
    fail(`--realism and --seed set the timing of the embedded cluster's simulated Agent Sandbox controller; the ${chosen.provider.name} cluster runs the real controller (choose --cluster embedded${seed !== undefined && realism === undefined ? '; --seed seeds only the replica routing there, for lanes with driver replicas such as ha' : ''})`);
  }
  // One seed per run, for the controller's timing and the replica routing alike.
  const runSeed = seed ?? randomBytes(4).readUInt32BE();
  const reportRoot = resolve(values['report-dir'] ?? (context.invocation ? invocation.defaultReportDir : join(ROOT, 'reports')));
  return runLanes({
    lanes,
    seed: runSeed,
    agentSandboxRealism: embedded ? (realism === 'off' ? { enabled: false } : { enabled: true, seed: runSeed }) : undefined,
    provider: chosen.provider,
    driver,
    roles,
    faults,
    faultProxyControl,
    images: context.images,
    invariantIds: context.invariants.map((i) => i.id),
    reportRoot,
    workRoot: invocation.workRoot ? invocation.workRoot(reportRoot) : join(ROOT, '.cluster'),
    keep: !!values.keep,
    serial: !!values.serial,
    ...(reports && { reports }),
    playwrightArgs: [...passed, ...playwrightArgs],
    scenariosDir,
    capabilities,
    conformanceReport: {
      driver: { ...declaration.driver, ...(values['driver-version'] !== undefined && { version: values['driver-version'] }) },
    },
  });
}

/** `--realism on|off`; undefined when not given (on for the embedded cluster). */
function realismOption(realism: string | undefined): 'on' | 'off' | undefined {
  if (realism !== undefined && realism !== 'on' && realism !== 'off') fail(`--realism must be "on" or "off", got "${realism}"`);
  return realism;
}

/** `--seed N`: a whole number; undefined when not given (the run draws one). */
function seedOption(seed: string | undefined): number | undefined {
  if (seed === undefined) return undefined;
  const n = Number(seed);
  if (!/^\d+$/.test(seed) || !Number.isSafeInteger(n)) fail(`--seed must be a whole number >= 0, got "${seed}"`);
  return n;
}

function driverUnderTest(flag: string): DriverUnderTest {
  if (flag.startsWith('external=')) return { kind: 'socket', socket: resolve(flag.slice('external='.length)) };
  if (flag.startsWith('exec=')) {
    const command = flag.slice('exec='.length).trim();
    if (!command) fail(`--driver exec= needs a command, e.g. --driver exec='npm run -s driver -- serve'`);
    return { kind: 'exec', command };
  }
  const variant = DRIVER_VARIANTS.find((v) => v === flag);
  if (variant) return { kind: 'harness', variant };
  fail(`unknown driver "${flag}"; choose ${DRIVER_VARIANTS.join(', ')}, exec=<command> or external=<socket>`);
}

function assertListening(socket: string): Promise<void> {
  return assertAnswers(socket, (error) => `no compute driver is listening on ${socket} (${error.message}); start one with \`npm run driver -- serve --bind-socket ${socket}\``);
}

function assertFaultProxy(control: string): Promise<void> {
  return assertAnswers(control, (error) => `--fault-proxy ${control}: no fault proxy answers there (${error.message}); start one with \`npm run fault-proxy -- --control ${control} --write-kubeconfig FILE\` and your driver with KUBECONFIG=FILE`);
}

/** Resolves once something accepts a connection on the Unix socket; fails the command with `why` otherwise. */
async function assertAnswers(socket: string, why: (error: Error) => string): Promise<void> {
  await new Promise<void>((ok) => {
    const s = connect(socket);
    s.once('connect', () => {
      s.destroy();
      ok();
    });
    s.once('error', (error) => fail(why(error)));
  });
}

/** Lanes, the scenarios (as Playwright lists them, no cluster needed) and the registered invariants. */
async function printList({ invariants }: LaneCommandContext): Promise<void> {
  process.stdout.write('Lanes\n');
  for (const lane of LANES) {
    const replicas = (lane.driver.replicas ?? 1) > 1 ? ` x${lane.driver.replicas} replicas` : '';
    process.stdout.write(`  ${lane.name.padEnd(16)} Agent Sandbox ${lane.agentSandbox.version} (${lane.agentSandbox.apiVersion}), driver ${lane.driver.workspaceMode} mode ${lane.driver.deployment}${replicas}${lane.aliases.length ? `; alias ${lane.aliases.join(', ')}` : ''}\n`);
    for (const l of lane.lacks) process.stdout.write(`    lacks ${l.capability}: ${l.reason}\n`);
  }
  // Without a run value the config has one scenario project, `scenarios`; listing needs no cluster.
  const listing = await execa(process.execPath, [PLAYWRIGHT_CLI, 'test', '--config', PLAYWRIGHT_CONFIG, '--list', '--project', 'scenarios', '--reporter', 'list'], { cwd: ROOT, reject: false, timeout: 60_000, env: { [LANE_RUN_ENV]: '' } });
  process.stdout.write('\nScenarios (each runs in every lane)\n');
  for (const line of listing.stdout.split('\n')) {
    const m = /›\s+(.*)$/.exec(line);
    if (m && /\.spec\.[cm]?[jt]s:/.test(line)) process.stdout.write(`  ${line.replace(/^\s*\[[^\]]+\]\s+›\s+/, '')}\n`);
  }
  process.stdout.write('\nInvariants\n');
  for (const i of invariants) process.stdout.write(`  ${i.id}\n    ${i.title}\n    source: ${i.source}\n`);
}
