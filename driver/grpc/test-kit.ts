/**
 * A test double of a compute driver, in memory (the real KubernetesDriver has its own tests):
 * it records what arrived, keeps sandboxes by the caller's id, reports conditions the way a
 * driver of OpenShell's contract does (Ready after create and start, Suspended after stop,
 * `deleted` on the watch after delete), and fails with `failure` when one is set. Used by the
 * transport tests and the gateway's.
 */
import {
  DriverError,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverCondition,
  type DriverEvent,
  type DriverSandbox,
  type GatewayListenerRequirement,
  type SandboxRef,
  type StartSandboxRequest,
} from '../compute-driver.ts';

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const condition = (type: string, status: string, reason = ''): DriverCondition => ({ type, status, reason, message: '' });
export const READY = [condition('Ready', 'True', 'DependenciesReady')];
export const STOPPED = [condition('Ready', 'False', 'SandboxSuspended'), condition('Suspended', 'True', 'SandboxSuspended')];

export class FakeDriver implements ComputeDriver {
  sandboxes = new Map<string, DriverSandbox>();
  readonly calls: { method: string; arg?: unknown }[] = [];
  failure?: unknown;
  caps: DriverCapabilities = {
    driverName: 'fake',
    driverVersion: '9.9.9',
    defaultImage: 'example/fake:1',
    gatewayManagesLifecycle: true,
    supportsSandboxAuthentication: true,
    driverReportsRuntimeReadiness: true,
    resourceCapabilities: { cpu: { limitSupported: true }, memory: { limitSupported: false }, gpu: { defaultSelectionSupported: true, countSelectionSupported: false } },
    rootfsTarStagingDir: '/var/tmp/rootfs',
    rootfsTarMaxBytes: 2 ** 40,
  };
  requirements: GatewayListenerRequirement[] = [
    { reason: 'bridge', selector: { kind: 'exactBindAddress', address: '10.0.0.1:8080', allowDelayedBind: true } },
    { reason: 'pasta', selector: { kind: 'defaultRouteInterface' } },
    { reason: 'forwarder', selector: { kind: 'loopbackInterface' } },
    { reason: 'none' },
  ];
  /** Resolved with the listener once a watch is running; reset per watch. */
  watchStarted = deferred<(event: DriverEvent) => void>();
  watchEnded = deferred<'aborted'>();
  watchFailure?: unknown;
  private readonly listeners = new Set<(event: DriverEvent) => void>();

  private enter(method: string, arg?: unknown): void {
    this.calls.push({ method, arg });
    if (this.failure !== undefined) throw this.failure;
  }

  private find(id: string): DriverSandbox {
    const found = this.sandboxes.get(id);
    if (!found) throw new DriverError('NOT_FOUND', `sandbox ${id} not found`);
    return found;
  }

  /** Sets a sandbox's conditions and tells every watch. */
  report(id: string, conditions: DriverCondition[], deleting = false): DriverSandbox {
    const current = this.find(id);
    const next = { ...current, status: { name: current.name, instanceId: '', agentFd: '', sandboxFd: '', conditions, deleting } };
    this.sandboxes.set(id, next);
    for (const listener of this.listeners) listener({ type: 'sandbox', sandbox: next });
    return next;
  }

  async getCapabilities() {
    this.enter('getCapabilities');
    return this.caps;
  }
  async authenticateSandbox(credential: string) {
    this.enter('authenticateSandbox', credential);
    return `sandbox-for-${credential}`;
  }
  async getGatewayListenerRequirements() {
    this.enter('getGatewayListenerRequirements');
    return this.requirements;
  }
  async validateSandboxCreate(sandbox: DriverSandbox) {
    this.enter('validateSandboxCreate', sandbox);
  }
  async createSandbox(sandbox: DriverSandbox) {
    this.enter('createSandbox', sandbox);
    if (this.sandboxes.has(sandbox.id)) throw new DriverError('ALREADY_EXISTS', 'sandbox already exists');
    this.sandboxes.set(sandbox.id, { id: sandbox.id, name: sandbox.name, namespace: 'fake-ns', workspace: sandbox.workspace || 'default' });
    // Installed now; Ready a moment later, as a watch event.
    setTimeout(() => this.sandboxes.has(sandbox.id) && this.report(sandbox.id, READY), 20);
  }
  async getSandbox(ref: SandboxRef) {
    this.enter('getSandbox', ref);
    return this.find(ref.sandboxId);
  }
  async listSandboxes() {
    this.enter('listSandboxes');
    return [...this.sandboxes.values()];
  }
  async stopSandbox(ref: SandboxRef) {
    this.enter('stopSandbox', ref);
    this.report(ref.sandboxId, STOPPED);
  }
  async startSandbox(request: StartSandboxRequest) {
    this.enter('startSandbox', request);
    this.find(request.sandboxId);
    setTimeout(() => this.sandboxes.has(request.sandboxId) && this.report(request.sandboxId, READY), 20);
  }
  async deleteSandbox(ref: SandboxRef) {
    this.enter('deleteSandbox', ref);
    if (!this.sandboxes.delete(ref.sandboxId)) return false;
    setTimeout(() => {
      for (const listener of this.listeners) listener({ type: 'deleted', sandboxId: ref.sandboxId });
    }, 20);
    return true;
  }
  async ensureWorkspace(workspace: string) {
    this.enter('ensureWorkspace', workspace);
  }
  async deleteWorkspace(workspace: string) {
    this.enter('deleteWorkspace', workspace);
  }
  async watchSandboxes(listener: (event: DriverEvent) => void, signal: AbortSignal) {
    this.enter('watchSandboxes');
    if (this.watchFailure !== undefined) throw this.watchFailure;
    this.listeners.add(listener);
    this.watchStarted.resolve(listener);
    await new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener('abort', () => done(), { once: true })));
    this.listeners.delete(listener);
    this.watchEnded.resolve('aborted');
  }
  async close() {}
}
