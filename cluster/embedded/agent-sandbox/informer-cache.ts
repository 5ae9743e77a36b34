/**
 * The controller's informer cache: its own copy of Sandboxes, Pods, Services and PVCs, fed by
 * the store's watch events, each applied no earlier than its object's cache lag (a seeded,
 * per-object delay) and never before an event committed earlier. So the cache is always the
 * store as it was some time ago (stale, never inconsistent): objects of one kind cannot overtake
 * each other, as on one watch stream, and, a simplification, neither can kinds (real informers
 * of different kinds drift apart by a few ms; drifting them by the full lag made the controller
 * act on a new Pod with an old Sandbox far more often than a real one does). Event handlers run
 * after the cache holds the event, as client-go's do. With no lag an event is applied in the
 * store's own fan-out, so reads are fresh (realism off). A lag spike (a controller fault) adds
 * its milliseconds to every event not yet applied and to every later one, until it is set back.
 */
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { SANDBOXES_KEY } from './agent-sandbox-names.ts';
import type { Draws, MsRange } from './realism.ts';

export const CACHED_RESOURCES = [SANDBOXES_KEY, 'pods', 'services', 'persistentvolumeclaims'] as const;
export type CachedResource = (typeof CACHED_RESOURCES)[number];

function objectKey(resource: string, namespace: string | undefined, name: string): string {
  return `${resource}/${namespace ?? ''}/${name}`;
}

export class InformerCache {
  private readonly objects = new Map<string, KubeObject>();
  /**
   * Events not yet applied, in commit order: when each arrived, its own lag, and the time it is
   * due (non-decreasing), kept apart so a spike can be laid on and taken off again.
   */
  private readonly pending: { arrived: number; lag: number; due: number; key: string; event: StoreEvent }[] = [];
  private spikeMs = 0;
  private timer?: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    store: ObjectStore,
    private readonly draws: Draws,
    private readonly lagMs: MsRange,
    private readonly onEvent: (event: StoreEvent) => void,
  ) {
    // The informers' initial list.
    for (const resource of CACHED_RESOURCES) {
      for (const object of store.list(resource)) this.objects.set(objectKey(resource, object.metadata.namespace, object.metadata.name!), object);
    }
    this.unsubscribe = store.subscribe(store.currentRevision(), (event) => this.receive(event));
  }

  get(resource: CachedResource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(objectKey(resource, namespace, name));
  }

  /** Objects of one namespace whose labels include all of `labels` (an equality selector). */
  list(resource: CachedResource, namespace: string, labels: Record<string, string>): KubeObject[] {
    const prefix = objectKey(resource, namespace, '');
    return [...this.objects.entries()]
      .filter(([key, object]) => key.startsWith(prefix) && Object.entries(labels).every(([k, v]) => object.metadata.labels?.[k] === v))
      .map(([, object]) => object);
  }

  /** Every event the store has delivered so far is in the cache. */
  synced(): boolean {
    return this.pending.length === 0;
  }

  /**
   * Lags every event not yet applied, and every later one, by `ms` more than its own lag; 0 is
   * back to normal (events already past their own lag are then applied at once, in order).
   */
  setLagSpike(ms: number): void {
    this.spikeMs = ms;
    let last = 0;
    for (const entry of this.pending) last = entry.due = Math.max(entry.arrived + entry.lag + ms, last);
    clearTimeout(this.timer);
    this.schedule();
  }

  /** Changes the cache would show by now without a spike: the ones a spike is holding back. */
  heldBySpike(): number {
    const now = Date.now();
    return this.pending.filter((entry) => entry.arrived + entry.lag <= now).length;
  }

  stop(): void {
    this.unsubscribe();
    clearTimeout(this.timer);
    this.pending.length = 0;
  }

  private receive(event: StoreEvent): void {
    if (!(CACHED_RESOURCES as readonly string[]).includes(event.resource)) return;
    const { namespace, name } = event.object.metadata;
    const key = objectKey(event.resource, namespace, name!);
    const lag = this.draws.fixed(key, this.lagMs);
    if (lag + this.spikeMs === 0 && this.pending.length === 0) return this.apply(key, event);
    const last = this.pending[this.pending.length - 1]?.due ?? 0;
    const arrived = Date.now();
    this.pending.push({ arrived, lag, due: Math.max(arrived + lag + this.spikeMs, last), key, event });
    if (this.pending.length === 1) this.schedule();
  }

  /** One timer for the head of the line; everything due is applied in order. */
  private schedule(): void {
    const head = this.pending[0];
    if (!head) return;
    this.timer = setTimeout(() => {
      const now = Date.now();
      while (this.pending.length && this.pending[0].due <= now) {
        const { key, event } = this.pending.shift()!;
        this.apply(key, event);
      }
      this.schedule();
    }, Math.max(0, head.due - Date.now()));
  }

  private apply(key: string, event: StoreEvent): void {
    if (event.type === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, event.object);
    this.onEvent(event);
  }
}
