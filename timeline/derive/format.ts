/**
 * The one-line text form of a timeline entry: what failure messages quote, and the columns of
 * the entries table on the page.
 */
import type { ObjectEntry, TimelineEntry, WatchedResource } from '../model.ts';
import type { ObjectHistory } from './histories.ts';

export const KIND: Record<WatchedResource, string> = { pods: 'Pod', sandboxes: 'Sandbox', secrets: 'Secret' };

/** `+2.35s` — milliseconds since the recording started, as seconds. */
export function formatOffset(ms: number): string {
  return `+${(ms / 1000).toFixed(2)}s`;
}

interface EntryColumns {
  time: string;
  kind: string;
  name: string;
  type: string;
  summary: string;
}

export function entryColumns(entry: TimelineEntry): EntryColumns {
  const time = formatOffset(entry.t);
  switch (entry.kind) {
    case 'object':
      return { time, kind: KIND[entry.resource] ?? entry.resource, name: entry.name, type: entry.type, summary: summarizeObject(entry) };
    case 'step':
      return { time, kind: 'Step', name: entry.title, type: entry.status.toUpperCase(), summary: entry.error ?? '' };
    case 'gap': {
      const until = entry.endT === undefined ? 'open to the end' : `until ${formatOffset(entry.endT)}`;
      return { time, kind: 'Gap', name: entry.resource, type: 'GAP', summary: `${entry.reason} (${until})` };
    }
    case 'fault':
      return { time, kind: 'Fault', name: entry.item, type: entry.status.toUpperCase(), summary: `${entry.fault}: ${entry.detail}` };
  }
}

/** What an object entry shows beyond its identity: role, state, deletion, container exits. */
function summarizeObject(e: ObjectEntry): string {
  const parts: string[] = [];
  if (e.role) parts.push(e.role);
  if (e.sandbox) {
    const s = e.sandbox;
    parts.push(s.suspended ? 'suspended' : 'running');
    if (s.generation !== undefined) parts.push(`gen ${s.generation}`);
    if (s.bootstrapPhase) parts.push(`bootstrap=${s.bootstrapPhase}`);
    for (const c of s.conditions) parts.push(`${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`);
  }
  const containers = e.containers ?? [];
  const exits = containers.filter((c) => c.state === 'terminated');
  // A finished phase says no more than the exit codes that follow it.
  if (e.phase && !(exits.length > 0 && (e.phase === 'Succeeded' || e.phase === 'Failed'))) parts.push(e.phase);
  if (e.deletionTimestamp && e.type !== 'DELETED') {
    parts.push(e.deletionGracePeriodSeconds === undefined ? 'deleting' : `deleting (grace ${e.deletionGracePeriodSeconds}s)`);
  }
  const named = containers.length > 1;
  const states: string[] = [];
  for (const c of containers) {
    if (c.state === 'terminated') states.push(`${named ? `${c.name} ` : ''}exit ${c.exitCode ?? '?'}`);
    else if (c.state === 'waiting' && c.reason) states.push(`${c.name} ${c.reason}`);
  }
  if (states.length) parts.push(states.join(', '));
  return parts.join(' ');
}

/**
 * One line per entry, in columns:
 * `+2.35s  Pod      os-supervisor-ab12  DELETED   supervisor exit 137`.
 * `nameWidth` pads the name column, to line up several entries.
 */
export function formatEntry(entry: TimelineEntry, nameWidth = 0): string {
  const c = entryColumns(entry);
  return `${c.time.padEnd(7)} ${c.kind.padEnd(8)} ${c.name.padEnd(nameWidth)}  ${c.type.padEnd(8)}  ${c.summary}`.trimEnd();
}

/** Several entries, one per line, their names lined up. */
export function formatEntries(entries: readonly TimelineEntry[]): string {
  const width = entries.reduce((w, e) => Math.max(w, entryColumns(e).name.length), 0);
  return entries.map((e) => formatEntry(e, width)).join('\n');
}

/** `supervisor Pod os-supervisor-…` as messages name an object, or the fallback when it was not seen. */
export function objectLabel(h: ObjectHistory | undefined, fallback: string): string {
  if (!h) return fallback;
  return `${h.role ? `${h.role} ` : ''}${KIND[h.resource]} ${h.name}`;
}
