import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { DriverError, type DriverVariant, type WorkspaceMode } from '../compute-driver.ts';
import { GrpcDriverClient } from '../grpc/client.ts';
import type { KubernetesDriverConfig } from '../kubernetes/config.ts';

/** What the harness sets on a driver it runs: namespace, grace periods, API headroom, reconciliation. */
export type DriverSettings = Pick<KubernetesDriverConfig, 'namespace' | 'supervisorGraceSeconds' | 'workloadGraceSeconds' | 'apiHeadroomSeconds' | 'reconcileIntervalMs'>;

/** How long a started driver has to accept on its socket and answer GetCapabilities. */
const EXTERNAL_DRIVER_READY_DEADLINE_MS = 30_000;

/**
 * The driver command and the TypeScript loader, resolved as modules (not as paths guessed from
 * the working directory): a moved module fails here, and the child runs from any cwd.
 */
const DRIVER_CLI = fileURLToPath(import.meta.resolve('../cli/main.ts'));
const TS_LOADER = import.meta.resolve('tsx');

/**
 * The driver as an external process (`npm run driver -- serve`) behind a gRPC Unix socket,
 * started per test so a scenario can SIGKILL it mid-operation and start a fresh one. It counts
 * as started once its socket accepts and GetCapabilities answers.
 */
export class ExternalDriverProcess {
  private constructor(
    private readonly child: ResultPromise,
    private readonly dir: string,
    readonly socket: string,
    readonly client: GrpcDriverClient,
    /** Everything the process printed so far (its log goes to stderr), for failure evidence. */
    readonly output: () => string,
  ) {}

  static async start(options: { kubeconfigPath: string; workspaceMode: WorkspaceMode; variant: DriverVariant; settings: DriverSettings }): Promise<ExternalDriverProcess> {
    const { settings } = options;
    // A short directory: a Unix socket path may have at most 107 bytes.
    const dir = mkdtempSync(join(tmpdir(), 'drv-'));
    const socket = join(dir, 'driver.sock');
    // One process (node with the tsx loader), so SIGKILL reaches the driver itself, as a crash would.
    const child = execa(process.execPath, [
      '--import', TS_LOADER,
      DRIVER_CLI,
      'serve',
      '--socket', socket,
      '--kubeconfig', options.kubeconfigPath,
      '--mode', options.workspaceMode,
      '--namespace', settings.namespace,
      '--variant', options.variant,
      '--supervisor-grace', String(settings.supervisorGraceSeconds),
      '--workload-grace', String(settings.workloadGraceSeconds),
      '--api-headroom', String(settings.apiHeadroomSeconds),
      '--reconcile-interval', String(settings.reconcileIntervalMs / 1000),
    ], { reject: false, stdin: 'ignore', buffer: false });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = new ExternalDriverProcess(child, dir, socket, new GrpcDriverClient(socket), () => output);
    try {
      await started.untilServing(EXTERNAL_DRIVER_READY_DEADLINE_MS);
    } catch (error) {
      await started.kill('SIGKILL');
      throw error;
    }
    return started;
  }

  /** Polls GetCapabilities until it answers; fails when the process exits first or the deadline passes. */
  private async untilServing(deadlineMs: number): Promise<void> {
    let exited: string | undefined;
    void this.child.then((result) => (exited = `exit ${result.exitCode ?? result.signal}`));
    const probe = new GrpcDriverClient(this.socket, { deadlineMs: 2_000, connectTimeoutMs: 1_000 });
    const deadline = Date.now() + deadlineMs;
    let last = 'not tried';
    try {
      for (;;) {
        if (exited) throw new Error(`the external driver exited before it served GetCapabilities on ${this.socket} (${exited}): ${this.output().trim()}`);
        try {
          await probe.capabilities();
          return;
        } catch (error) {
          if (!(error instanceof DriverError && error.code === 'UNAVAILABLE')) throw error;
          last = error.message;
        }
        if (Date.now() > deadline) throw new Error(`the external driver did not answer GetCapabilities on ${this.socket} within ${deadlineMs} ms (last: ${last}): ${this.output().trim()}`);
        await sleep(50);
      }
    } finally {
      await probe.close();
    }
  }

  /** SIGKILL: the process dies wherever it is, as a crash would leave it. */
  async kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    this.child.kill(signal);
    await this.child;
    await this.client.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && !this.child.killed) await this.kill('SIGTERM');
  }
}
