import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import {
  DriverError,
  type CallOptions,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverEvent,
  type DriverSandbox,
  type SandboxSpec,
} from '../compute-driver.ts';
import { CallScope } from './call-scope.ts';
import { withDefaults, type DriverOptions, type KubernetesDriverConfig } from './config.ts';
import { DriverContext } from './context.ts';
import { createSandbox } from './create.ts';
import { deleteSandbox } from './delete.ts';
import { LifecycleGates } from './gates.ts';
import { Kube, type KubeObject } from './kube.ts';
import { crName } from './names.ts';
import { reconcileOnce } from './reconcile.ts';
import { readState, toDriverSandbox } from './sandbox-state.ts';
import { startSandbox } from './start.ts';
import { stopSandbox } from './stop.ts';
import { workspaceNamespace } from './workspaces.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The reference compute driver for Kubernetes with Agent Sandbox. */
export class KubernetesDriver implements ComputeDriver {
  readonly config: KubernetesDriverConfig;
  private readonly ctx: DriverContext;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling?: Promise<void>;
  private closed = false;

  constructor(options: DriverOptions & { log?: (line: string) => void }) {
    this.config = withDefaults(options);
    this.ctx = new DriverContext(this.config, new Kube(this.config.kubeconfig), new LifecycleGates(), options.log ?? (() => undefined));
    if (this.config.reconcileIntervalMs > 0) this.scheduleReconcile();
  }

  async capabilities(options?: CallOptions): Promise<DriverCapabilities> {
    return this.call('capabilities', options, async (ctx) => ({
      driverName: 'kubernetes',
      driverVersion: '0.1.0',
      agentSandboxApiVersion: (await ctx.sandboxApiVersion()).split('/')[1],
      workspaceMode: this.config.workspaceMode,
      variant: this.config.variant,
      gatewayManagesLifecycle: false,
    }));
  }

  async validate(spec: SandboxSpec, options?: CallOptions): Promise<void> {
    return this.call('validate', options, async () => this.check(spec));
  }

  async create(spec: SandboxSpec, options?: CallOptions): Promise<DriverSandbox> {
    return this.call('create', options, async (ctx) => {
      this.check(spec);
      const id = randomBytes(8).toString('hex');
      return this.gated(ctx, id, async () => toDriverSandbox(await createSandbox(ctx, id, spec)));
    });
  }

  async get(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return this.call('get', options, async (ctx) => {
      ctx.call.enter('reading the Sandbox');
      return toDriverSandbox(await ctx.findSandbox(id));
    });
  }

  async list(options?: CallOptions): Promise<DriverSandbox[]> {
    return this.call('list', options, async (ctx) => {
      ctx.call.enter('listing the Sandboxes');
      return (await ctx.listSandboxes()).map((cr) => toDriverSandbox(cr));
    });
  }

  async stop(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return this.call('stop', options, async (ctx) => {
      ctx.call.enter('reading the Sandbox');
      const cr = await ctx.findSandbox(id);
      ctx.call.subject = `sandbox ${id}`;
      return this.gated(ctx, id, async () => {
        const outcome = await stopSandbox(ctx, (await ctx.kube.get(ctx.ref(cr))) ?? cr);
        return toDriverSandbox(outcome.sandbox, outcome.warnings);
      });
    });
  }

  async start(id: string, options?: CallOptions): Promise<DriverSandbox> {
    return this.call('start', options, async (ctx) => {
      ctx.call.enter('reading the Sandbox');
      const cr = await ctx.findSandbox(id);
      ctx.call.subject = `sandbox ${id}`;
      return this.gated(ctx, id, async () => toDriverSandbox(await startSandbox(ctx, (await ctx.kube.get(ctx.ref(cr))) ?? cr)));
    });
  }

  async delete(id: string, options?: CallOptions): Promise<boolean> {
    return this.call('delete', options, async (ctx) => {
      if (!id) throw new DriverError('INVALID_ARGUMENT', 'sandbox_id is required');
      ctx.call.subject = `sandbox ${id}`;
      return this.gated(ctx, id, async () => {
        ctx.call.enter('reading the Sandbox');
        const found = await ctx.listSandboxes(id);
        if (found.length === 0) return false;
        return deleteSandbox(ctx, found[0]);
      });
    });
  }

  /** Streams snapshots from a watch on the managed Sandbox resources until the signal aborts. */
  async watch(listener: (event: DriverEvent) => void, signal: AbortSignal): Promise<void> {
    const apiVersion = await this.ctx.sandboxApiVersion();
    const namespace = this.config.workspaceMode === 'shared' ? this.config.namespace : undefined;
    const path = `/apis/${apiVersion}${namespace ? `/namespaces/${namespace}` : ''}/sandboxes`;
    const watcher = new k8s.Watch(this.config.kubeconfig);
    while (!signal.aborted) {
      await new Promise<void>((resolve) => {
        let request: { abort(): void } | undefined;
        const onAbort = () => request?.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        watcher
          .watch(path, { labelSelector: this.ctx.selector() }, (type, object: KubeObject) => {
            const id = readState(object).id;
            listener(type === 'DELETED' ? { type: 'deleted', sandboxId: id } : { type: 'sandbox', sandbox: toDriverSandbox(object) });
          }, () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          })
          .then((r) => (request = r), () => resolve());
      });
    }
  }

  /** Runs one reconciliation pass now (tests and the external driver's startup use it). */
  reconcile(): Promise<void> {
    this.reconciling ??= reconcileOnce(this.ctx.forCall(new CallScope('reconciliation'))).finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /**
   * Abandons this instance where it stands, as a crash would: no further API call succeeds and
   * nothing is cleaned up. Tests use it to prove a fresh driver resumes any persisted phase.
   */
  halt(): void {
    this.closed = true;
    clearTimeout(this.reconcileTimer);
    this.ctx.kube.halt();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconcileTimer);
    await this.reconciling;
  }

  /** Checks a spec; INVALID_ARGUMENT listing every problem. Sends no request. */
  private check(spec: SandboxSpec): void {
    const problems: string[] = [];
    const workspace = spec.workspace ?? this.config.defaultWorkspace;
    if (!spec.name) problems.push('name is required');
    else if (!DNS_LABEL.test(spec.name)) problems.push(`name "${spec.name}" must be a DNS-1123 label: lower case alphanumeric characters or '-', starting and ending with an alphanumeric character`);
    if (!DNS_LABEL.test(workspace)) problems.push(`workspace "${workspace}" must be a DNS-1123 label`);
    const cr = crName(this.config.workspaceMode, workspace, spec.name ?? '');
    if (cr.length > 63) problems.push(`sandbox name "${cr}" is ${cr.length} characters; the limit is 63${this.config.workspaceMode === 'shared' ? ' (shared mode names it {workspace}--{name})' : ''}`);
    if (this.config.workspaceMode === 'managed') {
      const namespace = workspaceNamespace(this.ctx, workspace);
      if (namespace.length > 63) problems.push(`workspace "${workspace}" would be namespace "${namespace}", ${namespace.length} characters; the limit is 63 (managed mode names it openshell-{gateway}-{workspace})`);
    }
    if (!Array.isArray(spec.command) || spec.command.some((c) => typeof c !== 'string')) problems.push('command must be a list of strings');
    for (const [field, value] of [['supervisorGraceSeconds', spec.supervisorGraceSeconds], ['workloadGraceSeconds', spec.workloadGraceSeconds]] as const) {
      if (value !== undefined && (!Number.isInteger(value) || value < 0)) problems.push(`${field} must be a non-negative integer`);
    }
    if (problems.length) throw new DriverError('INVALID_ARGUMENT', `invalid sandbox: ${problems.join('; ')}`);
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
  private gated<T>(ctx: DriverContext, id: string, work: () => Promise<T>): Promise<T> {
    ctx.call.enter('waiting for another call on this sandbox in this driver to finish');
    return this.ctx.gates.run(id, async () => {
      ctx.call.check();
      return work();
    });
  }

  private scheduleReconcile(): void {
    this.reconcileTimer = setTimeout(async () => {
      await this.reconcile();
      if (!this.closed) this.scheduleReconcile();
    }, this.config.reconcileIntervalMs);
    this.reconcileTimer.unref();
  }
}
