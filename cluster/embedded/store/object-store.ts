import { errors } from '../errors.ts';
import { deepFreeze, type KubeObject } from '../types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. `object` carries the revision of the change, also for DELETED. */
export interface StoreEvent {
  revision: number;
  type: WatchEventType;
  resource: string;
  object: KubeObject;
  /** The state before the change (MODIFIED, DELETED); watch filters need it to turn "left the selector" into DELETED. */
  previous?: KubeObject;
}

export type StoreListener = (event: StoreEvent) => void;

export interface ObjectStoreOptions {
  /** How many past events stay replayable for watches and paginated lists; older ones answer 410 Expired. */
  historyLimit?: number;
}

function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Versioned object storage with one cluster-wide revision counter (the resourceVersion), a
 * bounded revision log and synchronous fan-out to subscribers in commit order. It stores
 * what it is given: all API semantics live in the object API above it.
 * Stored objects are frozen (deepFreeze) and never change; every write stores a new object,
 * so events, snapshots and every reader share them without copying. What a caller passes to
 * create/update is frozen with it: it must not keep changing it.
 */
export class ObjectStore {
  private revision = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly uidIndex = new Map<string, { resource: string; key: string }>();
  private log: StoreEvent[] = [];
  private logStart = 0;
  /** Highest revision no longer in the log; a watch or snapshot must start after it. */
  private compactedThrough = 0;
  private readonly listeners = new Set<{ listener: StoreListener; last: number }>();
  private readonly historyLimit: number;
  /** Events committed while listeners were being called; delivered after, so everyone sees commit order. */
  private readonly undelivered: StoreEvent[] = [];
  private delivering = false;

  constructor(options: ObjectStoreOptions = {}) {
    this.historyLimit = options.historyLimit ?? 50_000;
  }

  currentRevision(): number {
    return this.revision;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(resource)?.get(objectKey(namespace, name));
  }

  getByUid(uid: string): { resource: string; object: KubeObject } | undefined {
    const at = this.uidIndex.get(uid);
    const object = at && this.objects.get(at.resource)?.get(at.key);
    return at && object ? { resource: at.resource, object } : undefined;
  }

  /** Current objects in key order (namespace/name), optionally of one namespace. */
  list(resource: string, namespace?: string): KubeObject[] {
    const table = this.objects.get(resource);
    if (!table) return [];
    let keys = this.sortedKeys.get(resource);
    if (!keys) {
      keys = [...table.keys()].sort();
      this.sortedKeys.set(resource, keys);
    }
    const result: KubeObject[] = [];
    const prefix = namespace ? `${namespace}/` : undefined;
    for (const key of keys) if (!prefix || key.startsWith(prefix)) result.push(table.get(key)!);
    return result;
  }

  /** Resources that hold at least one object (the namespace controller sweeps them). */
  resources(): string[] {
    return [...this.objects.entries()].filter(([, table]) => table.size > 0).map(([resource]) => resource);
  }

  /** The objects as they were at `revision`, rebuilt by undoing later events; 410 once that revision left the log. */
  snapshot(resource: string, namespace: string | undefined, revision: number): KubeObject[] {
    if (revision >= this.revision) return this.list(resource, namespace);
    this.assertReplayable(revision);
    const state = new Map<string, KubeObject>();
    for (const object of this.list(resource, namespace)) state.set(objectKey(object.metadata.namespace, object.metadata.name!), object);
    for (let i = this.log.length - 1; i >= this.logStart && this.log[i].revision > revision; i--) {
      const event = this.log[i];
      if (event.resource !== resource || (namespace && event.object.metadata.namespace !== namespace)) continue;
      const key = objectKey(event.object.metadata.namespace, event.object.metadata.name!);
      if (event.type === 'ADDED') state.delete(key);
      else state.set(key, event.previous!);
    }
    return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, object]) => object);
  }

  create(resource: string, object: KubeObject): KubeObject {
    const stored = this.stamp(object);
    const key = objectKey(stored.metadata.namespace, stored.metadata.name!);
    let table = this.objects.get(resource);
    if (!table) this.objects.set(resource, (table = new Map()));
    table.set(key, stored);
    this.sortedKeys.delete(resource);
    if (stored.metadata.uid) this.uidIndex.set(stored.metadata.uid, { resource, key });
    this.commit({ revision: this.revision, type: 'ADDED', resource, object: stored });
    return stored;
  }

  update(resource: string, object: KubeObject): KubeObject {
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    const table = this.objects.get(resource);
    const previous = table?.get(key);
    if (!table || !previous) throw new Error(`store: update of missing ${resource} ${key}`);
    const stored = this.stamp(object);
    table.set(key, stored);
    this.commit({ revision: this.revision, type: 'MODIFIED', resource, object: stored, previous });
    return stored;
  }

  remove(resource: string, namespace: string | undefined, name: string): KubeObject {
    const key = objectKey(namespace, name);
    const table = this.objects.get(resource);
    const previous = table?.get(key);
    if (!table || !previous) throw new Error(`store: removal of missing ${resource} ${key}`);
    table.delete(key);
    this.sortedKeys.delete(resource);
    if (previous.metadata.uid) this.uidIndex.delete(previous.metadata.uid);
    const tombstone = this.stamp(previous);
    this.commit({ revision: this.revision, type: 'DELETED', resource, object: tombstone, previous });
    return tombstone;
  }

  /**
   * Calls `listener` for every event after `fromRevision` (replayed from the log first, then live),
   * in commit order. Throws 410 Expired when `fromRevision` is older than the log.
   */
  subscribe(fromRevision: number, listener: StoreListener): () => void {
    const entry = { listener, last: fromRevision };
    if (fromRevision < this.revision) {
      this.assertReplayable(fromRevision);
      for (let i = this.logStart; i < this.log.length; i++) {
        const event = this.log[i];
        if (event.revision > entry.last) {
          entry.last = event.revision;
          listener(event);
        }
      }
    }
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  private assertReplayable(revision: number): void {
    if (revision < this.compactedThrough) {
      throw errors.gone(`too old resource version: ${revision} (${this.compactedThrough + 1})`);
    }
  }

  private stamp(object: KubeObject): KubeObject {
    this.revision++;
    return deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(this.revision) } });
  }

  private commit(event: StoreEvent): void {
    this.log.push(event);
    if (this.log.length - this.logStart > this.historyLimit) {
      this.compactedThrough = this.log[this.logStart].revision;
      this.logStart++;
      // Drop the consumed prefix in batches so trimming stays O(1) amortised.
      if (this.logStart > 4096 && this.logStart * 2 > this.log.length) {
        this.log = this.log.slice(this.logStart);
        this.logStart = 0;
      }
    }
    this.undelivered.push(event);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.undelivered.shift(); next; next = this.undelivered.shift()) {
        for (const entry of [...this.listeners]) {
          if (next.revision <= entry.last || !this.listeners.has(entry)) continue;
          entry.last = next.revision;
          entry.listener(next);
        }
      }
    } finally {
      this.delivering = false;
    }
  }
}
