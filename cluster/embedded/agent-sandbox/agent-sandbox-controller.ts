import { setTimeout as sleep } from 'node:timers/promises';
import { FaultInjector } from './controller-request-faults.ts';
import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { controllerRef } from './children.ts';
import { ControllerClient } from './controller-client.ts';
import { ControllerFaults } from './controller-faults.ts';
import { InformerCache } from './informer-cache.ts';
import { GROUP, NAME_HASH_LABEL, SANDBOXES_KEY } from './agent-sandbox-names.ts';
import type { AgentSandboxProfile } from './profiles.ts';
import { Draws, resolveRealism, type RealismOptions, type ResolvedRealism } from './realism.ts';
import { SandboxReconcile, type ReconcileResult } from './sandbox-reconcile.ts';
import { ControllerRateLimiter, WorkQueue } from './work-queue.ts';

export interface AgentSandboxControllerOptions {
  /** `--cluster-domain`: the suffix of status.serviceFQDN. */
  clusterDomain?: string;
  /** Real-cluster timing (on by default); see realism.ts. */
  realism?: RealismOptions;
}

/**
 * The Agent Sandbox core controller (sandbox-controller) of one release, in-process. Wiring as
 * upstream (reference §2.1): For(Sandbox), Owns(Pod) and Owns(Service) filtered to objects that
 * carry the name-hash label; PVCs are cached but not watched. It runs as controller-runtime runs
 * it: events arrive through a lagging informer cache, keys (`namespace/name` of Sandboxes) go
 * through a rate-limited work queue to `workers` concurrent reconciles (never two of one key),
 * each taking a seeded latency. One reconcile is in sandbox-reconcile.ts; what differs between releases
 * is in profiles.ts.
 */
export class AgentSandboxController {
  readonly realism: ResolvedRealism;
  /** Faults on the controller's own requests (tests): fail its Pod delete, its annotation patch, ... */
  readonly faults = new FaultInjector();
  /** The faults the admin endpoint adds (status-write conflicts, cache lag spikes): controller-faults.ts. */
  readonly faultHooks: ControllerFaults;
  /** Completed reconciles: lets tests tell "looked and did nothing" from "has not looked yet". */
  reconcileCount = 0;
  private readonly clusterDomain: string;
  private readonly workers: number;
  private readonly draws: Draws;
  private readonly queue: WorkQueue;
  private readonly cache: InformerCache;
  private readonly client: ControllerClient;
  private readonly timers = new Set<NodeJS.Timeout>();
  private busy = 0;
  private stopped = false;

  constructor(
    api: ObjectApi,
    readonly profile: AgentSandboxProfile,
    options: AgentSandboxControllerOptions = {},
  ) {
    this.clusterDomain = options.clusterDomain ?? 'cluster.local';
    this.realism = resolveRealism(options.realism);
    this.workers = this.realism.workers ?? profile.defaultWorkers;
    this.draws = new Draws(this.realism.seed);
    this.queue = new WorkQueue(new ControllerRateLimiter(), () => this.pump());
    this.cache = new InformerCache(api.store, this.draws, this.realism.cacheLagMs, (event) => this.observe(event));
    this.client = new ControllerClient(api, this.cache, (namespace) => api.target(`${GROUP}/${profile.apiVersion}`, 'sandboxes', namespace), this.faults);
    this.faultHooks = new ControllerFaults(this.faults, this.cache);
    // The initial list of an informer: Sandboxes that exist before the controller starts.
    for (const sandbox of api.store.list(SANDBOXES_KEY)) this.queue.add(keyOf(sandbox));
  }

  stop(): void {
    this.stopped = true;
    this.cache.stop();
    this.queue.shutdown();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Resolves once the cache holds every event delivered so far and no reconcile is queued or
   * running (a delayed retry may still be pending): the moment a test may assert "nothing more
   * happens". Fails naming what was still busy after `timeoutMs`.
   */
  async settled(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.cache.synced() && this.queue.idle() && this.busy === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`Agent Sandbox controller not settled within ${timeoutMs} ms: cache synced ${this.cache.synced()}, queue idle ${this.queue.idle()}, reconciles running ${this.busy}`);
      }
      await sleep(5);
    }
  }

  /** Sandboxes waiting for a delayed look: a retry after an error, or a requeue at shutdownTime. */
  delayedCount(): number {
    return this.queue.waitingCount();
  }

  private observe(event: StoreEvent): void {
    if (event.resource === SANDBOXES_KEY) {
      this.queue.add(keyOf(event.object));
      return;
    }
    if (event.resource !== 'pods' && event.resource !== 'services') return;
    for (const object of [event.object, event.previous]) {
      if (!object?.metadata.labels?.[NAME_HASH_LABEL]) continue;
      const ref = controllerRef(object);
      // controller-runtime's EnqueueRequestForOwner matches group and kind, not version.
      if (ref?.kind === 'Sandbox' && ref.apiVersion.startsWith(`${GROUP}/`)) this.queue.add(`${object.metadata.namespace}/${ref.name}`);
    }
  }

  /** Hands queued keys to free workers; each reconcile starts after its latency, on a later turn. */
  private pump(): void {
    while (!this.stopped && this.busy < this.workers) {
      const key = this.queue.get();
      if (key === undefined) return;
      this.busy++;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.process(key);
      }, this.draws.next(`reconcile/${key}`, this.realism.reconcileLatencyMs));
      this.timers.add(timer);
    }
  }

  /** controller-runtime's reconcileHandler: an error is retried rate-limited; RequeueAfter forgets the failures first. */
  private process(key: string): void {
    let result: ReconcileResult;
    try {
      result = this.reconcile(key);
    } catch (error) {
      result = { errors: [(error as Error).message] };
    } finally {
      this.reconcileCount++;
    }
    if (process.env.EMBEDDED_DEBUG && result.errors.length) console.error(`[agent-sandbox-controller] ${key}: ${result.errors.join('; ')}`);
    if (result.errors.length) this.queue.addRateLimited(key);
    else {
      this.queue.forget(key);
      if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    }
    this.busy--;
    this.queue.done(key);
    this.pump();
  }

  private reconcile(key: string): ReconcileResult {
    const [namespace, name] = key.split('/');
    let sandbox: KubeObject | undefined;
    try {
      // 404 from the target: the CRD no longer serves this release's version (uninstalled); nothing to do.
      sandbox = this.client.get(this.client.sandboxes(namespace), name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return { errors: [] };
      throw error;
    }
    // Gone, or being deleted: no finalizers, so a Sandbox being deleted is left to the garbage collector.
    if (!sandbox || sandbox.metadata.deletionTimestamp) return { errors: [] };
    return new SandboxReconcile(this.client, this.profile, sandbox, this.clusterDomain).run();
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}
