import { DriverError, type ComputeDriver } from '../compute-driver.ts';
import { Gateway, type Sandbox, type SandboxRequest } from '../gateway/gateway.ts';
import { GrpcDriverClient } from '../grpc/client.ts';
import { configuredDriver } from './configured-driver.ts';
import { failWith, nonNegativeInteger, usage, type Invocation } from './options.ts';

/** A client command, through the gateway, against the driver on --socket or the driver run in this process (--kubeconfig). */
export async function runClientCommand(invocation: Invocation): Promise<void> {
  const { command, args, values, output } = invocation;
  const driver: ComputeDriver = invocation.inProcess
    ? await configuredDriver(values, { reconcileIntervalMs: 0, log: (line) => process.stderr.write(`${line}\n`) })
    : new GrpcDriverClient(values.socket!);
  const client = new Gateway({ clients: [driver] });
  const closeAll = async () => {
    await client.close();
    await driver.close();
  };
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
        const spec = specFromFlags(invocation);
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
        await driver.watchSandboxes((event) => process.stdout.write(`${JSON.stringify(event)}\n`), controller.signal);
        break;
      }
    }
  } catch (error) {
    await closeAll();
    failWith(error);
  }
  await closeAll();
}

/** The human form: one line per sandbox (name, phase, workspace, id), or the value itself. */
function text(value: unknown): string {
  const line = (s: Sandbox) => `${s.name.padEnd(24)} ${s.phase.padEnd(12)} ${s.workspace.padEnd(16)} ${s.id}${s.conditions.some((c) => c.type === 'CleanupFailed') ? `  (${s.conditions.filter((c) => c.type === 'CleanupFailed').map((c) => c.message).join('; ')})` : ''}`;
  if (Array.isArray(value)) return value.length ? value.map((v) => line(v as Sandbox)).join('\n') : 'no sandboxes';
  if (value && typeof value === 'object' && 'phase' in value && 'snapshot' in value) return line(value as Sandbox);
  return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join('\n');
}

function specFromFlags({ args, trailing, values }: Invocation): SandboxRequest {
  const environment: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) usage(`--env must be KEY=VALUE, got "${pair}"`);
    environment[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const spec: SandboxRequest = { name: args[0], command: trailing };
  if (values.workspace !== undefined) spec.workspace = values.workspace;
  if (Object.keys(environment).length) spec.environment = environment;
  const supervisorGraceSeconds = nonNegativeInteger(values, 'supervisor-grace');
  const workloadGraceSeconds = nonNegativeInteger(values, 'workload-grace');
  if (supervisorGraceSeconds !== undefined) spec.supervisorGraceSeconds = supervisorGraceSeconds;
  if (workloadGraceSeconds !== undefined) spec.workloadGraceSeconds = workloadGraceSeconds;
  return spec;
}
