#!/usr/bin/env tsx
/**
 * `npm run driver -- serve --socket PATH …`: the Kubernetes compute driver as an external
 * driver on a Unix socket, in the foreground. `npm run driver -- --socket PATH <command> …`: a
 * small client for any driver on that socket.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DriverError, type ComputeDriver, type DriverVariant, type SandboxSpec, type WorkspaceMode } from '../driver/compute-driver.ts';
import { GrpcDriverClient } from '../driver/grpc/client.ts';
import { serveDriver } from '../driver/grpc/server.ts';

const HELP = `Usage:
  npm run driver -- serve --socket PATH [serve options]
  npm run driver -- --socket PATH <command> [arguments]

Serving
  serve runs the Kubernetes compute driver behind the gRPC service
  openshell.compute.v1.ComputeDriver on a Unix socket, in the foreground. It prints one line,
  "compute driver listening on PATH", once the socket accepts calls, and on Ctrl-C (SIGINT) or
  SIGTERM it stops and removes the socket. A socket file nobody listens on is replaced; a
  socket another process answers on is refused. Driver log lines go to stderr.

  --socket PATH                 the Unix socket to listen on (required)
  --kubeconfig FILE             the cluster to drive (default: $KUBECONFIG, else ~/.kube/config)
  --mode shared|managed|operator
                                workspace mode (default: shared)
  --namespace NS                shared mode: the namespace sandboxes live in (default: openshell)
  --variant reference|suspend-first
                                stop ordering; suspend-first is the pre-#3424 defect (default: reference)
  --supervisor-grace N          supervisor Pod terminationGracePeriodSeconds (default: 30)
  --workload-grace N            workload Pod terminationGracePeriodSeconds (default: 30)
  --api-headroom N              seconds of API headroom added to grace periods in deadlines (default: 30)
  --reconcile-interval-ms N     reconciliation interval; 0 turns the loop off (default: 30000)

Client commands (against any compute driver on --socket; results are printed as JSON)
  capabilities                  what the driver is and how it is configured
  list                          every sandbox
  get ID                        one sandbox
  create NAME [create options] -- CMD [ARG...]
                                create a sandbox running CMD; prints it once Ready
  validate NAME [create options] -- CMD [ARG...]
                                check a spec without creating anything
  stop ID                       stop a sandbox; returns once it is stopped
  start ID                      start a stopped sandbox; returns once it is Ready again
  delete ID                     delete a sandbox; prints {"deleted": true|false}
  watch                         print one JSON event per line until Ctrl-C

  Create options:
  --workspace W                 the sandbox's workspace (default: the driver's)
  --env KEY=VALUE               an environment variable for CMD (repeatable)
  --supervisor-grace N          this sandbox's supervisor grace period, seconds
  --workload-grace N            this sandbox's workload grace period, seconds

  A failing call prints "error: <CODE>: <message>" (CODE as in gRPC: NOT_FOUND,
  ALREADY_EXISTS, INVALID_ARGUMENT, FAILED_PRECONDITION, UNAVAILABLE, INTERNAL) and exits 1.

  -h, --help                    show this help

Exit status: 0 on success, 1 when the driver or the environment fails, 2 for a usage error.

Examples:
  npm run driver -- serve --socket /tmp/k8s-driver.sock --kubeconfig .cluster/embedded/kubeconfig
  npm run driver -- --socket /tmp/k8s-driver.sock create demo --workspace team-a -- sleep infinity
  npm run driver -- --socket /tmp/k8s-driver.sock stop 3f9c0e1d2a4b5c6d
`;

function usage(message: string): never {
  process.stderr.write(`error: ${message}\nRun "npm run driver -- --help" for usage.\n`);
  process.exit(2);
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

function failWith(error: unknown): never {
  if (error instanceof DriverError) fail(`${error.code}: ${error.message}`);
  fail(error instanceof Error ? error.message : String(error));
}

const OPTIONS = {
  socket: { type: 'string' },
  kubeconfig: { type: 'string' },
  mode: { type: 'string' },
  namespace: { type: 'string' },
  variant: { type: 'string' },
  'supervisor-grace': { type: 'string' },
  'reconcile-interval-ms': { type: 'string' },
  workspace: { type: 'string' },
  env: { type: 'string', multiple: true },
  'workload-grace': { type: 'string' },
  'api-headroom': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SERVE_ONLY = ['kubeconfig', 'mode', 'namespace', 'variant', 'api-headroom', 'reconcile-interval-ms'] as const;
const CREATE_ONLY = ['workspace', 'env'] as const;
/** Grace periods: the driver's defaults with serve, one sandbox's overrides with create and validate. */
const SERVE_OR_CREATE = ['supervisor-grace', 'workload-grace'] as const;
const COMMANDS = ['serve', 'capabilities', 'list', 'get', 'create', 'validate', 'stop', 'start', 'delete', 'watch'] as const;
type Command = (typeof COMMANDS)[number];

let parsed;
try {
  parsed = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
} catch (error) {
  usage((error as Error).message);
}
const { values, tokens } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

// Positionals before `--` are the command and its arguments; after it, the sandbox's command.
const terminator = tokens.findIndex((t) => t.kind === 'option-terminator');
const words = tokens.filter((t, i) => t.kind === 'positional' && (terminator < 0 || i < terminator)).map((t) => (t as { value: string }).value);
const trailing = terminator < 0 ? [] : tokens.slice(terminator + 1).map((t) => (t as { value: string }).value);
const [commandWord, ...args] = words;

if (!commandWord) usage(`missing command; one of ${COMMANDS.join(', ')}`);
if (!(COMMANDS as readonly string[]).includes(commandWord)) usage(`unknown command "${commandWord}"; one of ${COMMANDS.join(', ')}`);
const command = commandWord as Command;
if (!values.socket) usage(`--socket PATH is required`);
const isCreate = command === 'create' || command === 'validate';
for (const option of SERVE_ONLY) if (values[option] !== undefined && command !== 'serve') usage(`--${option} is only valid with serve`);
for (const option of CREATE_ONLY) if (values[option] !== undefined && !isCreate) usage(`--${option} is only valid with create and validate`);
for (const option of SERVE_OR_CREATE) if (values[option] !== undefined && command !== 'serve' && !isCreate) usage(`--${option} is only valid with serve, create and validate`);
if (terminator >= 0 && !isCreate) usage(`"--" and a command are only valid with create and validate`);

const expectedArgs: Record<Command, string[]> = {
  serve: [], capabilities: [], list: [], watch: [],
  get: ['ID'], stop: ['ID'], start: ['ID'], delete: ['ID'],
  create: ['NAME'], validate: ['NAME'],
};
if (args.length !== expectedArgs[command].length) {
  usage(expectedArgs[command].length ? `${command} takes ${expectedArgs[command].join(' ')}, got ${args.length ? args.map((a) => `"${a}"`).join(' ') : 'nothing'}` : `${command} takes no arguments, got ${args.map((a) => `"${a}"`).join(' ')}`);
}

function nonNegativeInteger(option: string): number | undefined {
  const raw = values[option as keyof typeof values] as string | undefined;
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < 0) usage(`--${option} must be a non-negative integer, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(option: string, allowed: readonly T[]): T | undefined {
  const raw = values[option as keyof typeof values] as string | undefined;
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) usage(`--${option} must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, got "${raw}"`);
  return raw as T;
}

if (command === 'serve') await serve(values.socket);
else await runClient(values.socket);

async function serve(socket: string): Promise<void> {
  const workspaceMode = oneOf<WorkspaceMode>('mode', ['shared', 'managed', 'operator']);
  const variant = oneOf<DriverVariant>('variant', ['reference', 'suspend-first']);
  const supervisorGraceSeconds = nonNegativeInteger('supervisor-grace');
  const workloadGraceSeconds = nonNegativeInteger('workload-grace');
  const apiHeadroomSeconds = nonNegativeInteger('api-headroom');
  const reconcileIntervalMs = nonNegativeInteger('reconcile-interval-ms');
  if (values.namespace !== undefined && values.namespace.trim() === '') usage('--namespace must not be empty');

  if (values.kubeconfig !== undefined && !existsSync(resolve(values.kubeconfig))) fail(`kubeconfig ${values.kubeconfig} does not exist`);

  // Loaded here, not at the top: client commands do not need the Kubernetes client.
  const k8s = await import('@kubernetes/client-node');
  const { KubernetesDriver } = await import('../driver/kubernetes/kubernetes-driver.ts');
  const kubeconfig = new k8s.KubeConfig();
  if (values.kubeconfig !== undefined) {
    try {
      kubeconfig.loadFromFile(resolve(values.kubeconfig));
    } catch (error) {
      fail(`cannot load kubeconfig ${values.kubeconfig}: ${(error as Error).message}`);
    }
  } else {
    try {
      kubeconfig.loadFromDefault();
    } catch (error) {
      fail(`cannot load the default kubeconfig ($KUBECONFIG or ~/.kube/config): ${(error as Error).message}`);
    }
  }
  const cluster = kubeconfig.getCurrentCluster();
  if (!cluster) fail(`the kubeconfig${values.kubeconfig ? ` ${values.kubeconfig}` : ''} names no current cluster`);

  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`compute driver: cluster ${cluster.server} (context ${kubeconfig.getCurrentContext()})`);
  let driver: InstanceType<typeof KubernetesDriver>;
  try {
    driver = new KubernetesDriver({
      kubeconfig,
      ...(workspaceMode && { workspaceMode }),
      ...(values.namespace !== undefined && { namespace: values.namespace }),
      ...(variant && { variant }),
      ...(supervisorGraceSeconds !== undefined && { supervisorGraceSeconds }),
      ...(workloadGraceSeconds !== undefined && { workloadGraceSeconds }),
      ...(apiHeadroomSeconds !== undefined && { apiHeadroomSeconds }),
      ...(reconcileIntervalMs !== undefined && { reconcileIntervalMs }),
      log,
    });
  } catch (error) {
    fail(`cannot start the compute driver: ${(error as Error).message}`);
  }

  let server;
  try {
    server = await serveDriver(driver, socket);
  } catch (error) {
    await driver.close();
    fail((error as Error).message);
  }
  process.stdout.write(`compute driver listening on ${socket}\n`);
  // Finish whatever a previous run left half-done (a stop interrupted mid-way, say).
  void driver.reconcile().catch((error: Error) => log(`startup reconciliation: ${error.message}`));

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        log(`${signal} again: exiting without waiting`);
        process.exit(1);
      }
      stopping = true;
      log(`${signal}: stopping the compute driver`);
      void (async () => {
        await server.close();
        // The socket is gone now; give the driver a bounded moment to finish a reconciliation.
        await Promise.race([driver.close(), new Promise((done) => setTimeout(done, 10_000).unref())]);
        process.exit(0);
      })();
    });
  }
}

async function runClient(socket: string): Promise<void> {
  const client = new GrpcDriverClient(socket);
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  try {
    switch (command) {
      case 'capabilities':
        print(await client.capabilities());
        break;
      case 'list':
        print(await client.list());
        break;
      case 'get':
        print(await client.get(args[0]));
        break;
      case 'stop':
        print(await client.stop(args[0]));
        break;
      case 'start':
        print(await client.start(args[0]));
        break;
      case 'delete':
        print({ deleted: await client.delete(args[0]) });
        break;
      case 'create':
      case 'validate': {
        const spec = specFromFlags(args[0]);
        if (command === 'create') print(await client.create(spec));
        else {
          await client.validate(spec);
          print({ valid: true });
        }
        break;
      }
      case 'watch': {
        const controller = new AbortController();
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
        await client.watch((event) => process.stdout.write(`${JSON.stringify(event)}\n`), controller.signal);
        break;
      }
    }
  } catch (error) {
    await client.close();
    failWith(error);
  }
  await client.close();
}

function specFromFlags(name: string): SandboxSpec {
  const environment: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) usage(`--env must be KEY=VALUE, got "${pair}"`);
    environment[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const spec: SandboxSpec = { name, command: trailing };
  if (values.workspace !== undefined) spec.workspace = values.workspace;
  if (Object.keys(environment).length) spec.environment = environment;
  const supervisorGraceSeconds = nonNegativeInteger('supervisor-grace');
  const workloadGraceSeconds = nonNegativeInteger('workload-grace');
  if (supervisorGraceSeconds !== undefined) spec.supervisorGraceSeconds = supervisorGraceSeconds;
  if (workloadGraceSeconds !== undefined) spec.workloadGraceSeconds = workloadGraceSeconds;
  return spec;
}
