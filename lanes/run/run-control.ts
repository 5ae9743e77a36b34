/**
 * What a run must undo on Ctrl-C (SIGINT) or SIGTERM, whether its lanes run one after the other
 * or side by side: every Playwright process still running is stopped, every cluster that is up
 * (or coming up) is torn down with its files, and the process exits 130. Lanes register what
 * they start here; once interrupted they stop where they are and leave the clean-up to it.
 *
 * The npm scripts start the runner as `node --import tsx`, not through the tsx command: tsx's
 * command relays a Ctrl-C to its child and SIGKILLs it when the child has not acknowledged the
 * signal within ~30 ms. On a loaded machine that killed the runner before this tear-down ran,
 * leaving Playwright, its workers and the embedded node's containers behind.
 */
import { rmSync } from 'node:fs';
import type { ResultPromise } from 'execa';
import type { ClusterHandle, ClusterProvider, ProviderOptions } from '../../cluster/cluster-provider.ts';

export class RunControl {
  interrupted = false;
  /** Aborts a cluster's up() in flight. */
  readonly stopping = new AbortController();
  private readonly clusters = new Map<string, { handle: ClusterHandle; options: ProviderOptions }>();
  private readonly children = new Set<ResultPromise>();

  constructor(
    private readonly provider: ClusterProvider,
    /** Called first on an interrupt, e.g. to end a progress display and show what the lanes printed. */
    private readonly beforeTearDown: () => void = () => undefined,
  ) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void this.interrupt(signal));
  }

  /** The cluster of `lane` is up, or is being created (so Ctrl-C during up() deletes it too). */
  clusterUp(lane: string, handle: ClusterHandle, options: ProviderOptions): void {
    this.clusters.set(lane, { handle, options });
  }

  /** Tears the lane's cluster down and forgets it. */
  async clusterDown(lane: string): Promise<void> {
    const up = this.clusters.get(lane);
    if (!up) return;
    await tearDown(this.provider, up.handle, up.options);
    this.clusters.delete(lane);
  }

  forgetCluster(lane: string): void {
    this.clusters.delete(lane);
  }

  /** Runs a child process (Playwright) that an interrupt must stop; resolves to its result. */
  async child<T extends ResultPromise>(child: T): Promise<Awaited<T>> {
    this.children.add(child);
    try {
      return (await child) as Awaited<T>;
    } finally {
      this.children.delete(child);
    }
  }

  /** Once interrupted a lane stops here: the interrupt tears everything down and exits. */
  async haltIfInterrupted(): Promise<void> {
    if (this.interrupted) await forever();
  }

  private async interrupt(signal: NodeJS.Signals): Promise<void> {
    if (this.interrupted) return;
    this.interrupted = true;
    this.beforeTearDown();
    process.stderr.write(`\n${signal}: stopping the run and tearing down ${[...this.clusters.keys()].join(', ') || 'nothing'}\n`);
    this.stopping.abort();
    for (const child of this.children) child.kill('SIGINT');
    await Promise.all([...this.children].map((child) => child.catch(() => undefined)));
    await Promise.all([...this.clusters.values()].map(({ handle, options }) => tearDown(this.provider, handle, options).catch(() => undefined)));
    process.exit(130);
  }
}

/** A promise that never settles: what waits for Ctrl-C (the interrupt exits the process). */
export function forever(): Promise<never> {
  return new Promise<never>(() => undefined);
}

export async function tearDown(provider: ClusterProvider, handle: ClusterHandle, options: ProviderOptions): Promise<void> {
  await provider.down(handle, options);
  if (provider.name !== 'kind') rmSync(options.workDir, { recursive: true, force: true });
}
