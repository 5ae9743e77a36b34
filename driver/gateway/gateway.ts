/**
 * The client side of OpenShell's contract, doing what OpenShell's gateway does for the harness
 * and the driver CLI: it mints sandbox ids, runs ValidateSandboxCreate then CreateSandbox,
 * derives each sandbox's phase from the driver's conditions and `deleting` (phase.ts), and waits
 * for the state a lifecycle call promises — Ready after create and start, Stopped after stop,
 * gone after delete — through WatchSandboxes, with GetSandbox as the fallback. Every call runs
 * under a deadline (the caller's, else `defaultDeadlineMs`); one that runs out fails naming its
 * stage and what the driver last showed. Each call goes to one of the driver clients (replicas),
 * picked by a seeded picker among those not retired (one client: always it), or to the one the
 * caller pins; every routing is reported to `onRoute`.
 */
import { randomBytes } from 'node:crypto';
import { DriverError, type CallOptions, type ComputeDriver, type DriverCapabilities, type DriverCondition, type DriverSandbox, type JsonObject } from '../compute-driver.ts';
import { GatewayCall } from './gateway-call.ts';
import { derivePhase, observedPhase, type SandboxPhase, type Transition } from './phase.ts';
import { seededPicker, type ReplicaPicker } from './replica-picker.ts';
import { SnapshotFeed } from './snapshot-feed.ts';

/** What a caller asks for: the harness's sandbox, mapped onto a `DriverSandbox`. */
export interface SandboxRequest {
  /** DNS-1123 label, unique per workspace. */
  name: string;
  /** The driver's default workspace when omitted. */
  workspace?: string;
  /** The sandbox's main command, run by the workload. */
  command: string[];
  environment?: Record<string, string>;
  image?: string;
  /** This sandbox's supervisor termination grace period: `driver_config.supervisorTerminationGracePeriodSeconds`. */
  supervisorGraceSeconds?: number;
  /** This sandbox's workload termination grace period: `driver_config.workloadTerminationGracePeriodSeconds`. */
  workloadGraceSeconds?: number;
}

/** A sandbox as the gateway shows it: the driver's snapshot with the derived phase. */
export interface Sandbox {
  id: string;
  name: string;
  workspace: string;
  namespace: string;
  phase: SandboxPhase;
  conditions: DriverCondition[];
  deleting: boolean;
  /** The driver's own snapshot, as it arrived. */
  snapshot: DriverSandbox;
}

export interface GatewayOptions {
  /** The driver replicas; each call goes to one of them. */
  clients: ComputeDriver[];
  /** Seeds the replica picker (default: drawn at random; `seed` tells which). */
  seed?: number;
  /** Settings every sandbox's `driver_config` carries unless the request sets its own. */
  driverConfig?: JsonObject;
  /** The deadline of a call whose caller gives none (default 10 min). */
  defaultDeadlineMs?: number;
  /** How often a wait asks GetSandbox when the watch brings nothing (default 1000). */
  pollIntervalMs?: number;
  /** Told where each call went, as it is sent (for a failing test's routing record). */
  onRoute?: (route: Route) => void;
}

/** Where one call went: the replica's index among `clients`, and whether the caller pinned it there. */
export interface Route {
  operation: string;
  sandboxId?: string;
  /** A create's: the name the caller gave the sandbox it mints the id for. */
  sandboxName?: string;
  replica: number;
  pinned: boolean;
  /** Once the call ended: `OK`, or its error's code (of calls made at once, the step's error is only one of theirs). */
  answer?: string;
}

/** A call's deadline and signal, and optionally the replica (index among `clients`) it must go to. */
export interface RouteOptions extends CallOptions {
  replica?: number;
}

const NOT_FOUND = (error: unknown) => error instanceof DriverError && error.code === 'NOT_FOUND';

export class Gateway {
  readonly seed: number;
  private readonly feeds: SnapshotFeed[];
  private readonly picker: ReplicaPicker;
  /** The transitions this gateway is carrying out, by sandbox id (OpenShell stores them as phases). */
  private readonly transitions = new Map<string, Transition>();
  /** Replicas known to be down (SIGKILLed): the picker leaves them out. */
  private readonly retired = new Set<number>();

  constructor(private readonly options: GatewayOptions) {
    this.seed = options.seed ?? randomBytes(4).readUInt32BE();
    this.picker = seededPicker(options.clients.length, this.seed);
    this.feeds = options.clients.map((client) => new SnapshotFeed(client));
  }

  /** The replica a call goes to: the pinned one, else the picker's choice among those not retired. */
  private route(operation: string, sandboxId: string | undefined, pinned: number | undefined, sandboxName?: string): { feed: SnapshotFeed; route: Route } {
    if (pinned !== undefined && !(Number.isInteger(pinned) && pinned >= 0 && pinned < this.feeds.length)) {
      throw new Error(`no driver replica ${pinned}: the gateway has ${this.feeds.length} (0-${this.feeds.length - 1})`);
    }
    const live = this.feeds.map((_, i) => i).filter((i) => !this.retired.has(i));
    if (pinned === undefined && live.length === 0) throw new DriverError('UNAVAILABLE', `every driver replica (${this.feeds.length}) is down`);
    const replica = pinned ?? this.picker.next(live);
    const route: Route = { operation, sandboxId, ...(sandboxName !== undefined && { sandboxName }), replica, pinned: pinned !== undefined };
    this.options.onRoute?.(route);
    return { feed: this.feeds[replica], route };
  }

  /**
   * Takes a replica out of the routing (it was killed): later calls go to the others, its watch
   * is ended. A call already on it fails as its connection does.
   */
  async retire(replica: number): Promise<void> {
    this.retired.add(replica);
    await this.feeds[replica]?.close();
  }

  capabilities(options?: RouteOptions): Promise<DriverCapabilities> {
    return this.run('capabilities', options, undefined, (call, feed) => feed.client.getCapabilities(call.options));
  }

  /** ValidateSandboxCreate only (with an id minted as for a create). */
  validate(request: SandboxRequest, options?: RouteOptions): Promise<void> {
    return this.run('validate', options, undefined, async (call, feed) => {
      call.enter('ValidateSandboxCreate');
      await feed.client.validateSandboxCreate(this.driverSandbox(randomBytes(8).toString('hex'), request), call.options);
    });
  }

  /** Mints the id, ValidateSandboxCreate, EnsureWorkspace, CreateSandbox; resolves once the sandbox is Ready. */
  create(request: SandboxRequest, options?: RouteOptions): Promise<Sandbox> {
    const id = randomBytes(8).toString('hex');
    return this.run('create', options, id, async (call, feed) => {
      const sandbox = this.driverSandbox(id, request);
      call.enter('ValidateSandboxCreate');
      await feed.client.validateSandboxCreate(sandbox, call.options);
      if (sandbox.workspace) {
        call.enter('EnsureWorkspace');
        await feed.client.ensureWorkspace(sandbox.workspace, call.options).catch((error) => {
          if (!(error instanceof DriverError && error.code === 'UNIMPLEMENTED')) throw error; // as OpenShell's gateway: UNIMPLEMENTED is success
        });
      }
      return this.transition(id, 'create', async () => {
        call.enter('CreateSandbox');
        await feed.client.createSandbox(sandbox, call.options);
        return this.until(call, feed, id, 'Ready', 'waiting for the sandbox to become Ready');
      });
    }, request.name);
  }

  get(id: string, options?: RouteOptions): Promise<Sandbox> {
    return this.run('get', options, id, async (call, feed) => {
      call.enter('GetSandbox');
      const sandbox = await feed.client.getSandbox({ sandboxId: id }, call.options);
      feed.record(id, sandbox);
      return this.view(sandbox);
    });
  }

  list(options?: RouteOptions): Promise<Sandbox[]> {
    return this.run('list', options, undefined, async (call, feed) => {
      call.enter('ListSandboxes');
      return (await feed.client.listSandboxes(call.options)).map((s) => this.view(s));
    });
  }

  /** StopSandbox; resolves once the sandbox shows Stopped. */
  stop(id: string, options?: RouteOptions): Promise<Sandbox> {
    return this.run('stop', options, id, (call, feed) =>
      this.transition(id, 'stop', async () => {
        call.enter('StopSandbox');
        await feed.client.stopSandbox({ sandboxId: id }, call.options);
        return this.until(call, feed, id, 'Stopped', 'waiting for the sandbox to show Stopped');
      }),
    );
  }

  /** StartSandbox with a newly minted generation id; resolves once the sandbox is Ready again. */
  start(id: string, options?: RouteOptions): Promise<Sandbox> {
    const generationId = randomBytes(32).toString('hex');
    return this.run('start', options, id, (call, feed) =>
      this.transition(id, 'start', async () => {
        call.enter('StartSandbox');
        await feed.client.startSandbox({ sandboxId: id, generationId }, call.options);
        return this.until(call, feed, id, 'Ready', 'waiting for the sandbox to become Ready');
      }),
    );
  }

  /** DeleteSandbox; when the driver deleted something, resolves true once the watch says `deleted` (or GetSandbox NOT_FOUND). */
  delete(id: string, options?: RouteOptions): Promise<boolean> {
    return this.run('delete', options, id, (call, feed) =>
      this.transition(id, 'delete', async () => {
        call.enter('DeleteSandbox');
        if (!(await feed.client.deleteSandbox({ sandboxId: id }, call.options))) return false;
        await this.until(call, feed, id, 'gone', 'waiting for the watch to report the sandbox deleted');
        return true;
      }),
    );
  }

  /** What the driver last showed of a sandbox (for failure messages), or undefined. */
  lastSeen(id: string) {
    return this.feeds.map((f) => f.sighting(id)).filter((s) => s !== undefined).sort((a, b) => b.at - a.at)[0];
  }

  /** Ends the watches. The clients stay open: whoever made them closes them. */
  async close(): Promise<void> {
    await Promise.all(this.feeds.map((f) => f.close()));
  }

  private view(sandbox: DriverSandbox): Sandbox {
    return {
      id: sandbox.id,
      name: sandbox.name,
      workspace: sandbox.workspace,
      namespace: sandbox.namespace,
      phase: derivePhase(sandbox, this.transitions.get(sandbox.id)),
      conditions: sandbox.status?.conditions ?? [],
      deleting: sandbox.status?.deleting ?? false,
      snapshot: sandbox,
    };
  }

  private driverSandbox(id: string, request: SandboxRequest): DriverSandbox {
    const driverConfig: JsonObject = { ...this.options.driverConfig };
    if (request.supervisorGraceSeconds !== undefined) driverConfig.supervisorTerminationGracePeriodSeconds = request.supervisorGraceSeconds;
    if (request.workloadGraceSeconds !== undefined) driverConfig.workloadTerminationGracePeriodSeconds = request.workloadGraceSeconds;
    const template = {
      ...(request.image && { image: request.image }),
      ...(Object.keys(driverConfig).length && { driverConfig }),
    };
    return {
      id,
      name: request.name,
      namespace: '',
      workspace: request.workspace ?? '',
      spec: {
        command: request.command,
        ...(request.environment && Object.keys(request.environment).length && { environment: request.environment }),
        ...(Object.keys(template).length && { template }),
      },
    };
  }

  /** `work` with the sandbox marked as in `transition` for derived phases; unmarked after. */
  private async transition<T>(id: string, transition: Transition, work: () => Promise<T>): Promise<T> {
    this.transitions.set(id, transition);
    try {
      return await work();
    } finally {
      if (this.transitions.get(id) === transition) this.transitions.delete(id);
    }
  }

  /** One call under its deadline, routed to a replica; `name`: a create's sandbox name, for the route. */
  private async run<T>(operation: string, options: RouteOptions | undefined, id: string | undefined, work: (call: GatewayCall, feed: SnapshotFeed) => Promise<T>, name?: string): Promise<T> {
    const deadline = options?.deadline ?? Date.now() + (this.options.defaultDeadlineMs ?? 600_000);
    const call = new GatewayCall(operation, deadline, options?.signal, (sid) => this.lastSeen(sid));
    call.sandboxId = id;
    let routed: Route | undefined;
    try {
      call.check();
      const { feed, route } = this.route(operation, id, options?.replica, name);
      routed = route;
      const answer = await work(call, feed);
      route.answer = 'OK';
      return answer;
    } catch (error) {
      const failure = call.failure(error);
      if (routed) routed.answer = (failure as Error & { code?: unknown }).code?.toString() ?? 'an error without a code';
      throw failure;
    } finally {
      call.close();
    }
  }

  /**
   * Waits until the sandbox shows `wanted`, reading it first with GetSandbox (so no watch event
   * from before the call counts), then taking each watch snapshot as it arrives and asking
   * GetSandbox again whenever the watch stays silent for a poll interval.
   */
  private async until(call: GatewayCall, feed: SnapshotFeed, id: string, wanted: 'Ready' | 'Stopped', stage: string): Promise<Sandbox>;
  private async until(call: GatewayCall, feed: SnapshotFeed, id: string, wanted: 'gone', stage: string): Promise<undefined>;
  private async until(call: GatewayCall, feed: SnapshotFeed, id: string, wanted: 'Ready' | 'Stopped' | 'gone', stage: string): Promise<Sandbox | undefined> {
    feed.open();
    call.enter(stage);
    let fromWatch = false;
    for (;;) {
      call.check();
      if (!fromWatch) {
        const sandbox = await feed.client.getSandbox({ sandboxId: id }, call.options).catch((error) => (NOT_FOUND(error) ? undefined : Promise.reject(error)));
        feed.record(id, sandbox);
      }
      const seen = feed.sighting(id)!;
      if (wanted === 'gone') {
        if (!seen.sandbox) return undefined;
      } else {
        const done = this.settled(seen.sandbox, wanted, id);
        if (done) return done;
      }
      const at = seen.at;
      await feed.changed(this.options.pollIntervalMs ?? 1000, call.signal);
      const after = feed.sighting(id);
      fromWatch = !!after && after.at !== at && after.from === 'watch';
    }
  }

  /**
   * The sandbox once it shows `wanted`; undefined while it does not yet; throws when it never
   * will: it became Error or Deleting, or (waiting for Ready) the driver reports `StartFailed=True`.
   */
  private settled(sandbox: DriverSandbox | undefined, wanted: 'Ready' | 'Stopped', id: string): Sandbox | undefined {
    if (!sandbox) throw new DriverError('NOT_FOUND', `sandbox ${id} was deleted while the gateway waited for it to become ${wanted}`);
    const startFailed = wanted === 'Ready' ? sandbox.status?.conditions.find((c) => c.type === 'StartFailed' && c.status === 'True') : undefined;
    // The driver failed the generation at a stage of its own (e.g. supervisor readiness): its words, naming the stage.
    if (startFailed) throw new DriverError('FAILED_PRECONDITION', `sandbox ${id}: ${startFailed.message}`);
    const observed = observedPhase(sandbox);
    if (observed === wanted) return this.view(sandbox);
    if (observed === 'Error' || observed === 'Deleting') {
      throw new DriverError('FAILED_PRECONDITION', `sandbox ${id} became ${observed} while the gateway waited for it to become ${wanted}: ${(sandbox.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason} ${c.message}`.trim()).join('; ')}`);
    }
    return undefined;
  }
}
