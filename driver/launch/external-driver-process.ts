import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { DriverError, type DriverCapabilities, type DriverVariant, type WorkspaceMode } from '../compute-driver.ts';
import type { GrpcDriverClient } from '../grpc/client.ts';
import type { KubernetesDriverConfig } from '../kubernetes/config.ts';
import { bundledDriverArgv } from './bundled-driver.ts';

/**
 * What the harness sets on a driver it runs: namespace, grace periods, API headroom,
 * reconciliation; a gateway id and the supervisor-readiness deadline where a test gives its own.
 */
export type DriverSettings = Pick<KubernetesDriverConfig, 'namespace' | 'supervisorGraceSeconds' | 'workloadGraceSeconds' | 'apiHeadroomSeconds' | 'reconcileIntervalMs'> &
  Partial<Pick<KubernetesDriverConfig, 'gatewayId' | 'supervisorReadySeconds'>>;

/** How long a started driver has to accept on its socket and answer GetCapabilities. */
const EXTERNAL_DRIVER_READY_DEADLINE_MS = 30_000;

/**
 * A driver binary to run: `argv` (a shell command line when `shell`), to which the launcher
 * appends `--bind-socket <path>`, as OpenShell's driver binaries take it.
 */
export interface DriverCommand {
  argv: string[];
  /** Run `argv[0]` as a shell command line (the `--driver exec='CMD ARGS'` form). */
  shell?: boolean;
}

/**
 * The harness's own driver as an external process: `serve` of the driver CLI with the lane's
 * settings as its flags, run from its JavaScript bundle (driver-bundle.ts says why not through
 * tsx), built on the first call in this process when the sources changed. One node process, so
 * SIGKILL reaches the driver itself.
 */
export function harnessDriverCommand(options: { workspaceMode: WorkspaceMode; variant: DriverVariant; settings: DriverSettings }): DriverCommand {
  const { settings } = options;
  return {
    argv: bundledDriverArgv([
      'serve',
      '--mode', options.workspaceMode,
      '--namespace', settings.namespace,
      ...(settings.gatewayId ? ['--gateway-id', settings.gatewayId] : []),
      '--variant', options.variant,
      '--supervisor-grace', String(settings.supervisorGraceSeconds),
      '--workload-grace', String(settings.workloadGraceSeconds),
      '--api-headroom', String(settings.apiHeadroomSeconds),
      ...(settings.supervisorReadySeconds !== undefined ? ['--supervisor-ready', String(settings.supervisorReadySeconds)] : []),
      '--reconcile-interval', String(settings.reconcileIntervalMs / 1000),
    ]),
  };
}

/**
 * The gRPC client, loaded with the first driver reached on a socket: every test worker imports
 * this module, and @grpc/grpc-js with proto-loader cost a process ~0.1 s of CPU to load, which a
 * lane whose driver runs in the worker itself never needs.
 */
export async function grpcDriverClient(): Promise<typeof GrpcDriverClient> {
  return (await import('../grpc/client.ts')).GrpcDriverClient;
}

/**
 * Any compute driver binary as an external process behind a gRPC Unix socket, started the way
 * OpenShell starts its driver: `<command> --bind-socket <path>`, with `KUBECONFIG` set, the
 * socket in a private (0700) directory of its own. Started per test, so a scenario can SIGKILL
 * it mid-operation and start a fresh one; it counts as started once GetCapabilities answers.
 */
export class ExternalDriverProcess {
  private constructor(
    private readonly child: ResultPromise,
    private readonly dir: string,
    readonly socket: string,
    readonly client: GrpcDriverClient,
    /** Everything the process printed so far (stdout and stderr), for failure evidence. */
    readonly output: () => string,
    /** What GetCapabilities answered once it served. */
    public capabilities?: DriverCapabilities,
  ) {}

  static async start(options: { command: DriverCommand; kubeconfigPath: string }): Promise<ExternalDriverProcess> {
    const Client = await grpcDriverClient();
    // mkdtemp makes it 0700; short, because a Unix socket path may have at most 107 bytes.
    const dir = mkdtempSync(join(tmpdir(), 'drv-'));
    const socket = join(dir, 'driver.sock');
    const { command } = options;
    const env = { KUBECONFIG: options.kubeconfigPath };
    // Its own process group, so a crash (SIGKILL) takes the whole command (npm, sh, node…) at once.
    const spawn = { reject: false, stdin: 'ignore', buffer: false, detached: true, env } as const;
    const child = command.shell
      ? execa('sh', ['-c', `${command.argv[0]} "$@"`, 'sh', '--bind-socket', socket], spawn)
      : execa(command.argv[0], [...command.argv.slice(1), '--bind-socket', socket], spawn);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = new ExternalDriverProcess(child, dir, socket, new Client(socket), () => output);
    try {
      started.capabilities = await started.untilServing(EXTERNAL_DRIVER_READY_DEADLINE_MS, Client);
    } catch (error) {
      await started.kill('SIGKILL');
      throw error;
    }
    return started;
  }

  /**
   * Polls GetCapabilities until it answers; fails when the process exits first or the deadline
   * passes. Each attempt uses a fresh client: a gRPC channel that failed to connect (no socket
   * yet) backs off before it tries again (1 s, growing 1.6x), so one channel reused across a
   * slow start could sleep past a driver that is long since serving.
   */
  private async untilServing(deadlineMs: number, Client: typeof GrpcDriverClient): Promise<DriverCapabilities> {
    let exited: string | undefined;
    void this.child.then((result) => (exited = `exit ${result.exitCode ?? result.signal}`));
    const deadline = Date.now() + deadlineMs;
    let last = 'not tried';
    for (;;) {
      if (exited) throw new Error(`the external driver exited before it served GetCapabilities on ${this.socket} (${exited}): ${this.output().trim()}`);
      const probe = new Client(this.socket, { deadlineMs: 2_000, connectTimeoutMs: 1_000 });
      try {
        return await probe.getCapabilities();
      } catch (error) {
        if (!(error instanceof DriverError && error.code === 'UNAVAILABLE')) throw error;
        last = error.message;
      } finally {
        await probe.close();
      }
      if (Date.now() > deadline) throw new Error(`the external driver did not answer GetCapabilities on ${this.socket} within ${deadlineMs} ms (last: ${last}): ${this.output().trim()}`);
      await sleep(50);
    }
  }

  /** The driver process's id (what a benchmark samples the memory of); undefined once it could not be spawned. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGKILL: the process group dies wherever it is, as a crash would leave it. SIGTERM: a clean stop. */
  async kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const killGroup = (s: NodeJS.Signals) => {
      if (this.child.exitCode !== null || !this.child.pid) return;
      try {
        process.kill(-this.child.pid, s);
      } catch {
        // already gone
      }
    };
    killGroup(signal);
    // A driver that ignores SIGTERM is killed after a bounded wait.
    const forced = signal === 'SIGTERM' ? setTimeout(() => killGroup('SIGKILL'), 15_000) : undefined;
    await this.child;
    clearTimeout(forced);
    await this.client.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && !this.child.killed) await this.kill('SIGTERM');
    else rmSync(this.dir, { recursive: true, force: true });
  }
}
