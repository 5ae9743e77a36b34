/**
 * A run's fault schedule, drawn from its seed: the swarm of kinds this run switches on, then one
 * to ten items, each a fault of one of those kinds fired by a trigger taken from the reference
 * run's points (or, now and then, a moment after the start). Every value stays inside what the
 * format allows and what a real API server can show (faults/schedule/schedule.ts), and every
 * fault heals within seconds or at the end of the fault phase, so the convergence window judges
 * what the driver does once the cluster is healthy again.
 */
import { faultSchedule, type FaultKind, type ObjectRole, type Schedule, type ScheduleItem, type ScheduledFault, type Trigger, type Heal } from '../../faults/schedule/schedule.ts';
import { seededRandom, type Random } from '../program/seeded-random.ts';
import type { ReferencePoints } from './reference-points.ts';
import { drawSwarm } from './swarm.ts';

export const MAX_ITEMS = 10;

export interface ScheduleOptions {
  /** The first part of a search: Sieve's three perturbations alone. */
  sieveOnly: boolean;
}

export function generateSchedule(seed: number, points: ReferencePoints, options: ScheduleOptions): Schedule {
  const random = seededRandom(seed);
  const swarm = drawSwarm(random, options.sieveOnly);
  const count = random.weighted([
    [1, 4],
    [2, 4],
    [3, 2],
    [4, 1],
    [random.int(5, MAX_ITEMS), 1],
  ]);
  const items: ScheduleItem[] = [];
  for (let i = 0; i < count; i++) {
    const kind = random.weighted(swarm);
    items.push(drawItem(random, kind, `${kind}-${i + 1}`, points));
  }
  return faultSchedule(items, `explore: ${swarm.map(([k, w]) => `${k}×${w}`).join(', ')}`);
}

/**
 * Where the stop hands over from one object to the next — the supervisor Pod's deletion, a
 * suspension after the first (the create's own is the first) — is where Sieve's perturbations
 * bite (a stale view, a crash between writes, a missed event): half the triggers are drawn there.
 */
function handOver(points: ReferencePoints) {
  const events = points.events.filter((p) => (p.object.role === 'supervisorPod' && p.change === 'deletion-requested') || (p.object.role === 'sandbox' && p.change === 'suspended' && p.occurrence > 1));
  const requests = points.requests.filter((p) => p.match.verb === 'delete' || (p.match.suspends && p.occurrence > 1));
  return { events, requests };
}

function drawTrigger(random: Random, points: ReferencePoints, options: { writeAnswered?: boolean } = {}): Trigger {
  const key = handOver(points);
  const focus = random.chance(0.5) && key.events.length + key.requests.length > 0;
  const { events, requests } = focus ? key : points;
  if (options.writeAnswered && requests.length) {
    const point = random.pick(requests.filter((p) => p.write));
    return { on: 'request', match: point.match, occurrence: point.occurrence, at: 'answered' };
  }
  const from = random.weighted([
    ['event', events.length ? 6 : 0],
    ['request', requests.length ? 3 : 0],
    ['start', focus ? 0 : 1],
  ] as const);
  if (from === 'event') {
    const point = random.pick(events);
    return { on: 'event', object: point.object, change: point.change, occurrence: point.occurrence };
  }
  if (from === 'request') {
    const point = random.pick(requests);
    return { on: 'request', match: point.match, occurrence: point.occurrence, ...(random.chance(0.3) && { at: 'answered' as const }) };
  }
  return { on: 'start', delayMs: random.int(0, 20) * 100 };
}

function drawItem(random: Random, kind: FaultKind, id: string, points: ReferencePoints): ScheduleItem {
  const watched = () => random.pick(['pods', 'sandboxes'] as const);
  const ms = (min: number, max: number) => random.int(min / 100, max / 100) * 100;
  let fault: ScheduledFault;
  let heal: Heal | undefined;
  let trigger = drawTrigger(random, points);
  switch (kind) {
    case 'stale-reads':
      fault = { kind, view: random.pick(['start', 'fired'] as const) };
      heal = random.chance(0.5) ? 'end' : { afterMs: ms(1000, 4000) };
      break;
    case 'crash':
      // Sieve's intermediate state: the write landed, the driver never saw the answer.
      trigger = drawTrigger(random, points, { writeAnswered: random.chance(0.8) });
      fault = { kind };
      break;
    case 'watch-hold':
      fault = { kind, match: { resource: watched() }, release: random.pick(['deliver', 'close', 'expire'] as const) };
      heal = { afterMs: ms(500, 3000) };
      break;
    case 'watch-expire':
      fault = { kind, match: { resource: watched() } };
      heal = { afterMs: ms(300, 2000) };
      break;
    case 'watch-close':
      fault = { kind, match: { resource: watched() }, afterEvents: random.int(0, 2) };
      heal = { afterMs: ms(500, 2000) };
      break;
    case 'conflict':
      fault = { kind, match: { writes: true } };
      heal = { afterRequests: random.int(1, 3) };
      break;
    case 'deny': {
      const role = random.pick<ObjectRole>(['sandbox', 'supervisorPod', 'generationSecrets']);
      fault = { kind, operations: [random.pick(['DELETE', 'UPDATE'] as const)], object: { role, ...(points.sandboxes.length && { sandbox: random.pick(points.sandboxes) }) }, user: 'driver' };
      heal = { afterMs: ms(500, 3000) };
      break;
    }
    case 'latency':
      fault = { kind, match: random.pick([{ writes: true }, { verb: 'get' as const }, { verb: 'list' as const }]), ms: ms(100, 1000) };
      heal = { afterMs: ms(1000, 5000) };
      break;
    case 'error': {
      const status = random.pick([429, 500, 503, 504] as const);
      // Reads weigh double: a driver polls far more than it writes, and etcd's trouble hits them alike.
      const verb = random.weighted([['get', 2], ['patch', 1], ['update', 1], ['delete', 1]] as const);
      fault = { kind, status, match: { verb }, ...(status === 429 && { retryAfterSeconds: 1 }), ...(status === 504 && random.chance(0.5) && { commit: true }) };
      // One or two requests, or a stretch of etcd trouble (a leader change, heavy load: apiserver-answers.md's 500s) of up to 2 s.
      heal = random.chance(0.5) ? { afterRequests: random.int(1, 2) } : { afterMs: ms(500, 2000) };
      break;
    }
    case 'replica-start':
      fault = { kind };
      break;
    default:
      throw new Error(`the explorer draws no ${kind} faults`);
  }
  return { id, trigger, fault, ...(heal !== undefined && { heal }) };
}
