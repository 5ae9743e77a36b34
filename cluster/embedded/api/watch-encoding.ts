import type { WatchEventType } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';

/** How a watcher wants its objects: as they are, or as Table rows (kubectl get --watch). */
export type WatchRepresentation = 'object' | 'table';

/**
 * Encodes each watch event once for all the watchers that receive the same bytes. The store
 * hands an event to every subscriber before the next one (synchronous fan-out), and the object
 * API gives every watcher of one version the very same frozen object (ObjectApi.present), so
 * one (type, object, representation) is one line, whichever watcher asks first.
 *
 * It holds one event's lines only: they are dropped when an object of another resourceVersion
 * comes, and once the synchronous delivery that made them ends, so a watcher that replays the
 * same event later (from the revision log) gets a fresh line — a Table row's Age is computed
 * as it is encoded.
 */
export class WatchEventEncoder {
  private revision: string | undefined;
  /** Keyed by the object's identity: a frozen object never changes, so its line cannot go stale. */
  private readonly lines = new Map<KubeObject, Map<string, Buffer>>();
  private dropScheduled = false;

  line(type: WatchEventType, object: KubeObject, representation: WatchRepresentation, render: (object: KubeObject) => unknown): Buffer {
    if (object.metadata.resourceVersion !== this.revision) {
      this.lines.clear();
      this.revision = object.metadata.resourceVersion;
    }
    let forObject = this.lines.get(object);
    if (!forObject) this.lines.set(object, (forObject = new Map()));
    const key = `${type} ${representation}`;
    let line = forObject.get(key);
    if (!line) {
      line = Buffer.from(JSON.stringify({ type, object: render(object) }) + '\n');
      forObject.set(key, line);
      this.scheduleDrop();
    }
    return line;
  }

  private scheduleDrop(): void {
    if (this.dropScheduled) return;
    this.dropScheduled = true;
    queueMicrotask(() => {
      this.dropScheduled = false;
      this.lines.clear();
      this.revision = undefined;
    });
  }
}
