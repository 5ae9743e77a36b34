#!/usr/bin/env tsx
/**
 * `npm run cluster -- up [--kubeconfig FILE]`: runs the embedded cluster in the foreground
 * until SIGINT/SIGTERM.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_SANDBOX_VERSIONS, type AgentSandboxVersion } from '../cluster/embedded/agent-sandbox/install.ts';
import { describeRealism } from '../cluster/embedded/agent-sandbox/realism.ts';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../fixtures/programs/catalogue.ts';

const HELP = `Usage: npm run cluster -- up [options]

Starts the embedded Kubernetes cluster in the foreground: API server, control-plane
controllers, and a node agent that runs containers as host processes (the fixture images
sandbox-conformance/workload and /supervisor, or any container that gives a command).
Writes a kubeconfig, prints one line with "ready" and the kubeconfig path, and stops
cleanly on Ctrl-C (SIGINT) or SIGTERM, leaving no container process behind.

Options:
  --kubeconfig FILE         where to write the kubeconfig (default: .cluster/embedded/kubeconfig)
  --port N                  API server port on 127.0.0.1 (default: a free port)
  --agent-sandbox VERSION   install Agent Sandbox: its CRDs and a controller with that
                            version's behaviour (${AGENT_SANDBOX_VERSIONS.join(', ')}); default: none
  --realism on|off          Agent Sandbox controller timing: on (default) reads through a
                            lagging cache, reconciles with latency, retries conflicts with
                            backoff, as on a real cluster; off reacts at once on fresh reads
  --seed N                  seed of that timing (printed at start); the same seed replays the
                            same lags and latencies
  --no-node                 no node agent (API server and controllers only)
  -h, --help                show this help

Then, for example:
  KUBECONFIG=.cluster/embedded/kubeconfig kubectl get namespaces

Docs: docs/embedded-cluster.md
`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${HELP}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      kubeconfig: { type: 'string' },
      port: { type: 'string' },
      'agent-sandbox': { type: 'string' },
      realism: { type: 'string' },
      seed: { type: 'string' },
      'no-node': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (positionals[0] !== 'up' || positionals.length > 1) fail(positionals.length ? `unknown command "${positionals.join(' ')}"` : 'missing command "up"');
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) fail(`--port must be a number 0-65535, got "${values.port}"`);

const agentSandbox = values['agent-sandbox'];
if (agentSandbox !== undefined && !(AGENT_SANDBOX_VERSIONS as readonly string[]).includes(agentSandbox)) {
  fail(`unknown Agent Sandbox version "${agentSandbox}"; known: ${AGENT_SANDBOX_VERSIONS.join(', ')}`);
}

const realism = values.realism ?? 'on';
if (realism !== 'on' && realism !== 'off') fail(`--realism must be "on" or "off", got "${realism}"`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && (!Number.isSafeInteger(seed) || seed < 0)) fail(`--seed must be a whole number >= 0, got "${values.seed}"`);
if ((values.realism !== undefined || seed !== undefined) && !agentSandbox) fail('--realism and --seed apply to the Agent Sandbox controller: add --agent-sandbox VERSION');

const kubeconfigPath = resolve(values.kubeconfig ?? '.cluster/embedded/kubeconfig');
const cluster = await EmbeddedCluster.start({
  kubeconfigPath,
  port,
  node: values['no-node'] ? undefined : { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE },
  agentSandbox: agentSandbox as AgentSandboxVersion | undefined,
  agentSandboxRealism: { enabled: realism === 'on', seed },
}).catch((error: Error) => fail(`could not start the embedded cluster: ${error.message}`));
const sandboxNote = cluster.agentSandboxRealism ? ` with Agent Sandbox ${agentSandbox} (${describeRealism(cluster.agentSandboxRealism)})` : '';
process.stdout.write(`embedded cluster ready at ${cluster.url}${sandboxNote}; kubeconfig: ${kubeconfigPath}\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping the embedded cluster\n`);
    void cluster.stop().then(() => process.exit(0));
  });
}
