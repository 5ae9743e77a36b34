/**
 * A fault schedule as data: a versioned list of items `{ id, trigger, fault, heal }`, after
 * Sieve's test plans (event-triggered perturbations) and the recommendation of
 * fault-schedule research (one JSON file is the whole reproducer). Objects are named by the
 * role they play in a sandbox and the sandbox's name in the test, never by a name minted at
 * run time, so one file replays in any run. `schedule.schema.json` beside this file is the same
 * shape as a JSON Schema; parse-schedule.ts checks a file against it.
 */
import type { KubeVerb, RequestMatch } from '../request/kube-request.ts';

export const SCHEDULE_API_VERSION = 'sandbox-conformance.io/v1alpha1';
export const SCHEDULE_KIND = 'FaultSchedule';

/** The roles of a sandbox's objects, as lanes name them (driver/role-selectors.ts). */
export type ObjectRole = 'sandbox' | 'supervisorPod' | 'workloadPod' | 'generationSecrets';

/** An object of the test's sandboxes: by role, optionally of one sandbox (the name the test created it with). */
export interface ObjectRef {
  role: ObjectRole;
  sandbox?: string;
}

/**
 * A request matcher as a schedule writes it: RequestMatch, with objects named by role, and
 * `suspends`: only writes whose body turns a Sandbox's spec suspended (either Sandbox API version).
 */
export type ScheduledRequestMatch = Omit<RequestMatch, 'target'> & { object?: ObjectRef; suspends?: boolean };

/**
 * A change of an object, as the recorder sees it: created, deleted, its deletion requested, a
 * Sandbox's spec turning suspended or running again, or any field (a JSONPath) taking a value
 * (`to`; `null` is the field going away; without `to`, any change of it).
 */
export type ObjectChange = 'created' | 'deleted' | 'deletion-requested' | 'suspended' | 'resumed' | { field: string; to?: unknown };

export type Trigger =
  /** When the fault phase starts (the test's start), or `delayMs` after. */
  | { on: 'start'; delayMs?: number }
  /**
   * The `occurrence`-th request (default 1) matching `match`: as it is `received` (before it is
   * forwarded) or once it is `answered` (the upstream answered; the client has not seen it yet).
   */
  | { on: 'request'; match: ScheduledRequestMatch; occurrence?: number; at?: 'received' | 'answered' }
  /** The `occurrence`-th recorded change (default 1) of an object. */
  | { on: 'event'; object: ObjectRef; change: ObjectChange; occurrence?: number }
  /** `delayMs` (default 0) after another item fired. */
  | { on: 'after'; item: string; delayMs?: number };

export type Heal =
  /** A duration after it fired. */
  | { afterMs: number }
  /** Once it acted on this many requests or streams. */
  | { afterRequests: number }
  /** At the end of the fault phase (the default). */
  | 'end';

/** Where a stale view stands: the revision when the fault phase started, when this item fired, or when another item fired. */
export type StaleView = 'start' | 'fired' | { item: string };

export type ScheduledFault =
  | { kind: 'latency'; match?: ScheduledRequestMatch; ms: number }
  | { kind: 'error'; match?: ScheduledRequestMatch; status: 429 | 500 | 503 | 504; retryAfterSeconds?: number; commit?: boolean }
  | { kind: 'reset'; match?: ScheduledRequestMatch; commit?: boolean }
  | { kind: 'conflict'; match?: ScheduledRequestMatch }
  | { kind: 'stale-reads'; match?: ScheduledRequestMatch; view: StaleView }
  | { kind: 'watch-close'; match?: ScheduledRequestMatch; afterEvents: number }
  | { kind: 'watch-hold'; match?: ScheduledRequestMatch; release: 'deliver' | 'close' | 'expire' }
  | { kind: 'watch-expire'; match?: ScheduledRequestMatch }
  /**
   * The driver SIGKILLed (in process: halted) and started afresh, as its Deployment would: with
   * a request trigger, the replica that sent the request, at the trigger's moment (`answered`:
   * the write landed, the driver never saw the answer); otherwise `replica` (default: every one).
   */
  | { kind: 'crash'; replica?: number }
  /** One more replica of the driver, started now: it reconciles at start-up, racing the others. */
  | { kind: 'replica-start' }
  /** An admission denial (a ValidatingAdmissionPolicy, as `faults.deny` makes) of these operations on the object. */
  | { kind: 'deny'; operations: ('CREATE' | 'UPDATE' | 'DELETE')[]; object: ObjectRef; user?: 'driver' | 'anyone'; message?: string }
  /** Embedded cluster only: the Agent Sandbox controller's next `count` status writes conflict. */
  | { kind: 'controller-conflicts'; count: number }
  /** Embedded cluster only: the Agent Sandbox controller's cache lags `ms` more than usual. */
  | { kind: 'controller-cache-lag'; ms: number }
  /** Embedded cluster only: a Pod's containers take `delayMs` to stop, or ignore SIGTERM (killed at the grace period). */
  | { kind: 'container-stop'; object: ObjectRef; delayMs?: number; ignoreSigterm?: boolean };

export type FaultKind = ScheduledFault['kind'];

export interface ScheduleItem {
  /** Names the item in the timeline, reports and `after` triggers. */
  id: string;
  trigger: Trigger;
  fault: ScheduledFault;
  heal?: Heal;
}

export interface Schedule {
  apiVersion: typeof SCHEDULE_API_VERSION;
  kind: typeof SCHEDULE_KIND;
  description?: string;
  items: ScheduleItem[];
}

/** What a fault kind needs of the run: the embedded cluster, a driver the harness starts (to crash or multiply it), the admission-policy capability. */
export type FaultNeed = 'embedded-cluster' | 'harness-started-driver' | 'admission-policy' | 'driver-through-proxy';

const THROUGH_PROXY: FaultNeed[] = ['driver-through-proxy'];

/** Per kind, what the run must offer, else the test is skipped saying why. */
export const FAULT_NEEDS: Record<FaultKind, FaultNeed[]> = {
  latency: THROUGH_PROXY,
  error: THROUGH_PROXY,
  reset: THROUGH_PROXY,
  conflict: THROUGH_PROXY,
  'stale-reads': THROUGH_PROXY,
  'watch-close': THROUGH_PROXY,
  'watch-hold': THROUGH_PROXY,
  'watch-expire': THROUGH_PROXY,
  crash: ['harness-started-driver'],
  'replica-start': ['harness-started-driver'],
  deny: ['admission-policy'],
  'controller-conflicts': ['embedded-cluster'],
  'controller-cache-lag': ['embedded-cluster'],
  'container-stop': ['embedded-cluster'],
};

/** What an item needs of the run: its fault kind's needs, and the proxy when a request of the driver triggers it. */
export function itemNeeds(item: ScheduleItem): FaultNeed[] {
  const needs = new Set(FAULT_NEEDS[item.fault.kind]);
  if (item.trigger.on === 'request') needs.add('driver-through-proxy');
  return [...needs];
}

/** The verbs a request matcher may name. */
export const KUBE_VERBS: readonly KubeVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'connect'];

/** A schedule of these items, as a scenario declares one in code (`test.use({ faultSchedule: faultSchedule([...]) })`). */
export function faultSchedule(items: ScheduleItem[], description?: string): Schedule {
  return { apiVersion: SCHEDULE_API_VERSION, kind: SCHEDULE_KIND, ...(description && { description }), items };
}
