/**
 * Simpler variants of one schedule item, each a single change a reader finds easier to follow:
 * an earlier occurrence of its trigger, no delay, a shorter fault (heal sooner, fewer requests,
 * less latency, a watch cut at once). The shrinker keeps a change only when the failure stays.
 */
import type { ScheduleItem } from '../../faults/schedule/schedule.ts';

export interface Simplification {
  what: string;
  item: ScheduleItem;
}

export function simplifications(item: ScheduleItem): Simplification[] {
  const out: Simplification[] = [];
  const variant = (what: string, change: (copy: ScheduleItem) => void) => {
    const copy = structuredClone(item);
    change(copy);
    out.push({ what: `${item.id}: ${what}`, item: copy });
  };
  const { trigger, heal, fault } = item;
  if ((trigger.on === 'request' || trigger.on === 'event') && (trigger.occurrence ?? 1) > 1) {
    variant('the first occurrence of its trigger', (c) => ((c.trigger as { occurrence?: number }).occurrence = 1));
    if (trigger.occurrence! > 2) variant('an earlier occurrence of its trigger', (c) => ((c.trigger as { occurrence?: number }).occurrence = trigger.occurrence! - 1));
  }
  if ((trigger.on === 'start' || trigger.on === 'after') && (trigger.delayMs ?? 0) > 0) variant('no delay', (c) => ((c.trigger as { delayMs?: number }).delayMs = 0));
  if (heal !== undefined && heal !== 'end' && 'afterMs' in heal && heal.afterMs > 100) variant('heals in half the time', (c) => (c.heal = { afterMs: Math.max(100, Math.round(heal.afterMs / 200) * 100) }));
  if (heal !== undefined && heal !== 'end' && 'afterRequests' in heal && heal.afterRequests > 1) variant('acts on one request', (c) => (c.heal = { afterRequests: 1 }));
  if (fault.kind === 'latency' && fault.ms > 100) variant('half the latency', (c) => ((c.fault as { ms: number }).ms = Math.max(100, Math.round(fault.ms / 200) * 100)));
  if (fault.kind === 'watch-close' && fault.afterEvents > 0) variant('cuts the watch at once', (c) => ((c.fault as { afterEvents: number }).afterEvents = 0));
  return out;
}
