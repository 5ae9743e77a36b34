#!/usr/bin/env node
/**
 * `sandbox-conformance`: the package's command, kubectl-like, thin over the code the npm scripts
 * run (`run` and `list` are lanes/run/lane-command.ts, `driver` is driver/cli/, `manifests` the
 * resolver's cache). Every subcommand loads only what it needs, so `driver serve`, started once
 * per test by `--driver exec=`, starts fast.
 *
 * Exit status: 0 all passed, 1 a scenario (or the environment) failed, 2 bad usage, 130 interrupted.
 */
import { UsageError } from './usage.ts';

const HELP = `Usage: sandbox-conformance <command> [arguments] [options]

Conformance of a Kubernetes sandbox compute driver (OpenShell's openshell.compute.v1 contract)
on Agent Sandbox: its sandbox lifecycle run against a cluster, every Pod, Sandbox and Secret
change watched, the order of operations judged by invariants.

Commands:
  run <lane>...       run the suite's lanes against a driver (and your own --scenarios)
  list                the lanes, scenarios and invariants
  cluster up|down     a lane's cluster on its own (kind or embedded)
  driver serve        the reference driver on a Unix socket (to compare against); other driver
                      subcommands are a client of any driver
  fault-proxy         the fault proxy on its own, in front of a driver you start (external=)
  manifests fetch     cache the Agent Sandbox release manifests (sha256-checked) for offline runs
  report merge        blob reports of several runs -> one HTML + JUnit report and summary
  init                write a GitHub workflow, conformance.yaml and an example scenario here
  version             the harness version, the contract and the Agent Sandbox releases

Run 'sandbox-conformance <command> --help' for a command's options.

Examples:
  npx sandbox-conformance run v1beta1 --driver exec='my-driver --namespace openshell'
  npx sandbox-conformance run v1beta1 --driver exec='npx sandbox-conformance driver serve'
  npx sandbox-conformance run v1beta1 managed --driver external=/tmp/driver.sock --scenarios ./conformance

Exit status: 0 all passed, 1 a scenario failed, 2 bad usage, 130 interrupted.

Docs: README.md; the package and the GitHub Action: docs/ci.md
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      process.stderr.write(HELP);
      return 2;
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(HELP);
      return 0;
    case 'version':
    case '--version': {
      const { CONTRACT, harnessVersion } = await import('../lanes/run/conformance-report.ts');
      const { KNOWN_AGENT_SANDBOX_VERSIONS } = await import('../cluster/agent-sandbox-release.ts');
      const { name, version } = harnessVersion();
      process.stdout.write(`${name} ${version}\ncontract: ${CONTRACT}\nAgent Sandbox releases: ${KNOWN_AGENT_SANDBOX_VERSIONS.join(', ')}\n`);
      return 0;
    }
    case 'run':
    case 'list': {
      const { runCommand } = await import('./run-command.ts');
      return runCommand(command === 'list' ? ['--list', ...rest] : rest);
    }
    case 'cluster': {
      const { clusterCommand } = await import('./cluster-command.ts');
      return clusterCommand(rest);
    }
    case 'driver': {
      // The driver command as `npm run driver --` runs it: it prints its own help, exits 2 on bad usage.
      const { parseInvocation, setProgram } = await import('../driver/cli/options.ts');
      setProgram('sandbox-conformance driver');
      const invocation = parseInvocation(rest);
      // `serve` from the driver's bundle (driver/launch/bundled-driver.ts), once its usage is checked here.
      if (invocation.command === 'serve') (await import('../driver/launch/bundled-driver.ts')).serveFromBundle(rest);
      else await (await import('../driver/cli/client-commands.ts')).runClientCommand(invocation);
      return 0;
    }
    case 'fault-proxy': {
      const { serveFaultProxy, FaultProxyUsageError } = await import('../faults/remote/serve-command.ts');
      try {
        return await serveFaultProxy(rest, 'sandbox-conformance fault-proxy');
      } catch (error) {
        if (error instanceof FaultProxyUsageError) throw new UsageError(error.message, 'fault-proxy');
        throw error;
      }
    }
    case 'manifests': {
      const { manifestsCommand } = await import('./manifests-command.ts');
      return manifestsCommand(rest);
    }
    case 'report': {
      const { reportCommand } = await import('./report-command.ts');
      return reportCommand(rest);
    }
    case 'init': {
      const { initCommand } = await import('./init-command.ts');
      return initCommand(rest);
    }
    default:
      throw new UsageError(`unknown command "${command}"; run 'sandbox-conformance --help' for the commands`);
  }
}

try {
  const code = await main(process.argv.slice(2));
  // `driver serve` keeps serving until a signal; every other command ends here.
  if (process.argv[2] !== 'driver') process.exit(code);
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n\nRun 'sandbox-conformance ${error.command ? `${error.command} ` : ''}--help' for usage.\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
