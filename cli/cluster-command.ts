/**
 * `sandbox-conformance cluster up|down <lane>`: a lane's cluster on its own, for a driver team
 * that wants to poke at it, or to keep one kind cluster across runs (`run` reuses a kind cluster
 * that answers). The files go where `run` puts them: `<report-dir>/.cluster/<provider>/<lane>/`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chooseProvider } from '../cluster/select.ts';
import { KindProvider, kindClusterName } from '../cluster/kind/kind-provider.ts';
import { laneOnRelease } from '../lanes/release-axis.ts';
import { findLane, LANES } from '../lanes/index.ts';
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { DEFAULT_REPORT_DIR, UsageError } from './usage.ts';

export const CLUSTER_HELP = `Usage: sandbox-conformance cluster up <lane> [options]
       sandbox-conformance cluster down <lane> [--report-dir DIR]

up    brings up the lane's cluster (its Agent Sandbox release installed, the fixture images
      loaded) and prints its kubeconfig. kind: the cluster stays (get-or-create: \`run\` reuses it
      while it answers); embedded: it runs in the foreground until Ctrl-C.
down  deletes the lane's kind cluster (sandbox-conformance-<lane>).

Options:
  --cluster embedded|kind    where (default: kind when kind >= v0.27, a running Docker daemon and
                             kubectl are found, else embedded)
  --agent-sandbox VERSION    another Agent Sandbox release for the lane
  --report-dir DIR           where run files go (default: ${DEFAULT_REPORT_DIR}); the kubeconfig is
                             under DIR/.cluster/<provider>/<lane>/
  -h, --help                 this help

Docs: docs/kind.md and docs/embedded-cluster.md (the clusters), docs/lanes.md (the lanes)
`;

export async function clusterCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(CLUSTER_HELP);
    return 0;
  }
  const [action, laneName, ...extra] = positionals;
  if (action !== 'up' && action !== 'down') throw new UsageError(action === undefined ? 'cluster: name an action, up or down' : `cluster: unknown action "${action}"; choose up or down`, 'cluster');
  if (laneName === undefined || extra.length) throw new UsageError(`cluster ${action}: name one lane`, 'cluster');
  let lane;
  try {
    lane = findLane(laneName);
    if (values['agent-sandbox'] !== undefined) lane = laneOnRelease(lane, values['agent-sandbox'], LANES);
  } catch (error) {
    throw new UsageError((error as Error).message, 'cluster');
  }
  const workRoot = join(resolve(values['report-dir'] ?? DEFAULT_REPORT_DIR), '.cluster');
  const progress = (line: string) => process.stdout.write(`[${lane.name}] ${line}\n`);
  if (action === 'down') {
    const provider = new KindProvider();
    const workDir = join(workRoot, 'kind', lane.name);
    const name = kindClusterName({ lane: lane.name });
    await provider.down({ provider: 'kind', lane: lane.name, name, kubeconfigPath: join(workDir, `${name}.kubeconfig`), capabilities: [], lacks: [] }, { keep: false, workDir, progress });
    return 0;
  }
  if (values.cluster === 'existing') throw new UsageError('cluster up: an existing cluster is already up; choose embedded or kind', 'cluster');
  let chosen;
  try {
    chosen = await chooseProvider(values.cluster);
  } catch (error) {
    throw new UsageError((error as Error).message, 'cluster');
  }
  const { provider } = chosen;
  process.stdout.write(`cluster: ${provider.name} (${chosen.reason})\n`);
  const workDir = join(workRoot, provider.name, provider.name === 'kind' ? lane.name : `${lane.name}-${process.pid}`);
  mkdirSync(workDir, { recursive: true });
  const options = { keep: true, workDir, progress };
  const handle = await provider.up({ lane: lane.name, agentSandbox: lane.agentSandbox, images: FIXTURE_PROGRAMS }, options);
  process.stdout.write(`ready: KUBECONFIG=${handle.kubeconfigPath}\n`);
  if (provider.name !== 'embedded') return 0;
  process.stdout.write('the embedded cluster runs until Ctrl-C\n');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await provider.down(handle, { ...options, keep: false });
  rmSync(workDir, { recursive: true, force: true });
  return 0;
}

/** `sandbox-conformance cluster`'s options. */
export const CLUSTER_OPTIONS = { cluster: { type: 'string' }, 'agent-sandbox': { type: 'string' }, 'report-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: CLUSTER_OPTIONS,
    });
  } catch (error) {
    throw new UsageError((error as Error).message, 'cluster');
  }
}
