/**
 * What the swimlane draws, before any coordinates: one lane per object with its lifetime
 * segments, markers and container exits, and the harness steps as bands.
 */
import { KIND } from '../../derive/format.ts';
import type { FaultEntry, GapEntry, ObjectEntry, TimelineEntry, WatchedResource } from '../../model.ts';
import { LANE_STYLE, type LaneStyle } from './style.ts';

export type Mode = 'running' | 'suspended' | 'terminating';

interface Segment {
  from: number;
  to: number;
  mode: Mode;
  /** The object was still there when the recording ended. */
  open: boolean;
}

export type MarkerKind = 'created' | 'listed' | 'modified' | 'delete-requested' | 'gone' | 'suspend' | 'resume';

interface Marker {
  kind: MarkerKind;
  entry: ObjectEntry;
}

export interface Exit {
  entry: ObjectEntry;
  container: string;
  code: number | undefined;
  named: boolean;
}

export interface ObjectLane {
  resource: WatchedResource;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
  role?: string;
  style: LaneStyle;
  entries: ObjectEntry[];
  /** A lane for a resource with a watch gap but no objects seen. */
  placeholder: boolean;
  top: number;
}

export interface Band {
  title: string;
  from: number;
  to: number;
  status: 'ok' | 'failed' | 'open';
  error?: string;
  beginSeq?: number;
  endSeq?: number;
  row: number;
  labelX?: number;
}

export interface Point {
  x: number;
  y: number;
}

function laneGroup(resource: WatchedResource, role: string | undefined): number {
  if (resource === 'sandboxes') return 0;
  if (resource === 'pods') return role === 'supervisor' ? 1 : role === 'workload' ? 2 : 3;
  return 4;
}

function laneStyle(resource: WatchedResource, role: string | undefined): LaneStyle {
  if (resource === 'sandboxes') return LANE_STYLE.sandbox;
  if (resource === 'secrets') return LANE_STYLE.secret;
  return role === 'supervisor' ? LANE_STYLE.supervisor : role === 'workload' ? LANE_STYLE.workload : LANE_STYLE.pod;
}

/** One lane per object (resource + uid), Sandbox first, then supervisor, workload and other Pods, then Secrets. */
export function buildLanes(entries: readonly TimelineEntry[]): ObjectLane[] {
  const byKey = new Map<string, { lane: ObjectLane; firstSeq: number }>();
  for (const e of entries) {
    if (e.kind !== 'object') continue;
    const key = `${e.resource}\u0000${e.uid || `${e.namespace}/${e.name}`}`;
    let found = byKey.get(key);
    if (!found) {
      found = {
        firstSeq: e.seq,
        lane: { resource: e.resource, kind: KIND[e.resource] ?? e.resource, name: e.name, namespace: e.namespace, uid: e.uid, style: LANE_STYLE.pod, entries: [], placeholder: false, top: 0 },
      };
      byKey.set(key, found);
    }
    found.lane.entries.push(e);
    if (found.lane.role === undefined && e.role) found.lane.role = e.role;
  }
  const lanes = [...byKey.values()]
    .sort((a, b) => laneGroup(a.lane.resource, a.lane.role) - laneGroup(b.lane.resource, b.lane.role) || a.firstSeq - b.firstSeq)
    .map((f) => f.lane);
  for (const lane of lanes) lane.style = laneStyle(lane.resource, lane.role);
  // A gap on a resource without objects still gets a lane to be drawn on.
  const gapped = new Set(entries.filter((e): e is GapEntry => e.kind === 'gap').map((g) => g.resource));
  for (const resource of gapped) {
    if (lanes.some((l) => l.resource === resource)) continue;
    const placeholder: ObjectLane = { resource, kind: KIND[resource] ?? resource, name: '', namespace: '', uid: '', style: laneStyle(resource, undefined), entries: [], placeholder: true, top: 0 };
    const at = lanes.findIndex((l) => laneGroup(l.resource, l.role) > laneGroup(resource, undefined));
    lanes.splice(at < 0 ? lanes.length : at, 0, placeholder);
  }
  return lanes;
}

function modeOf(e: ObjectEntry, previous: Mode | undefined): Mode {
  if (e.deletionTimestamp) return 'terminating';
  if (e.sandbox) return e.sandbox.suspended ? 'suspended' : 'running';
  return previous === 'terminating' ? 'terminating' : 'running';
}

/** Lifetime bars, markers and container exits of one lane. */
export function analyzeLane(lane: ObjectLane, tEnd: number): { segments: Segment[]; markers: Marker[]; exits: Exit[] } {
  const segments: Segment[] = [];
  const markers: Marker[] = [];
  const exits: Exit[] = [];
  let alive = false;
  let mode: Mode | undefined;
  let since = 0;
  let previous: ObjectEntry | undefined;
  const lastContainer = new Map<string, string>();

  for (const e of lane.entries) {
    // Container exits: a terminated state not seen before on this container.
    const containers = e.containers ?? [];
    for (const c of containers) {
      const key = `${c.state}|${c.exitCode ?? ''}|${c.finishedAt ?? ''}`;
      if (c.state === 'terminated' && lastContainer.get(c.name) !== key) exits.push({ entry: e, container: c.name, code: c.exitCode, named: containers.length > 1 });
      lastContainer.set(c.name, key);
    }

    if (e.type === 'DELETED') {
      if (alive && mode) segments.push({ from: since, to: e.t, mode, open: false });
      markers.push({ kind: 'gone', entry: e });
      alive = false;
      mode = undefined;
      previous = e;
      continue;
    }

    const next = modeOf(e, alive ? mode : undefined);
    let primary: MarkerKind;
    if (e.type === 'ADDED') primary = 'created';
    else if (e.type === 'LISTED') primary = 'listed';
    else if (e.deletionTimestamp && !previous?.deletionTimestamp) primary = 'delete-requested';
    else if (e.sandbox && previous?.sandbox && e.sandbox.suspended !== previous.sandbox.suspended) primary = e.sandbox.suspended ? 'suspend' : 'resume';
    else primary = 'modified';
    if (e.type === 'LISTED' && e.sandbox && previous?.sandbox && e.sandbox.suspended !== previous.sandbox.suspended) {
      markers.push({ kind: e.sandbox.suspended ? 'suspend' : 'resume', entry: e });
    }
    markers.push({ kind: primary, entry: e });

    if (!alive) {
      alive = true;
      mode = next;
      since = e.t;
    } else if (next !== mode) {
      segments.push({ from: since, to: e.t, mode: mode!, open: false });
      mode = next;
      since = e.t;
    }
    previous = e;
  }
  if (alive && mode) segments.push({ from: since, to: tEnd, mode, open: true });
  return { segments, markers, exits };
}

/** Harness steps as bands: each `end`/`failed` closes the latest open `begin` of the same title. */
export function buildBands(entries: readonly TimelineEntry[], tEnd: number): Band[] {
  const bands: Band[] = [];
  const open: Band[] = [];
  for (const e of entries) {
    if (e.kind !== 'step') continue;
    if (e.status === 'begin') {
      const band: Band = { title: e.title, from: e.t, to: e.t, status: 'open', beginSeq: e.seq, row: 0 };
      bands.push(band);
      open.push(band);
      continue;
    }
    let i = open.length - 1;
    while (i >= 0 && open[i]!.title !== e.title) i--;
    const status = e.status === 'failed' ? 'failed' : 'ok';
    if (i < 0) {
      bands.push({ title: e.title, from: e.t, to: e.t, status, error: e.error, endSeq: e.seq, row: 0 });
    } else {
      const band = open.splice(i, 1)[0]!;
      Object.assign(band, { to: e.t, status, error: e.error, endSeq: e.seq });
    }
  }
  for (const band of open) band.to = tEnd;
  return bands;
}

export function bandLabel(b: Band): string {
  if (b.status === 'failed') return `${b.title} — failed${b.error ? `: ${b.error}` : ''}`;
  if (b.status === 'open') return `${b.title} (not ended)`;
  return b.title;
}

/** One fault of the schedule as drawn: from its firing to its heal (open to the end when it never healed); a moment for one that happens at once. */
export interface FaultBand {
  item: string;
  fault: string;
  from: number;
  to: number;
  /** Fired and healed at the same moment, or a kind that happens at once (a crash): drawn as a mark. */
  instant: boolean;
  healed: boolean;
  detail: string;
  firedSeq: number;
  healedSeq?: number;
  row: number;
}

/** Fault firings paired with their heals, in the order they fired; each on a row of its own. */
export function buildFaultBands(entries: readonly TimelineEntry[], tEnd: number): FaultBand[] {
  const bands: FaultBand[] = [];
  const open = new Map<string, FaultBand>();
  for (const e of entries) {
    if (e.kind !== 'fault') continue;
    if (e.status === 'fired') {
      const band: FaultBand = { item: e.item, fault: e.fault, from: e.t, to: tEnd, instant: false, healed: false, detail: e.detail, firedSeq: e.seq, row: bands.length };
      bands.push(band);
      open.set(e.item, band);
    } else if (e.status === 'healed') {
      const band = open.get(e.item);
      if (!band) continue;
      open.delete(e.item);
      Object.assign(band, { to: e.t, healed: true, healedSeq: e.seq, instant: e.t - band.from < 1 });
    }
  }
  return bands;
}

/** `stale-view · stale-reads`: the item and its kind. */
export function faultLabel(b: FaultBand): string {
  return `${b.item} · ${b.fault}${b.healed || b.instant ? '' : ' (not healed)'}`;
}

export type { FaultEntry };
