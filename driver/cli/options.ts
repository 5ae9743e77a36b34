/**
 * The driver command line: which command, its arguments, and the options, checked against each
 * other so that a wrong combination is a usage error (exit 2) naming what was wrong.
 */
import { parseArgs } from 'node:util';
import { DriverError } from '../compute-driver.ts';
import { HELP } from './help.ts';

/** How the command is invoked, for its help and usage errors: `npm run driver --` here, `sandbox-conformance driver` in the package. */
let program = 'npm run driver --';

export function setProgram(name: string): void {
  program = name;
}

export function usage(message: string): never {
  process.stderr.write(`error: ${message}\nRun "${program} --help" for usage.\n`);
  process.exit(2);
}

export function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

export function failWith(error: unknown): never {
  if (error instanceof DriverError) fail(`${error.code}: ${error.message}`);
  fail(error instanceof Error ? error.message : String(error));
}

/** OpenShell's environment variable for the driver's socket (the driver binary's and the gateway's). */
export const SOCKET_ENV = 'OPENSHELL_COMPUTE_DRIVER_SOCKET';

export const OPTIONS = {
  socket: { type: 'string' },
  'bind-socket': { type: 'string' },
  kubeconfig: { type: 'string' },
  mode: { type: 'string' },
  namespace: { type: 'string' },
  'gateway-id': { type: 'string' },
  variant: { type: 'string' },
  'supervisor-grace': { type: 'string' },
  'reconcile-interval': { type: 'string' },
  output: { type: 'string' },
  workspace: { type: 'string' },
  env: { type: 'string', multiple: true },
  'workload-grace': { type: 'string' },
  'api-headroom': { type: 'string' },
  'supervisor-ready': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type OptionValues = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true; tokens: true }>>['values'];

const SERVE_ONLY = ['reconcile-interval'] as const;
/** How the driver is configured: with serve, or with a client command that runs the driver in process (--kubeconfig). */
const DRIVER_CONFIG = ['mode', 'namespace', 'gateway-id', 'variant', 'api-headroom', 'supervisor-ready'] as const;
const CREATE_ONLY = ['env'] as const;
/** Grace periods: the driver's defaults with serve, one sandbox's overrides with create and validate. */
const SERVE_OR_CREATE = ['supervisor-grace', 'workload-grace'] as const;
const COMMANDS = ['serve', 'capabilities', 'list', 'get', 'create', 'validate', 'stop', 'start', 'delete', 'watch'] as const;
type Command = (typeof COMMANDS)[number];

const EXPECTED_ARGS: Record<Command, string[]> = {
  serve: [], capabilities: [], list: [], watch: [],
  get: ['NAME'], stop: ['NAME'], start: ['NAME'], delete: ['NAME'],
  create: ['NAME'], validate: ['NAME'],
};

export interface Invocation {
  command: Command;
  /** The command's arguments (a sandbox name or id). */
  args: string[];
  /** After `--`: the sandbox's command (create, validate). */
  trailing: string[];
  values: OptionValues;
  /** A client command against the driver run in this process (--kubeconfig), not a socket. */
  inProcess: boolean;
  output: 'json' | 'text';
}

/** The checked command line; `--help` prints the help and exits 0. */
export function parseInvocation(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    usage((error as Error).message);
  }
  const { values, tokens } = parsed;
  if (values.help) {
    process.stdout.write(HELP.replaceAll('npm run driver --', program));
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
  if (values['bind-socket'] !== undefined) {
    if (command !== 'serve') usage('--bind-socket is for serve; client commands connect with --socket PATH');
    if (values.socket !== undefined && values.socket !== values['bind-socket']) usage('--socket is an alias of --bind-socket; give one of them');
    values.socket = values['bind-socket'];
  }
  // OpenShell's variable names the socket when no flag does: the one to bind with serve, the one to reach otherwise.
  if (values.socket === undefined && process.env[SOCKET_ENV] && (command === 'serve' || !inProcess)) values.socket = process.env[SOCKET_ENV];
  if (command === 'serve' && !values.socket) usage(`--bind-socket PATH (or ${SOCKET_ENV}) is required`);
  if (command !== 'serve' && !values.socket === !inProcess) usage('give either --socket PATH (a driver serving there) or --kubeconfig FILE (the driver in this process)');
  for (const option of DRIVER_CONFIG) if (values[option] !== undefined && command !== 'serve' && !inProcess) usage(`--${option} configures a driver: valid with serve, or with --kubeconfig`);
  const output = oneOf<'json' | 'text'>(values, 'output', ['json', 'text']) ?? 'text';
  if (values.output !== undefined && command === 'serve') usage('--output is for client commands');
  const isCreate = command === 'create' || command === 'validate';
  for (const option of SERVE_ONLY) if (values[option] !== undefined && command !== 'serve') usage(`--${option} is only valid with serve`);
  for (const option of CREATE_ONLY) if (values[option] !== undefined && !isCreate) usage(`--${option} is only valid with create and validate`);
  for (const option of SERVE_OR_CREATE) if (values[option] !== undefined && command !== 'serve' && !isCreate) usage(`--${option} is only valid with serve, create and validate`);
  if (values.workspace !== undefined && ['serve', 'capabilities', 'list', 'watch'].includes(command)) usage(`--workspace is for create, validate, get, stop, start and delete`);
  if (terminator >= 0 && !isCreate) usage(`"--" and a command are only valid with create and validate`);

  const expected = EXPECTED_ARGS[command];
  if (args.length !== expected.length) {
    usage(expected.length ? `${command} takes ${expected.join(' ')}, got ${args.length ? args.map((a) => `"${a}"`).join(' ') : 'nothing'}` : `${command} takes no arguments, got ${args.map((a) => `"${a}"`).join(' ')}`);
  }
  return { command, args, trailing, values, inProcess, output };
}

type StringOption = Exclude<keyof OptionValues, 'help' | 'env'>;

export function nonNegativeInteger(values: OptionValues, option: StringOption): number | undefined {
  const raw = values[option];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < 0) usage(`--${option} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function nonNegativeNumber(values: OptionValues, option: StringOption): number | undefined {
  const raw = values[option];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) usage(`--${option} must be a non-negative number of seconds, got "${raw}"`);
  return value;
}

export function oneOf<T extends string>(values: OptionValues, option: StringOption, allowed: readonly T[]): T | undefined {
  const raw = values[option];
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) usage(`--${option} must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, got "${raw}"`);
  return raw as T;
}
