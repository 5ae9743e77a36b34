import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import {
  DriverError,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverEvent,
  type DriverSandbox,
  type SandboxSpec,
} from '../compute-driver.ts';
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

  async capabilities(): Promise<DriverCapabilities> {
    return {
      driverName: 'kubernetes',
      driverVersion: '0.1.0',
      agentSandboxApiVersion: (await this.ctx.sandboxApiVersion()).split('/')[1],
      workspaceMode: this.config.workspaceMode,
      variant: this.config.variant,
      gatewayManagesLifecycle: false,
    };
  }

  async validate(spec: SandboxSpec): Promise<void> {
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

  async create(spec: SandboxSpec): Promise<DriverSandbox> {
    await this.validate(spec);
    const id = randomBytes(8).toString('hex');
    return this.ctx.gates.run(id, async () => toDriverSandbox(await createSandbox(this.ctx, id, spec)));
  }

  async get(id: string): Promise<DriverSandbox> {
    return toDriverSandbox(await this.ctx.findSandbox(id));
  }

  async list(): Promise<DriverSandbox[]> {
    return (await this.ctx.listSandboxes()).map((cr) => toDriverSandbox(cr));
  }

  async stop(id: string): Promise<DriverSandbox> {
    const cr = await this.ctx.findSandbox(id);
    return this.ctx.gates.run(id, async () => {
      const outcome = await stopSandbox(this.ctx, (await this.ctx.kube.get(this.ctx.ref(cr))) ?? cr);
      return toDriverSandbox(outcome.sandbox, outcome.warnings);
    });
  }

  async start(id: string): Promise<DriverSandbox> {
    const cr = await this.ctx.findSandbox(id);
    return this.ctx.gates.run(id, async () => toDriverSandbox(await startSandbox(this.ctx, (await this.ctx.kube.get(this.ctx.ref(cr))) ?? cr)));
  }

  async delete(id: string): Promise<boolean> {
    if (!id) throw new DriverError('INVALID_ARGUMENT', 'sandbox_id is required');
    return this.ctx.gates.run(id, async () => {
      const found = await this.ctx.listSandboxes(id);
      if (found.length === 0) return false;
      return deleteSandbox(this.ctx, found[0]);
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
    this.reconciling ??= reconcileOnce(this.ctx).finally(() => (this.reconciling = undefined));
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

  private scheduleReconcile(): void {
    this.reconcileTimer = setTimeout(async () => {
      await this.reconcile();
      if (!this.closed) this.scheduleReconcile();
    }, this.config.reconcileIntervalMs);
    this.reconcileTimer.unref();
  }
}
