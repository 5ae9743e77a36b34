import * as k8s from '@kubernetes/client-node';
import {
  DriverError,
  type CallOptions,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverEvent,
  type DriverSandbox,
  type GatewayListenerRequirement,
  type SandboxRef,
  type StartSandboxRequest,
} from '../compute-driver.ts';
import { CallScope, isCallEnd } from './call-scope.ts';
import { awaitGeneration, SupervisorReadinessTimeout, type GenerationOperation } from './completion.ts';
import { withDefaults, type DriverOptions, type KubernetesDriverConfig } from './config.ts';
import { DriverContext, driverSelector } from './context.ts';
import { createSandbox } from './create.ts';
import { deleteSandbox } from './delete.ts';
import { LifecycleGates } from './gates.ts';
import { isTransientApiError, Kube, type KubeObject } from './kube.ts';
import { reconcileOnce } from './reconcile.ts';
import { readState, toDriverSandbox } from './sandbox-state.ts';
import { launchSpec, type LaunchSpec } from './sandbox-spec.ts';
import { startSandbox } from './start.ts';
import { failGeneration } from './stage-failure.ts';
import { stopSandbox } from './stop.ts';
import { Superseded } from './transition.ts';
import { deleteWorkspace, ensureWorkspace, workspaceNamespace } from './workspaces.ts';

export const DRIVER_NAME = 'kubernetes';
export const DRIVER_VERSION = '0.2.0';

/** A generation id a start may carry: its first 12 alphanumerics name the generation's Secrets. */
const GENERATION_ID = /^[A-Za-z0-9][-A-Za-z0-9]{0,127}$/;

/**
 * The reference compute driver for Kubernetes with Agent Sandbox, serving OpenShell's contract:
 * ids come from the caller; CreateSandbox and StartSandbox return once the generation is
 * installed (`released`) and leave a background completion racing reconciliation for the
 * guarded completion patch — bounded by the bootstrap grace, ended when the driver closes;
 * readiness reaches callers through the watch and GetSandbox (`Bootstrapping=True`,
 * `Ready=False` while the marker is present).
 */
export class KubernetesDriver implements ComputeDriver {
  readonly config: KubernetesDriverConfig;
  private readonly ctx: DriverContext;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling?: Promise<void>;
  /** Aborted when the driver closes or halts: background completions and watches end with it. */
  private readonly lifetime = new AbortController();
  private readonly background = new Set<Promise<void>>();
  private closed = false;

  constructor(options: DriverOptions & { log?: (line: string) => void }) {
    this.config = withDefaults(options);
    this.ctx = new DriverContext(this.config, new Kube(this.config.kubeconfig, { watchSelector: driverSelector(this.config) }), new LifecycleGates(), options.log ?? (() => undefined));
    if (this.config.reconcileIntervalMs > 0) this.scheduleReconcile();
  }

  /** Answers without the cluster: a gateway snapshots it at start-up, before anything else. */
  async getCapabilities(options?: CallOptions): Promise<DriverCapabilities> {
    return this.call('capabilities', options, async () => ({
      driverName: DRIVER_NAME,
      // The defect variant says so in its version (semver build metadata), so every report names it.
      driverVersion: this.config.variant === 'reference' ? DRIVER_VERSION : `${DRIVER_VERSION}+${this.config.variant}`,
      defaultImage: this.config.images.workload,
      gatewayManagesLifecycle: false,
      supportsSandboxAuthentication: false,
      driverReportsRuntimeReadiness: false,
    }));
  }

  async authenticateSandbox(_credential: string, options?: CallOptions): Promise<string> {
    return this.call('authenticate', options, async () => {
      throw new DriverError('UNIMPLEMENTED', 'AuthenticateSandbox is not implemented: this driver reports supports_sandbox_authentication=false');
    });
  }

  async getGatewayListenerRequirements(options?: CallOptions): Promise<GatewayListenerRequirement[]> {
    return this.call('listener requirements', options, async () => {
      throw new DriverError('UNIMPLEMENTED', 'GetGatewayListenerRequirements is not implemented: this driver reports supports_sandbox_authentication=false and needs no gateway listener');
    });
  }

  async validateSandboxCreate(sandbox: DriverSandbox, options?: CallOptions): Promise<void> {
    return this.call('validate', options, async () => void this.check(sandbox));
  }

  async createSandbox(sandbox: DriverSandbox, options?: CallOptions): Promise<void> {
    return this.call('create', options, async (ctx) => {
      const spec = this.check(sandbox);
      ctx.call.subject = `sandbox ${sandbox.id}`;
      // The completion starts inside the gated work: once the generation is released it follows
      // even when this call's caller has just stopped waiting.
      await this.gated(ctx, sandbox.id, async () => this.completeInBackground(await createSandbox(ctx, sandbox.id, spec), 'create'));
    });
  }

  async getSandbox(ref: SandboxRef, options?: CallOptions): Promise<DriverSandbox> {
    return this.call('get', options, async (ctx) => {
      ctx.call.enter('reading the Sandbox');
      return toDriverSandbox(await ctx.findSandbox(ref.sandboxId));
    });
  }

  async listSandboxes(options?: CallOptions): Promise<DriverSandbox[]> {
    return this.call('list', options, async (ctx) => {
      ctx.call.enter('listing the Sandboxes');
      return (await ctx.listSandboxes()).map((cr) => toDriverSandbox(cr));
    });
  }

  async stopSandbox(ref: SandboxRef, options?: CallOptions): Promise<void> {
    return this.call('stop', options, async (ctx) => {
      ctx.call.enter('reading the Sandbox');
      const cr = await ctx.findSandbox(ref.sandboxId);
      ctx.call.subject = `sandbox ${ref.sandboxId}`;
      await this.gated(ctx, ref.sandboxId, async (waited) => void (await stopSandbox(ctx, await this.current(ctx, cr, waited))));
    });
  }

  async startSandbox(request: StartSandboxRequest, options?: CallOptions): Promise<void> {
    return this.call('start', options, async (ctx) => {
      if (request.generationId !== undefined && !GENERATION_ID.test(request.generationId)) {
        throw new DriverError('INVALID_ARGUMENT', `generation_id "${request.generationId}" must be 1 to 128 letters, digits and '-', starting with a letter or digit`);
      }
      ctx.call.enter('reading the Sandbox');
      const cr = await ctx.findSandbox(request.sandboxId);
      ctx.call.subject = `sandbox ${request.sandboxId}`;
      await this.gated(ctx, request.sandboxId, async (waited) => this.completeInBackground(await startSandbox(ctx, await this.current(ctx, cr, waited), request.generationId), 'restart'));
    });
  }

  async deleteSandbox(ref: SandboxRef, options?: CallOptions): Promise<boolean> {
    return this.call('delete', options, async (ctx) => {
      if (!ref.sandboxId) throw new DriverError('INVALID_ARGUMENT', 'sandbox_id is required');
      ctx.call.subject = `sandbox ${ref.sandboxId}`;
      return this.gated(ctx, ref.sandboxId, async () => {
        ctx.call.enter('reading the Sandbox');
        const found = await ctx.listSandboxes(ref.sandboxId);
        if (found.length === 0) return false;
        return deleteSandbox(ctx, found[0]);
      });
    });
  }

  /** Managed mode: the workspace's namespace (and its service account); shared and operator modes check it is usable. */
  async ensureWorkspace(workspace: string, options?: CallOptions): Promise<void> {
    return this.call('ensure workspace', options, async (ctx) => {
      this.checkWorkspace(workspace);
      ctx.call.enter('preparing the workspace');
      await ensureWorkspace(ctx, workspace);
    });
  }

  /** Managed mode: deletes the workspace's namespace; shared and operator modes delete nothing. */
  async deleteWorkspace(workspace: string, options?: CallOptions): Promise<void> {
    return this.call('delete workspace', options, async (ctx) => {
      this.checkWorkspace(workspace);
      await deleteWorkspace(ctx, workspace);
    });
  }

  /**
   * Streams a snapshot of every managed sandbox (each watch starts with the current ones) and of
   * each change, and `deleted` when a Sandbox goes, until the signal aborts or the driver closes.
   */
  async watchSandboxes(listener: (event: DriverEvent) => void, callerSignal: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([callerSignal, this.lifetime.signal]);
    const apiVersion = await this.ctx.sandboxApiVersion();
    const namespace = this.config.workspaceMode === 'shared' ? this.config.namespace : undefined;
    const path = `/apis/${apiVersion}${namespace ? `/namespaces/${namespace}` : ''}/sandboxes`;
    const watcher = new k8s.Watch(this.config.kubeconfig);
    let restarts = 0;
    while (!signal.aborted) {
      // A watch the API server ends is reopened (it then re-sends every sandbox); one that keeps failing backs off.
      if (restarts++ > 0) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** Math.min(restarts, 5), 2000)));
      await new Promise<void>((resolve) => {
        let request: { abort(): void } | undefined;
        const onAbort = () => request?.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        watcher
          .watch(path, { labelSelector: this.ctx.selector() }, (type, object: KubeObject) => {
            if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return; // BOOKMARK, ERROR
            const id = readState(object).id;
            listener(type === 'DELETED' ? { type: 'deleted', sandboxId: id } : { type: 'sandbox', sandbox: toDriverSandbox(object) });
          }, () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          })
          .then(
            (r) => {
              request = r;
              if (signal.aborted) r.abort(); // aborted while the watch was opening
            },
            () => resolve(),
          );
      });
    }
  }

  /** Runs one reconciliation pass now (tests and the external driver's startup use it). */
  reconcile(): Promise<void> {
    this.reconciling ??= reconcileOnce(this.ctx.forCall(new CallScope('reconciliation'))).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /** The shared watches' open watches and the objects waits are subscribed to now (tests and benchmarks read it). */
  sharedWatchStats(): { watches: number; waitedObjects: number } {
    return this.ctx.kube.watches.stats();
  }

  /**
   * Abandons this instance where it stands, as a crash would: no further API call succeeds and
   * nothing is cleaned up. Tests use it to prove a fresh driver resumes any persisted phase.
   */
  halt(): void {
    this.closed = true;
    this.lifetime.abort();
    clearTimeout(this.reconcileTimer);
    this.ctx.kube.halt();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.lifetime.abort();
    clearTimeout(this.reconcileTimer);
    await Promise.all([this.reconciling, ...this.background]);
    this.ctx.kube.close();
  }

  /** The sandbox's launch inputs; INVALID_ARGUMENT listing every problem. Sends no request. */
  private check(sandbox: DriverSandbox): LaunchSpec {
    return launchSpec(sandbox, { workspaceMode: this.config.workspaceMode, defaultWorkspace: this.config.defaultWorkspace, namespaceOf: (w) => workspaceNamespace(this.ctx, w) });
  }

  private checkWorkspace(workspace: string): void {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(workspace)) throw new DriverError('INVALID_ARGUMENT', `workspace "${workspace}" must be a DNS-1123 label`);
  }

  /**
   * The completion of a generation just installed, in the background: it races reconciliation
   * (any replica's) for the one guarded completion patch, whoever loses writes nothing. Bounded
   * by the bootstrap grace; ends when the driver closes; a sandbox moved on (stopped, deleted,
   * restarted) ends it quietly. A supervisor that misses its readiness deadline fails the
   * generation (stage-failure.ts), under the sandbox's lifecycle gate.
   */
  private completeInBackground(cr: KubeObject, operation: GenerationOperation): void {
    const generation = readState(cr).generation;
    if (!generation || this.closed) return;
    const scope = new CallScope(`${operation === 'create' ? 'create' : 'start'} completion`, { deadline: Date.now() + this.config.bootstrapGraceMs, signal: this.lifetime.signal });
    scope.subject = `sandbox ${readState(cr).id}`;
    const ctx = this.ctx.forCall(scope);
    // Nobody waits on this but the sandbox: the API server's passing trouble (a 5xx on a read, the
    // server briefly unreachable) is read through again, within the bootstrap grace, rather than
    // leaving the completion to the next reconciliation (a create's caller would wait for it).
    const complete = async (): Promise<KubeObject> => {
      for (;;) {
        try {
          return await awaitGeneration(ctx, cr, generation, operation);
        } catch (error) {
          if (!isTransientApiError(error) || this.closed) throw error;
          this.ctx.log(`sandbox ${readState(cr).id}: ${scope.operation}: ${(error as Error).message}; reading again`);
          await ctx.call.sleep(this.config.pollIntervalMs * 2);
          ctx.call.check();
        }
      }
    };
    const run = complete()
      .catch((error: Error) => {
        if (!(error instanceof SupervisorReadinessTimeout) || this.closed) throw error;
        return this.gated(ctx, readState(cr).id, () => failGeneration(ctx, cr, generation, operation, error.message));
      })
      .then(
        () => undefined,
        (error: Error) => {
          if (isCallEnd(error) || error instanceof Superseded || this.closed) return;
          this.ctx.log(`sandbox ${readState(cr).id}: ${scope.operation}: ${error.message}`);
        },
      )
      .finally(() => {
        scope.close();
        this.background.delete(run);
      });
    this.background.add(run);
  }

  /**
   * Runs `work` for one call: bounded by the caller's deadline and signal, it rejects the moment
   * they end (DEADLINE_EXCEEDED or CANCELLED, naming the stage), and its requests stop there too.
   */
  private async call<T>(operation: string, options: CallOptions | undefined, work: (ctx: DriverContext) => Promise<T>): Promise<T> {
    const scope = new CallScope(operation, options);
    try {
      scope.check();
      return await scope.race(work(this.ctx.forCall(scope)));
    } finally {
      scope.close();
    }
  }

  /** `work` under the sandbox's lifecycle gate; a call that ended while queued for it never runs. */
  private gated<T>(ctx: DriverContext, id: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    ctx.call.enter('waiting for another call on this sandbox in this driver to finish');
    return this.ctx.gates.run(id, async (waited) => {
      ctx.call.check();
      return work(waited);
    });
  }

  /**
   * The Sandbox as a gated call starts from: read again when the gate made it wait (another call
   * on it may have changed it since `cr` was listed), else `cr` itself, listed just before — a
   * second read would only cost a round trip. Either way each transition is guarded by the
   * resourceVersion it was decided from, and decided again on a conflict.
   */
  private async current(ctx: DriverContext, cr: KubeObject, waited: boolean): Promise<KubeObject> {
    return waited ? ((await ctx.kube.get(ctx.ref(cr))) ?? cr) : cr;
  }

  private scheduleReconcile(): void {
    this.reconcileTimer = setTimeout(async () => {
      await this.reconcile();
      if (!this.closed) this.scheduleReconcile();
    }, this.config.reconcileIntervalMs);
    this.reconcileTimer.unref();
  }
}
