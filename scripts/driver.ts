#!/usr/bin/env tsx
/**
 * `npm run driver -- serve --socket PATH …`: the Kubernetes compute driver as an external
 * driver on a Unix socket, in the foreground. `npm run driver -- --socket PATH <command> …`: a
 * small client for any driver on that socket.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DriverError, type ComputeDriver, type DriverSandbox, type DriverVariant, type SandboxSpec, type WorkspaceMode } from '../driver/compute-driver.ts';
import { GrpcDriverClient } from '../driver/grpc/client.ts';
import { serveDriver } from '../driver/grpc/server.ts';

const HELP = `Usage:
  npm run driver -- serve --socket PATH [serve options]
  npm run driver -- <command> [arguments] (--socket PATH | --kubeconfig FILE) [--output json]

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
  --reconcile-interval S        reconciliation interval in seconds; 0 turns the loop off (default: 30)

Client commands: against any compute driver serving on --socket PATH, or with --kubeconfig FILE
against the Kubernetes driver run in this process (--mode, --namespace, --variant and
--api-headroom then configure it). Sandboxes are named by name (with --workspace when a name
is used in several) or by id. Output is one line per sandbox; --output json prints JSON.
  capabilities                  what the driver is and how it is configured
  list                          every sandbox
  get NAME                      one sandbox
  create NAME [create options] -- CMD [ARG...]
                                create a sandbox running CMD; prints it once Ready
  validate NAME [create options] -- CMD [ARG...]
                                check a spec without creating anything
  stop NAME                     stop a sandbox; returns once it is stopped, or with the driver's error
  start NAME                    start a stopped sandbox; returns once it is Ready again
  delete NAME                   delete a sandbox; prints deleted: true|false
  watch                         print one JSON event per line until Ctrl-C

  Create options:
  --workspace W                 the sandbox's workspace (default: the driver's)
  --env KEY=VALUE               an environment variable for CMD (repeatable)
  --supervisor-grace N          this sandbox's supervisor grace period, seconds
  --workload-grace N            this sandbox's workload grace period, seconds

  A failing call prints "error: <CODE>: <message>" (CODE as in gRPC: NOT_FOUND,
  ALREADY_EXISTS, INVALID_ARGUMENT, FAILED_PRECONDITION, UNAVAILABLE, DEADLINE_EXCEEDED,
  CANCELLED, INTERNAL) and exits 1.

  -h, --help                    show this help

Exit status: 0 on success, 1 when the driver or the environment fails, 2 for a usage error.

Examples:
  npm run driver -- serve --socket /tmp/k8s-driver.sock --kubeconfig .cluster/embedded/kubeconfig
  npm run driver -- --socket /tmp/k8s-driver.sock create demo --workspace team-a -- sleep infinity
  npm run driver -- --socket /tmp/k8s-driver.sock stop demo --workspace team-a
  npm run driver -- --kubeconfig .cluster/embedded/kubeconfig list --output json
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
  'reconcile-interval': { type: 'string' },
  output: { type: 'string' },
  workspace: { type: 'string' },
  env: { type: 'string', multiple: true },
  'workload-grace': { type: 'string' },
  'api-headroom': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SERVE_ONLY = ['reconcile-interval'] as const;
/** How the driver is configured: with serve, or with a client command that runs the driver in process (--kubeconfig). */
const DRIVER_CONFIG = ['mode', 'namespace', 'variant', 'api-headroom'] as const;
const CREATE_ONLY = ['env'] as const;
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
const inProcess = command !== 'serve' && values.kubeconfig !== undefined;
if (command === 'serve' && !values.socket) usage(`--socket PATH is required`);
if (command !== 'serve' && !values.socket === !inProcess) usage('give either --socket PATH (a driver serving there) or --kubeconfig FILE (the driver in this process)');
for (const option of DRIVER_CONFIG) if (values[option] !== undefined && command !== 'serve' && !inProcess) usage(`--${option} configures a driver: valid with serve, or with --kubeconfig`);
const output = oneOf<'json' | 'text'>('output', ['json', 'text']) ?? 'text';
if (values.output !== undefined && command === 'serve') usage('--output is for client commands');
const isCreate = command === 'create' || command === 'validate';
for (const option of SERVE_ONLY) if (values[option] !== undefined && command !== 'serve') usage(`--${option} is only valid with serve`);
for (const option of CREATE_ONLY) if (values[option] !== undefined && !isCreate) usage(`--${option} is only valid with create and validate`);
for (const option of SERVE_OR_CREATE) if (values[option] !== undefined && command !== 'serve' && !isCreate) usage(`--${option} is only valid with serve, create and validate`);
if (values.workspace !== undefined && ['serve', 'capabilities', 'list', 'watch'].includes(command)) usage(`--workspace is for create, validate, get, stop, start and delete`);
if (terminator >= 0 && !isCreate) usage(`"--" and a command are only valid with create and validate`);

const expectedArgs: Record<Command, string[]> = {
  serve: [], capabilities: [], list: [], watch: [],
  get: ['NAME'], stop: ['NAME'], start: ['NAME'], delete: ['NAME'],
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

if (command === 'serve') await serve(values.socket!);
else await runClient();

async function serve(socket: string): Promise<void> {
  const supervisorGraceSeconds = nonNegativeInteger('supervisor-grace');
  const workloadGraceSeconds = nonNegativeInteger('workload-grace');
  const reconcileSeconds = nonNegativeNumber('reconcile-interval');
  const reconcileIntervalMs = reconcileSeconds === undefined ? undefined : Math.round(reconcileSeconds * 1000);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const driver = await kubernetesDriver({ reconcileIntervalMs, log, supervisorGraceSeconds, workloadGraceSeconds });

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

/** The Kubernetes driver for the kubeconfig given (or the default one), configured from the flags. */
async function kubernetesDriver(settings: { reconcileIntervalMs?: number; supervisorGraceSeconds?: number; workloadGraceSeconds?: number; log: (line: string) => void }) {
  const workspaceMode = oneOf<WorkspaceMode>('mode', ['shared', 'managed', 'operator']);
  const variant = oneOf<DriverVariant>('variant', ['reference', 'suspend-first']);
  const apiHeadroomSeconds = nonNegativeInteger('api-headroom');
  const { reconcileIntervalMs, supervisorGraceSeconds, workloadGraceSeconds, log } = settings;
  if (values.namespace !== undefined && values.namespace.trim() === '') usage('--namespace must not be empty');
  if (values.kubeconfig !== undefined && !existsSync(resolve(values.kubeconfig))) fail(`kubeconfig ${values.kubeconfig} does not exist`);

  // Loaded here, not at the top: commands against a socket do not need the Kubernetes client.
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

  log(`compute driver: cluster ${cluster.server} (context ${kubeconfig.getCurrentContext()})`);
  try {
    return new KubernetesDriver({
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
}

async function runClient(): Promise<void> {
  const client: ComputeDriver = inProcess
    ? await kubernetesDriver({ reconcileIntervalMs: 0, log: (line) => process.stderr.write(`${line}\n`) })
    : new GrpcDriverClient(values.socket!);
  const print = (value: unknown) => process.stdout.write(output === 'json' ? `${JSON.stringify(value, null, 2)}\n` : `${text(value)}\n`);
  /** A sandbox by id, or by name (within --workspace when given). */
  const find = async (nameOrId: string): Promise<string> => {
    const all = await client.list();
    const byId = all.find((s) => s.id === nameOrId);
    if (byId) return byId.id;
    const named = all.filter((s) => s.name === nameOrId && (values.workspace === undefined || s.workspace === values.workspace));
    if (named.length === 1) return named[0].id;
    if (named.length > 1) throw new DriverError('INVALID_ARGUMENT', `${named.length} sandboxes are named "${nameOrId}" (workspaces ${named.map((s) => s.workspace).join(', ')}); add --workspace or use the id`);
    throw new DriverError('NOT_FOUND', `no sandbox has the id or name "${nameOrId}"${values.workspace ? ` in workspace ${values.workspace}` : ''}`);
  };
  try {
    switch (command) {
      case 'capabilities':
        print(await client.capabilities());
        break;
      case 'list':
        print(await client.list());
        break;
      case 'get':
        print(await client.get(await find(args[0])));
        break;
      case 'stop':
        print(await client.stop(await find(args[0])));
        break;
      case 'start':
        print(await client.start(await find(args[0])));
        break;
      case 'delete':
        print({ deleted: await client.delete(await find(args[0])) });
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

/** The human form: one line per sandbox (name, phase, workspace, id), or the value itself. */
function text(value: unknown): string {
  const line = (s: DriverSandbox) => `${s.name.padEnd(24)} ${s.phase.padEnd(12)} ${s.workspace.padEnd(16)} ${s.id}${s.conditions.some((c) => c.type === 'CleanupFailed') ? `  (${s.conditions.filter((c) => c.type === 'CleanupFailed').map((c) => c.message).join('; ')})` : ''}`;
  if (Array.isArray(value)) return value.length ? value.map((v) => line(v as DriverSandbox)).join('\n') : 'no sandboxes';
  if (value && typeof value === 'object' && 'phase' in value && 'objects' in value) return line(value as DriverSandbox);
  return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('\n');
}

function nonNegativeNumber(option: string): number | undefined {
  const raw = values[option as keyof typeof values] as string | undefined;
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) usage(`--${option} must be a non-negative number of seconds, got "${raw}"`);
  return value;
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
