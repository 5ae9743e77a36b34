/**
 * (One file past 400 lines on purpose: it is the one kit every test of the reference driver
 * imports, and splitting it would only scatter what a test of this room needs.)
 *
 * Shared setup for the reference driver's tests: an embedded cluster per test (with the fixture
 * images and Agent Sandbox), drivers with small grace periods, a timeline of watched object
 * changes ordered by resourceVersion, and a spy on the requests the driver sends. Order is
 * always read from watched events, never from clocks.
 */
import { test as base, expect } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import type { AgentSandboxVersion } from '../../cluster/embedded/agent-sandbox/install.ts';
import { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import type { DeleteOptions, PatchType, Target } from '../../cluster/embedded/registry/object-api.ts';
import type { KubeObject } from '../../cluster/embedded/types.ts';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../../fixtures/programs/catalogue.ts';
import { proxyInFront, type FaultProxy } from '../../faults/proxy/test-kit.ts';
import { DriverError, type CallOptions, type DriverCapabilities } from '../compute-driver.ts';
import { Gateway, type Sandbox, type SandboxRequest } from '../gateway/gateway.ts';
import type { SandboxPhase } from '../gateway/phase.ts';
import type { DriverOptions, KubernetesDriverConfig } from './config.ts';
import { KubernetesDriver } from './kubernetes-driver.ts';
import { ANNOTATION, LABEL, OPENSHELL_ROLES, sandboxObjectNames } from './names.ts';
import { isSuspendedInSpec } from '../agent-sandbox-api.ts';
import { observeObject } from '../../timeline/collect/observe.ts';
import { derive, forSandboxes } from '../../timeline/derive/histories.ts';
import { STOP_INVARIANTS } from '../../timeline/evaluate/families/stop/stop-family.ts';
import { evaluateInvariant } from '../../timeline/evaluate/registry.ts';
import type { ObjectEntry, Timeline as Recording, WatchedResource } from '../../timeline/model.ts';

export { expect };

/** Grace periods small enough that a stop takes well under a second; no background reconciliation. */
export const FAST = { supervisorGraceSeconds: 3, workloadGraceSeconds: 3, apiHeadroomSeconds: 5, reconcileIntervalMs: 0 } as const;

/** A main command that records each run in the workspace and then keeps running. */
export const MAIN = ['sh', '-c', 'echo run >> "$POD_ROOT/sandbox/runs"; sleep 1000'];

export const NAMESPACE = 'openshell';

/** A finalizer the tests put on objects to hold them in deletion. */
export const HOLD = 'test.openshell.ai/hold';

export type Kind = 'Pod' | 'Sandbox' | 'Secret' | 'Service';

/** One watched change, with the cluster-wide revision that orders it against every other. */
export interface Seen {
  rv: number;
  /** Milliseconds since the timeline began, when the change committed. */
  t: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: Kind;
  namespace: string;
  name: string;
  object: KubeObject;
}

/** The served Agent Sandbox version the driver picks (v1beta1, else v1alpha1), or undefined. */
export function sandboxApiVersion(cluster: EmbeddedCluster): string | undefined {
  for (const version of ['v1beta1', 'v1alpha1']) {
    if (cluster.registry.lookup('agents.x-k8s.io', version, 'sandboxes')) return `agents.x-k8s.io/${version}`;
  }
  return undefined;
}

export function sandboxes(cluster: EmbeddedCluster, namespace?: string): Target {
  const apiVersion = sandboxApiVersion(cluster);
  if (!apiVersion) throw new Error('Agent Sandbox is not installed in this cluster');
  return cluster.api.target(apiVersion, 'sandboxes', namespace);
}

export function pods(cluster: EmbeddedCluster, namespace = NAMESPACE): Target {
  return cluster.api.target('v1', 'pods', namespace);
}

export const phaseOf = (o: KubeObject) => o.metadata.annotations?.[ANNOTATION.phase];
export const operationOf = (o: KubeObject) => o.metadata.annotations?.[ANNOTATION.operation];
export const terminating = (o: KubeObject) => !!o.metadata.deletionTimestamp;

/** Suspended in its spec, read for the Sandbox's own API version (driver/agent-sandbox-api.ts). */
export function suspendedSpec(o: KubeObject): boolean {
  return isSuspendedInSpec(o.apiVersion!, o.spec);
}

/** The exit code a container's status reports, when it has terminated. */
export function exitCode(pod: KubeObject, container: string): number | undefined {
  const statuses = ((pod.status as { containerStatuses?: { name: string; state?: { terminated?: { exitCode: number } } }[] } | undefined)?.containerStatuses ?? []);
  return statuses.find((s) => s.name === container)?.state?.terminated?.exitCode;
}

/** Every watched change of Pods, Secrets, Services and Sandboxes in all namespaces, in commit order. */
export class Timeline {
  readonly events: Seen[] = [];
  private readonly stops: (() => void)[] = [];
  private readonly listeners: ((seen: Seen) => void)[] = [];
  private readonly origin = performance.now();
  private readonly startedAt = new Date().toISOString();
  private readonly sandboxApiVersion: string;
  /** The objects as they stood when the timeline began: the recording's LISTED entries. */
  private readonly listed: { kind: Kind; object: KubeObject }[] = [];

  constructor(cluster: EmbeddedCluster) {
    this.sandboxApiVersion = sandboxApiVersion(cluster) ?? '';
    const from = String(cluster.store.currentRevision());
    const targets: [Kind, Target][] = [
      ['Pod', cluster.api.target('v1', 'pods')],
      ['Secret', cluster.api.target('v1', 'secrets')],
      ['Service', cluster.api.target('v1', 'services')],
    ];
    if (sandboxApiVersion(cluster)) targets.push(['Sandbox', sandboxes(cluster)]);
    for (const [kind, target] of targets) {
      for (const object of cluster.api.list(target).items) this.listed.push({ kind, object });
      this.stops.push(
        cluster.api.watch(target, { resourceVersion: from }, (type, object) => {
          const seen: Seen = { rv: Number(object.metadata.resourceVersion), t: performance.now() - this.origin, type, kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name!, object };
          this.events.push(seen);
          for (const listener of this.listeners) listener(seen);
        }),
      );
    }
  }

  /** Calls `listener` for every later change (synchronously, as the change commits). */
  onChange(listener: (seen: Seen) => void): void {
    this.listeners.push(listener);
  }

  of(kind: Kind, name: string): Seen[] {
    return this.events.filter((e) => e.kind === kind && e.name === name).sort((a, b) => a.rv - b.rv);
  }

  first(kind: Kind, name: string, where: (o: KubeObject, e: Seen) => boolean = () => true, after = 0): Seen | undefined {
    return this.of(kind, name).find((e) => e.rv > after && where(e.object, e));
  }

  deleted(kind: Kind, name: string): Seen | undefined {
    return this.first(kind, name, (_o, e) => e.type === 'DELETED');
  }

  /** The Sandbox's bootstrap annotations as `operation:phase` tokens (`-:cleared` when none), repeats dropped. */
  bootstrapPhases(crName: string): string[] {
    const tokens = this.of('Sandbox', crName)
      .filter((e) => e.type !== 'DELETED')
      .map((e) => (phaseOf(e.object) ? `${operationOf(e.object)}:${phaseOf(e.object)}` : '-:cleared'));
    return tokens.filter((t, i) => i === 0 || tokens[i - 1] !== t);
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  /**
   * What was there at the start and every change since, as the harness's recorder records them
   * (the same observation of each object, found by OpenShell's role selectors), so the timeline
   * engine's rules can judge them.
   */
  recording(): Recording {
    const resources: Partial<Record<Kind, WatchedResource>> = { Pod: 'pods', Secret: 'secrets', Sandbox: 'sandboxes' };
    const changes = [...this.listed.map((l) => ({ ...l, type: 'LISTED' as const, t: 0 })), ...[...this.events].sort((a, b) => a.rv - b.rv)];
    const entries = changes.flatMap((e, seq): ObjectEntry[] => {
      const resource = resources[e.kind];
      const observed = resource && observeObject(OPENSHELL_ROLES, this.sandboxApiVersion, resource, e.type, e.object);
      return observed ? [{ ...observed, seq, t: Math.round(e.t * 10) / 10 }] : [];
    });
    return { startedAt: this.startedAt, entries };
  }
}

/**
 * The rules every stop is judged by, the harness's own (timeline/evaluate/families/stop/): each
 * must PASS. The two that read the stop call's return need a harness step, which these tests do
 * not mark, and the Secret-order rule has nothing to judge when garbage collection took the
 * Secrets with their Pods: those count only when they FAIL.
 */
const STOP_RULES_THAT_MUST_PASS = [STOP_INVARIANTS.supervisorBeforeWorkload, STOP_INVARIANTS.suspendAfterSupervisor, STOP_INVARIANTS.supervisorExitsClean, STOP_INVARIANTS.supervisorWithinDeadline, STOP_INVARIANTS.supervisorFullGrace];
const STOP_RULES_THAT_MUST_NOT_FAIL = [STOP_INVARIANTS.secretsAfterWorkload];

/**
 * The order stop must keep (OpenShell#3424), judged by the stop/ family over this sandbox's
 * recorded changes, plus the reference driver's own durable phase (`releasing` recorded before
 * the supervisor's deletion). Returns what the stop broke, [] when it kept it all.
 */
export function stopOrderViolations(timeline: Timeline, names: { sandbox: string; supervisorPod: string; workloadPod: string }, settings = { apiHeadroomSeconds: FAST.apiHeadroomSeconds }): string[] {
  const problems: string[] = [];
  // The stop begins with the first write that marks it (operation `stop`); only what follows counts.
  const begin = timeline.first('Sandbox', names.sandbox, (o) => operationOf(o) === 'stop');
  if (!begin) return ['the Sandbox never recorded a stop'];
  const releasing = timeline.first('Sandbox', names.sandbox, (o) => phaseOf(o) === 'releasing', begin.rv - 1);
  const supervisorDeleting = timeline.first('Pod', names.supervisorPod, terminating, begin.rv - 1);
  if (!releasing) problems.push('no durable `releasing` phase was recorded');
  else if (supervisorDeleting && supervisorDeleting.rv < releasing.rv) problems.push('the supervisor Pod was deleted before the `releasing` phase was recorded');
  const id = begin.object.metadata.labels?.[LABEL.sandboxId];
  if (!id) return [...problems, `Sandbox ${names.sandbox} carries no ${LABEL.sandboxId} label`];
  const facts = derive(forSandboxes(timeline.recording(), [id]));
  for (const info of STOP_RULES_THAT_MUST_PASS) {
    for (const v of evaluateInvariant(info.id, facts, settings)) if (v.status !== 'PASS') problems.push(`${v.status} ${v.message}`);
  }
  for (const info of STOP_RULES_THAT_MUST_NOT_FAIL) {
    for (const v of evaluateInvariant(info.id, facts, settings)) if (v.status === 'FAIL') problems.push(`${v.status} ${v.message}`);
  }
  return problems;
}

export interface RequestSeen {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  /** The cluster's revision when the request arrived: everything up to it had already happened. */
  revision: number;
}

export interface DeleteSeen {
  resource: string;
  namespace?: string;
  name: string;
  preconditionUid?: string;
  /** The uid of the object the name pointed at when the call was served. */
  currentUid?: string;
  outcome: 'accepted' | 'conflict' | 'not-found' | 'error';
  revision: number;
}

export interface PatchSeen {
  resource: string;
  version: string;
  name: string;
  patchType: PatchType;
  body: any;
  fieldManager?: string;
  revision: number;
  outcome: 'accepted' | 'conflict' | 'error';
}

/**
 * Records what clients send: every HTTP request (as the API server's request log hears it), and
 * the deletes and patches it then serves. In-process controllers do not go through the hook;
 * their deletes and patches are recorded too, so filter by name or field manager.
 */
export class ApiSpy {
  readonly requests: RequestSeen[] = [];
  readonly deletes: DeleteSeen[] = [];
  readonly patches: PatchSeen[] = [];
  private readonly requestListeners: ((request: RequestSeen) => void)[] = [];

  constructor(cluster: EmbeddedCluster) {
    cluster.requests.listen((request) => {
      const seen: RequestSeen = { verb: request.verb, resource: request.group ? `${request.plural}.${request.group}` : request.plural, namespace: request.namespace, name: request.name, labelSelector: request.labelSelector, revision: cluster.store.currentRevision() };
      this.requests.push(seen);
      for (const listener of this.requestListeners) listener(seen);
    });
    const api = cluster.api;
    const del = api.delete.bind(api);
    api.delete = (target: Target, name: string, options: DeleteOptions = {}) => {
      const seen: DeleteSeen = { resource: target.type.plural, namespace: target.namespace, name, preconditionUid: options.preconditions?.uid, outcome: 'error', revision: cluster.store.currentRevision() };
      this.deletes.push(seen);
      try {
        seen.currentUid = api.get(target, name).metadata.uid;
      } catch {
        // not there
      }
      try {
        const result = del(target, name, options);
        seen.outcome = 'accepted';
        return result;
      } catch (error) {
        const code = (error as { code?: number }).code;
        seen.outcome = code === 409 ? 'conflict' : code === 404 ? 'not-found' : 'error';
        throw error;
      }
    };
    const patch = api.patch.bind(api);
    api.patch = (target, name, patchType, body, options = {}) => {
      const seen: PatchSeen = { resource: target.type.plural, version: target.version.name, name, patchType, body: structuredClone(body), fieldManager: options.fieldManager, revision: cluster.store.currentRevision(), outcome: 'error' };
      this.patches.push(seen);
      try {
        const result = patch(target, name, patchType, body, options);
        seen.outcome = 'accepted';
        return result;
      } catch (error) {
        if ((error as { code?: number }).code === 409) seen.outcome = 'conflict';
        throw error;
      }
    };
  }

  /**
   * Calls `listener` as each request arrives, synchronously, before the API server serves it:
   * what the listener changes in the cluster is already there when the request is served.
   */
  onRequest(listener: (request: RequestSeen) => void): void {
    this.requestListeners.push(listener);
  }

  /** The driver's own patches (its field manager) of one object that the API server accepted. */
  driverPatches(resource: string, name: string): PatchSeen[] {
    return this.patches.filter((p) => p.resource === resource && p.name === name && p.fieldManager === 'openshell-driver' && p.outcome === 'accepted');
  }
}

/** The reference driver's objects behind a sandbox, by its own naming rules (these tests know the driver they test). */
export interface SandboxNames {
  sandbox: string;
  workloadPod: string;
  supervisorPod: string;
  boundaryService: string;
  generation?: string;
  secrets: string[];
}

export type TestSandbox = Sandbox & { objects: SandboxNames };

/**
 * A reference driver under test, driven as the harness drives any driver: through a gateway
 * (create and start resolve once Ready, stop once Stopped, delete once the watch says deleted),
 * each sandbox with the names of its objects. `driver` is the `ComputeDriver` itself.
 */
export class TestDriver {
  constructor(
    readonly driver: KubernetesDriver,
    readonly gateway: Gateway,
    private readonly cluster?: EmbeddedCluster,
  ) {}

  get config(): KubernetesDriverConfig {
    return this.driver.config;
  }

  capabilities(options?: CallOptions): Promise<DriverCapabilities> {
    return this.driver.getCapabilities(options);
  }
  validate(request: SandboxRequest, options?: CallOptions): Promise<void> {
    return this.gateway.validate(request, options);
  }
  async create(request: SandboxRequest, options?: CallOptions): Promise<TestSandbox> {
    return this.named(await this.gateway.create(request, options));
  }
  async get(id: string, options?: CallOptions): Promise<TestSandbox> {
    return this.named(await this.gateway.get(id, options));
  }
  async list(options?: CallOptions): Promise<TestSandbox[]> {
    return (await this.gateway.list(options)).map((s) => this.named(s));
  }
  async stop(id: string, options?: CallOptions): Promise<TestSandbox> {
    return this.named(await this.gateway.stop(id, options));
  }
  async start(id: string, options?: CallOptions): Promise<TestSandbox> {
    return this.named(await this.gateway.start(id, options));
  }
  delete(id: string, options?: CallOptions): Promise<boolean> {
    return this.gateway.delete(id, options);
  }
  reconcile(): Promise<void> {
    return this.driver.reconcile();
  }
  halt(): void {
    this.driver.halt();
  }
  async close(): Promise<void> {
    await this.gateway.close();
    await this.driver.close();
  }

  /** The sandbox with its objects' names: the Sandbox named in the status, the rest by the driver's rules. */
  named(sandbox: Sandbox): TestSandbox {
    const cr = sandbox.snapshot.status?.name ?? '';
    let generation: string | undefined;
    let workloadPod = cr;
    if (this.cluster && cr && sandboxApiVersion(this.cluster)) {
      try {
        const object = this.cluster.api.get(sandboxes(this.cluster, sandbox.namespace), cr);
        generation = object.metadata.annotations?.[ANNOTATION.generation];
        workloadPod = object.metadata.annotations?.[ANNOTATION.podName] ?? cr;
      } catch {
        // gone
      }
    }
    const names = sandboxObjectNames(sandbox.id, cr, generation);
    return {
      ...sandbox,
      objects: {
        sandbox: cr,
        workloadPod,
        supervisorPod: names.supervisorPod,
        boundaryService: names.boundaryService,
        generation,
        secrets: [names.sandboxSecret, names.supervisorSecret].filter((n): n is string => !!n),
      },
    };
  }
}

export interface ClusterChoice {
  /** Agent Sandbox release to install; null = none (no CRDs). Default v0.5.0 (v1beta1). */
  agentSandbox?: AgentSandboxVersion | null;
  /** Run the node agent with the fixture images (default true). */
  node?: boolean;
}

/** Everything one test starts, stopped again in reverse order when the test ends. */
export class Lab {
  readonly logs: string[] = [];
  private readonly clusters: EmbeddedCluster[] = [];
  private readonly proxies: FaultProxy[] = [];
  private readonly drivers: TestDriver[] = [];
  private readonly timelines: Timeline[] = [];
  private readonly aborts: AbortController[] = [];

  async cluster(choice: ClusterChoice = {}): Promise<EmbeddedCluster> {
    const agentSandbox = choice.agentSandbox === undefined ? 'v0.5.0' : choice.agentSandbox ?? undefined;
    const cluster = await EmbeddedCluster.start({ node: choice.node === false ? undefined : { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE }, agentSandbox });
    this.clusters.push(cluster);
    return cluster;
  }

  /** A fault proxy in front of `cluster` (faults/proxy/), for drivers made with `through` it. */
  async proxy(cluster: EmbeddedCluster): Promise<FaultProxy> {
    const proxy = await proxyInFront(cluster);
    this.proxies.push(proxy);
    return proxy;
  }

  kubeconfig(cluster: EmbeddedCluster): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(cluster.kubeconfig());
    return kc;
  }

  /**
   * A driver with FAST settings; an option given as undefined falls back to the driver's own
   * default. A `replica` name prefixes its log lines (`A: …`), so tests can tell replicas apart.
   * `through` a fault proxy, the driver reaches the cluster as the proxy's client 0.
   */
  driver(cluster: EmbeddedCluster | k8s.KubeConfig, options: Partial<Omit<DriverOptions, 'kubeconfig'>> = {}, replica?: string, through?: FaultProxy): TestDriver {
    const merged: Record<string, unknown> = { ...FAST, ...options };
    for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
    const kubeconfig = through ? through.kubeconfig(0) : cluster instanceof EmbeddedCluster ? this.kubeconfig(cluster) : cluster;
    const log = (line: string) => this.logs.push(replica ? `${replica}: ${line}` : line);
    const driver = new KubernetesDriver({ ...(merged as Partial<DriverOptions>), kubeconfig, log });
    const tested = new TestDriver(driver, new Gateway({ clients: [driver], pollIntervalMs: 250 }), cluster instanceof EmbeddedCluster ? cluster : undefined);
    this.drivers.push(tested);
    return tested;
  }

  timeline(cluster: EmbeddedCluster): Timeline {
    const timeline = new Timeline(cluster);
    this.timelines.push(timeline);
    return timeline;
  }

  spy(cluster: EmbeddedCluster): ApiSpy {
    return new ApiSpy(cluster);
  }

  /** An AbortSignal that is aborted when the test ends (for driver.watch). */
  signal(): AbortSignal {
    const controller = new AbortController();
    this.aborts.push(controller);
    return controller.signal;
  }

  async dispose(): Promise<void> {
    for (const controller of this.aborts) controller.abort();
    for (const timeline of this.timelines) timeline.stop();
    for (const driver of this.drivers.splice(0).reverse()) await driver.close();
    for (const proxy of this.proxies.splice(0)) await proxy.close();
    for (const cluster of this.clusters.splice(0).reverse()) await cluster.stop();
  }
}

export const test = base.extend<{ lab: Lab }>({
  // eslint-disable-next-line no-empty-pattern
  lab: async ({}, use) => {
    const lab = new Lab();
    try {
      await use(lab);
    } finally {
      await lab.dispose();
    }
  },
});

/** The DriverError a call fails with; fails the test when the call succeeds or throws something else. */
export async function driverError(call: Promise<unknown>): Promise<DriverError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof DriverError) return error;
    throw new Error(`expected a DriverError, got ${(error as Error)?.stack ?? String(error)}`);
  }
  throw new Error('expected the call to fail with a DriverError, but it succeeded');
}

/** Samples `read` until `during` settles; returns the distinct values in the order first seen. */
export async function sampleWhile<T>(during: Promise<unknown>, read: () => Promise<T | undefined>): Promise<T[]> {
  let settled = false;
  const done = during.then(
    () => (settled = true),
    () => (settled = true),
  );
  const seen: T[] = [];
  while (!settled) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && !seen.includes(value)) seen.push(value);
    await Promise.race([done, new Promise((r) => setTimeout(r, 5))]);
  }
  await during;
  return seen;
}

/** Phase of one sandbox as get() reports it (undefined while get() fails). */
export function phaseReader(driver: TestDriver, id: () => string | undefined): () => Promise<SandboxPhase | undefined> {
  return async () => {
    const current = id();
    if (current) return (await driver.get(current)).phase;
    const [only] = await driver.list();
    return only?.phase;
  };
}

/** Names of the objects a sandbox id labels, by kind, plus Sandboxes by the driver's selector. */
export function leftovers(cluster: EmbeddedCluster, namespace: string): Record<string, string[]> {
  const names = (target: Target, selector?: string) => cluster.api.list(target, { labelSelector: selector }).items.map((o) => o.metadata.name!).sort();
  const managed = `${LABEL.managedBy}=openshell`;
  const result: Record<string, string[]> = {
    pods: names(cluster.api.target('v1', 'pods', namespace)),
    services: names(cluster.api.target('v1', 'services', namespace)),
    secrets: names(cluster.api.target('v1', 'secrets', namespace)),
    persistentvolumeclaims: names(cluster.api.target('v1', 'persistentvolumeclaims', namespace)),
  };
  if (sandboxApiVersion(cluster)) result.sandboxes = names(sandboxes(cluster, namespace), managed);
  return result;
}

export function namespaceNames(cluster: EmbeddedCluster): string[] {
  return cluster.api.list(cluster.api.target('v1', 'namespaces')).items.map((n) => n.metadata.name!).sort();
}

/** Adds or removes a finalizer on an object in the cluster (direct, not through the driver). */
export function setFinalizer(cluster: EmbeddedCluster, target: Target, name: string, finalizer: string, present: boolean): void {
  const current = cluster.api.get(target, name);
  const others = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  cluster.api.patch(target, name, 'merge', { metadata: { finalizers: present ? [...others, finalizer] : others, resourceVersion: current.metadata.resourceVersion } });
}

/** The phase and the two conditions a sandbox in a transition shows. */
export function bootstrapping(sandbox: Sandbox): { phase: SandboxPhase; Bootstrapping?: string; Ready?: string } {
  const status = (type: string) => sandbox.conditions.find((c) => c.type === type)?.status;
  return { phase: sandbox.phase, Bootstrapping: status('Bootstrapping'), Ready: status('Ready') };
}
