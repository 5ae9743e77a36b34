/**
 * One run of a fault schedule over one test's fault phase: arms every item's trigger, fires it
 * when the trigger happens — a request seen at the proxy, a change the recorder saw, the phase's
 * start, another item firing — puts the fault in force (at the proxy, through the harness, or in
 * the embedded cluster), heals it when its heal says, and reports each firing and heal as it
 * happens (the harness records them in the timeline). `end()` closes the phase: whatever is still
 * in force heals, and items that never fired are reported as such.
 */
import { CONCURRENT_WRITE_ANNOTATION } from '../proxy/kinds/request-faults.ts';
import type { ActiveFault, AppliedListener, ProxyFaultSpec, RequestObserver, UpstreamAnswer } from '../proxy/proxy-fault.ts';
import type { KubeRequest } from '../request/kube-request.ts';
import type { FaultKind, ObjectRef, ObjectRole, Schedule, ScheduleItem, ScheduledFault } from '../schedule/schedule.ts';
import { isChange, type ObservedChange, type SuspendedInSpec, type WatchedObject } from './object-change.ts';
import { describeRequest, toRequestMatch, type KnownObjects, type ObjectReadings } from './resolve-match.ts';

/** What the run needs of the fault proxy the driver talks through. */
export interface ProxyControl {
  activate(spec: ProxyFaultSpec, onApplied?: AppliedListener): ActiveFault;
  observe(observer: RequestObserver): () => void;
  /** The cluster's current revision. */
  revision(): Promise<string>;
}

/** Something in force that a heal ends. */
export interface Healable {
  heal(): Promise<void>;
}

/** The objects of the test's sandboxes a fault is aimed at, resolved to names when it fires. */
export interface ObjectTargets {
  namespace: string;
  names: string[];
}

/** What the harness does for faults beyond the proxy; each resolves once done, saying what it did. */
export interface FaultHost {
  /** SIGKILLs driver replica `replica` (every one when undefined) and starts it afresh. */
  crash(replica: number | undefined): Promise<string>;
  /** Starts one more replica of the driver, which reconciles at start-up. */
  startReplica(): Promise<string>;
  deny(fault: Extract<ScheduledFault, { kind: 'deny' }>, targets: ObjectTargets[]): Promise<Healable>;
  /** The embedded cluster's own fault hooks; absent on other clusters. */
  embedded?: {
    controllerConflicts(count: number): Promise<Healable>;
    controllerCacheLag(ms: number): Promise<Healable>;
    containerStop(target: ObjectTargets, stop: { delayMs?: number; ignoreSigterm?: boolean }): Promise<Healable>;
  };
}

/** Which role an object plays in which sandbox (the test's name for it), by the lane's role selectors. */
export type ClassifyObject = (resource: string, object: WatchedObject) => { role: ObjectRole; sandbox?: string } | undefined;

export interface FaultReport {
  item: string;
  fault: FaultKind;
  status: 'fired' | 'healed' | 'never-fired';
  detail: string;
}

export interface ScheduleRunOptions {
  /** The proxy the driver's requests go through; absent when no item needs it. */
  proxy?: ProxyControl;
  host: FaultHost;
  classify: ClassifyObject;
  suspended: SuspendedInSpec;
  report: (report: FaultReport) => void;
}

interface ItemState {
  item: ScheduleItem;
  /** Requests or changes seen so far that match its trigger. */
  seen: number;
  fired: boolean;
  /** The cluster's revision when it fired, for stale views that name it. */
  revision?: string;
  inForce?: Healable;
  healed: boolean;
  firedSignal: { promise: Promise<void>; resolve: () => void };
}

/** A fault the schedule aims at something this run does not have (no such object yet): reported, never the driver's failure. */
class NotApplicable extends Error {}

/** How long `fired()` waits by default: a trigger still to come after this is not coming in a scenario's time. */
const FIRED_DEADLINE_MS = 60_000;

const ORDINAL = (n: number) => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

export class ScheduleRun {
  private readonly items: ItemState[];
  private readonly known: KnownObjects = new Map();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly errors: Error[] = [];
  private startRevision?: string;
  private ended = false;
  private stopObserving?: () => void;
  private readonly readings: ObjectReadings;

  constructor(
    private readonly schedule: Schedule,
    private readonly options: ScheduleRunOptions,
  ) {
    this.readings = { known: this.known, classify: options.classify, suspended: options.suspended };
    this.items = schedule.items.map((item) => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { item, seen: 0, fired: false, healed: false, firedSignal: { promise, resolve } };
    });
  }

  /** Starts the fault phase: reads the revision stale views may name, arms request triggers, fires `start` items. */
  async start(): Promise<void> {
    if (this.options.proxy) {
      this.startRevision = await this.options.proxy.revision();
      this.stopObserving = this.options.proxy.observe((request, phase, client, answer) => this.onRequest(request, phase, client, answer));
    }
    for (const state of this.items) {
      if (state.item.trigger.on === 'start') this.later(state.item.trigger.delayMs ?? 0, () => this.fire(state, 'at the start of the fault phase'));
    }
  }

  /** A change the recorder saw: keeps track of the test's objects by role, and fires event triggers. */
  observe(resource: string, type: ObservedChange['type'], object: WatchedObject): void {
    const uid = object.metadata?.uid;
    const role = this.options.classify(resource, object);
    if (!uid || !role) return;
    const previous = this.known.get(uid);
    if (type === 'DELETED') this.known.delete(uid);
    else this.known.set(uid, { resource, ...role, namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '', object });
    if (this.ended || (type === 'MODIFIED' && previous && onlyConcurrentWrite(previous.object, object))) return;
    const change: ObservedChange = { type, before: previous?.object, after: object };
    for (const state of this.items) {
      const { trigger } = state.item;
      if (trigger.on !== 'event' || state.fired || !refersTo(trigger.object, resource, role)) continue;
      if (!isChange(trigger.change, change, this.options.suspended)) continue;
      state.seen++;
      if (state.seen === (trigger.occurrence ?? 1)) {
        const what = typeof trigger.change === 'string' ? trigger.change : `${trigger.change.field} changed`;
        this.track(this.fire(state, `on the ${ORDINAL(state.seen)} time ${roleName(role.role)} ${object.metadata?.name} was ${what}`));
      }
    }
  }

  /** Resolves once item `id` has fired. */
  fired(id: string, deadlineMs = FIRED_DEADLINE_MS): Promise<void> {
    const state = this.items.find((s) => s.item.id === id);
    if (!state) throw new Error(`no item "${id}" in the schedule; its items: ${this.items.map((s) => s.item.id).join(', ')}`);
    if (state.fired) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`waiting for fault "${id}" to fire: its trigger (${describeTrigger(state.item)}) did not happen within ${deadlineMs / 1000} s`)), deadlineMs);
    });
    return Promise.race([state.firedSignal.promise, deadline]).finally(() => clearTimeout(timer));
  }

  /** Whether item `id` has fired. */
  hasFired(id: string): boolean {
    return this.items.some((s) => s.item.id === id && s.fired);
  }

  /**
   * Ends the fault phase: no trigger fires any more, everything in force heals, and every item
   * that never fired is reported. Throws when a fault could not be put in force or healed.
   */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopObserving?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.pending]);
    await Promise.all(this.items.filter((s) => s.fired && !s.healed).map((s) => this.heal(s, 'at the end of the fault phase')));
    for (const state of this.items) {
      if (!state.fired) this.options.report({ item: state.item.id, fault: state.item.fault.kind, status: 'never-fired', detail: `its trigger (${describeTrigger(state.item)}) did not happen during the fault phase` });
    }
    if (this.errors.length) throw new Error(`the fault schedule could not be carried out: ${this.errors.map((e) => e.message).join('; ')}`);
  }

  private onRequest(request: KubeRequest, phase: 'received' | 'answered', client: number, answer?: UpstreamAnswer): void | 'drop' | Promise<void | 'drop'> {
    if (this.ended) return;
    // "Answered" means the request did what it asked: a refused one (a 409, a 403) is no such moment.
    if (phase === 'answered' && !(answer && answer.status >= 200 && answer.status < 300)) return;
    const firing: Promise<void>[] = [];
    let drop = false;
    for (const state of this.items) {
      const { trigger } = state.item;
      if (trigger.on !== 'request' || state.fired || (trigger.at ?? 'received') !== phase) continue;
      if (!toRequestMatch(trigger.match, this.readings).test(request, client)) continue;
      state.seen++;
      if (state.seen !== (trigger.occurrence ?? 1)) continue;
      const context = `on the ${ORDINAL(state.seen)} ${describeRequest(request, client)} (${phase})`;
      if (state.item.fault.kind === 'crash') {
        // The client that sent the request dies here: at `answered` its write landed and it never sees the answer.
        drop = true;
        firing.push(this.fire(state, context, client));
      } else firing.push(this.fire(state, context));
    }
    if (!firing.length) return;
    const all = Promise.all(firing).then(() => (drop ? 'drop' : undefined));
    this.track(all);
    return all;
  }

  /** Puts the item's fault in force; never throws (a failure is kept for `end()` and shown in the report). */
  private async fire(state: ItemState, context: string, client?: number): Promise<void> {
    if (state.fired || this.ended) return;
    state.fired = true;
    const { item } = state;
    try {
      if (this.needsRevision(item.id)) state.revision = await this.proxy(item).revision();
      const detail = await this.putInForce(state, client);
      this.options.report({ item: item.id, fault: item.fault.kind, status: 'fired', detail: `${context}: ${detail}` });
    } catch (error) {
      if (error instanceof NotApplicable) {
        // Nothing of the driver's doing: the schedule aimed at something this run does not have.
        this.options.report({ item: item.id, fault: item.fault.kind, status: 'never-fired', detail: `${context}: not applicable: ${error.message}` });
        state.healed = true;
        state.firedSignal.resolve();
        return;
      }
      const message = `item "${item.id}" (${item.fault.kind}) ${context}: ${(error as Error).message}`;
      this.errors.push(new Error(message));
      this.options.report({ item: item.id, fault: item.fault.kind, status: 'fired', detail: `${context}: FAILED: ${(error as Error).message}` });
      state.healed = true;
    }
    state.firedSignal.resolve();
    for (const next of this.items) {
      const trigger = next.item.trigger;
      if (trigger.on !== 'after' || trigger.item !== item.id) continue;
      const delay = trigger.delayMs ?? 0;
      this.later(delay, () => this.fire(next, `after "${item.id}" fired${delay ? ` (+${delay} ms)` : ''}`));
    }
    if (state.inForce && !state.healed) this.armHeal(state);
  }

  /** Puts the fault in force; resolves with what it did. */
  private async putInForce(state: ItemState, client: number | undefined): Promise<string> {
    const { fault } = state.item;
    const host = this.options.host;
    switch (fault.kind) {
      case 'crash': {
        const did = await host.crash(client ?? fault.replica);
        state.healed = true; // a crash is over once the fresh driver serves
        return did;
      }
      case 'replica-start':
        state.healed = true;
        return host.startReplica();
      case 'deny': {
        const targets = this.targets(fault.object);
        if (!targets.length) throw new NotApplicable(`no ${roleName(fault.object.role)} of ${fault.object.sandbox ?? 'the test'} existed yet to deny ${fault.operations.join('/')} on`);
        state.inForce = await host.deny(fault, targets);
        return `refusing ${fault.operations.join(', ')} of ${describeTargets(targets)}`;
      }
      case 'controller-conflicts':
        state.inForce = await this.embedded(fault.kind).controllerConflicts(fault.count);
        return `the Agent Sandbox controller's next ${fault.count} status writes conflict`;
      case 'controller-cache-lag':
        state.inForce = await this.embedded(fault.kind).controllerCacheLag(fault.ms);
        return `the Agent Sandbox controller's cache lags ${fault.ms} ms more`;
      case 'container-stop': {
        const [target] = this.targets(fault.object);
        if (!target) throw new NotApplicable(`no ${roleName(fault.object.role)} of ${fault.object.sandbox ?? 'the test'} existed yet`);
        state.inForce = await this.embedded(fault.kind).containerStop(target, { delayMs: fault.delayMs, ignoreSigterm: fault.ignoreSigterm });
        return `${describeTargets([target])}: containers ${fault.ignoreSigterm ? 'ignore SIGTERM' : `take ${fault.delayMs} ms to stop`}`;
      }
      default: {
        const spec = this.proxySpec(fault, state);
        let applied = 0;
        const healAfter = typeof state.item.heal === 'object' && 'afterRequests' in state.item.heal ? state.item.heal.afterRequests : undefined;
        const healIfDone = () => {
          if (healAfter !== undefined && applied >= healAfter && state.inForce) this.track(this.heal(state, `after acting on ${applied} request${applied === 1 ? '' : 's'}`));
        };
        state.inForce = this.proxy(state.item).activate(spec, () => {
          applied++;
          healIfDone();
        });
        // It may have acted already as it was switched on (on streams open at that moment).
        healIfDone();
        return describeProxyFault(spec);
      }
    }
  }

  private armHeal(state: ItemState): void {
    const heal = state.item.heal;
    if (heal && typeof heal === 'object' && 'afterMs' in heal) this.later(heal.afterMs, () => this.heal(state, `${heal.afterMs} ms after it fired`));
  }

  private async heal(state: ItemState, why: string): Promise<void> {
    if (state.healed || !state.inForce) return;
    state.healed = true;
    try {
      await state.inForce.heal();
      this.options.report({ item: state.item.id, fault: state.item.fault.kind, status: 'healed', detail: why });
    } catch (error) {
      this.errors.push(new Error(`item "${state.item.id}" (${state.item.fault.kind}) could not be healed: ${(error as Error).message}`));
      this.options.report({ item: state.item.id, fault: state.item.fault.kind, status: 'healed', detail: `${why}: FAILED: ${(error as Error).message}` });
    }
  }

  private proxySpec(fault: ScheduledFault, state: ItemState): ProxyFaultSpec {
    const match = { ...toRequestMatch('match' in fault ? (fault.match ?? {}) : {}, this.readings).match };
    switch (fault.kind) {
      case 'latency':
        return { kind: 'latency', match, ms: fault.ms };
      case 'error':
        return { kind: 'error', match, status: fault.status, retryAfterSeconds: fault.retryAfterSeconds, commit: fault.commit };
      case 'reset':
        return { kind: 'reset', match, commit: fault.commit };
      case 'conflict':
        return { kind: 'conflict', match };
      case 'stale-reads':
        return { kind: 'stale-reads', match, revision: this.viewRevision(fault.view, state) };
      case 'watch-close':
        return { kind: 'watch-close', match: { verb: 'watch', ...match }, afterEvents: fault.afterEvents };
      case 'watch-hold':
        return { kind: 'watch-hold', match: { verb: 'watch', ...match }, release: fault.release };
      case 'watch-expire':
        return { kind: 'watch-expire', match: { verb: 'watch', ...match } };
      default:
        throw new Error(`${fault.kind} is not a proxy fault`);
    }
  }

  private viewRevision(view: Extract<ScheduledFault, { kind: 'stale-reads' }>['view'], state: ItemState): string {
    if (view === 'start') return this.startRevision!;
    if (view === 'fired') return state.revision!;
    const named = this.items.find((s) => s.item.id === view.item)!;
    if (!named.revision) throw new NotApplicable(`its view is the revision when "${view.item}" fired, which had not fired yet`);
    return named.revision;
  }

  /** Items whose firing revision a stale view names: this one (view "fired"), or another's. */
  private needsRevision(id: string): boolean {
    return this.items.some(({ item: { id: other, fault } }) => fault.kind === 'stale-reads' && ((fault.view === 'fired' && other === id) || (typeof fault.view === 'object' && fault.view.item === id)));
  }

  private proxy(item: ScheduleItem): ProxyControl {
    if (!this.options.proxy) throw new Error(`item "${item.id}" (${item.fault.kind}) acts on the driver's requests, and this run has no fault proxy in front of the driver`);
    return this.options.proxy;
  }

  private embedded(kind: FaultKind): NonNullable<FaultHost['embedded']> {
    if (!this.options.host.embedded) throw new Error(`${kind} needs the embedded cluster's own fault hooks`);
    return this.options.host.embedded;
  }

  /** The objects a reference names now, grouped by namespace. */
  private targets(ref: ObjectRef): ObjectTargets[] {
    const byNamespace = new Map<string, string[]>();
    for (const o of this.known.values()) {
      if (o.role !== ref.role || (ref.sandbox !== undefined && o.sandbox !== ref.sandbox)) continue;
      byNamespace.set(o.namespace, [...(byNamespace.get(o.namespace) ?? []), o.name]);
    }
    return [...byNamespace].map(([namespace, names]) => ({ namespace, names: names.sort() }));
  }

  private later(ms: number, work: () => Promise<void>): void {
    if (this.ended) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(work());
    }, ms);
    this.timers.add(timer);
  }

  private track<T>(work: Promise<T>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    tracked.catch(() => undefined);
  }
}

function refersTo(ref: ObjectRef, resource: string, role: { role: ObjectRole; sandbox?: string }): boolean {
  return ref.role === role.role && (ref.sandbox === undefined || ref.sandbox === role.sandbox) && RESOURCE_OF_ROLE[ref.role] === resource;
}

const RESOURCE_OF_ROLE: Record<ObjectRole, string> = { sandbox: 'sandboxes', supervisorPod: 'pods', workloadPod: 'pods', generationSecrets: 'secrets' };

function roleName(role: ObjectRole): string {
  return { sandbox: 'the Sandbox', supervisorPod: 'the supervisor Pod', workloadPod: 'the workload Pod', generationSecrets: 'a generation Secret' }[role];
}

function describeTargets(targets: ObjectTargets[]): string {
  return targets.map((t) => `${t.namespace}/${t.names.join(', ')}`).join('; ');
}

function describeTrigger(item: ScheduleItem): string {
  const t = item.trigger;
  switch (t.on) {
    case 'start':
      return 'the start of the fault phase';
    case 'after':
      return `after "${t.item}"`;
    case 'event':
      return `the ${ORDINAL(t.occurrence ?? 1)} time ${roleName(t.object.role)}${t.object.sandbox ? ` of ${t.object.sandbox}` : ''} was ${typeof t.change === 'string' ? t.change : `changed at ${t.change.field}`}`;
    case 'request':
      return `the ${ORDINAL(t.occurrence ?? 1)} request matching ${JSON.stringify(t.match)} (${t.at ?? 'received'})`;
  }
}

function describeProxyFault(spec: ProxyFaultSpec): string {
  switch (spec.kind) {
    case 'latency':
      return `delaying matching requests ${spec.ms} ms`;
    case 'error':
      return `answering matching requests ${spec.status}${spec.commit ? ' after forwarding them' : ''}`;
    case 'reset':
      return `resetting the connections of matching requests${spec.commit ? ' after forwarding them' : ''}`;
    case 'conflict':
      return 'a concurrent write before every matching write conditioned on a resourceVersion';
    case 'stale-reads':
      return `reads that allow it answered as of revision ${spec.revision}`;
    case 'watch-close':
      return `matching watches end after ${spec.afterEvents} more event${spec.afterEvents === 1 ? '' : 's'}`;
    case 'watch-hold':
      return `matching watches held (released: ${spec.release})`;
    case 'watch-expire':
      return 'matching watches ended, their resumes refused with 410 Expired';
  }
}

/**
 * Whether a change is only the third party's write a conflict fault makes before a conditioned
 * write (its annotation, and the revision and field managers that come with any write): the
 * harness's own doing, which no trigger may take for a change of the driver's or the cluster's.
 */
function onlyConcurrentWrite(before: WatchedObject, after: WatchedObject): boolean {
  const strip = (object: WatchedObject) => {
    const { resourceVersion: _rv, managedFields: _mf, annotations = {}, ...metadata } = (object.metadata ?? {}) as Record<string, unknown> & { annotations?: Record<string, string> };
    const { [CONCURRENT_WRITE_ANNOTATION]: _mark, ...others } = annotations;
    return JSON.stringify({ ...object, metadata: { ...metadata, annotations: others } });
  };
  const marked = (object: WatchedObject) => (object.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[CONCURRENT_WRITE_ANNOTATION];
  return marked(before) !== marked(after) && strip(before) === strip(after);
}
