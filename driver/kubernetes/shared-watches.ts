import * as k8s from '@kubernetes/client-node';

export interface WatchedObject {
  /** A collection path: `/api/v1/namespaces/ns/pods`. */
  path: string;
  name: string;
}

/** How long a collection's watch stays open once nobody waits on it: back-to-back waits reuse it. */
const LINGER_MS = 5_000;
const BACKOFF_MAX_MS = 2_000;

/** One collection's watch and who waits on which of its objects. */
interface Collection {
  path: string;
  /** Wake-ups by object name; an entry goes when its last waiter does. */
  waiters: Map<string, Set<() => void>>;
  subscriptions: number;
  /** The open (or opening) watch request. */
  request?: AbortController;
  /** The last resourceVersion seen: a reopened watch resumes there instead of replaying every object. */
  resourceVersion?: string;
  linger?: NodeJS.Timeout;
  failures: number;
}

/**
 * One watch per collection (per resource and namespace) for a whole driver instance, shared by
 * every waiting call: a wait subscribes to the names it waits for and is woken when one of them
 * changes. Before, each waiting call opened watches (and TLS connections) of its own, so memory
 * grew with the number of sandboxes in flight; now it grows with the number of namespaces.
 *
 * Only wake-ups travel here: the waits keep reading the objects themselves and stay the judges
 * of completion, so a missed event costs latency, never correctness. That is why this is a bare
 * watch with a fan-out, not client-node's informer (makeInformer): an informer lists first and
 * keeps a copy of every object of the collection — a cache the waits do not read, and a `list`
 * on Pods the driver's least-privilege rules do not grant (lanes/driver-rbac.ts).
 *
 * A watch the server ends is reopened from the last resourceVersion seen (from scratch, after a
 * 410 Gone) and every waiter of the collection is woken, since events may have been missed
 * meanwhile. A collection nobody waits on closes after a short linger; per-object state goes
 * with its last waiter, so nothing keyed by a sandbox outlives the waits on it.
 */
export class SharedWatches {
  private readonly collections = new Map<string, Collection>();
  private readonly watcher: k8s.Watch;
  private closed = false;
  private readonly lingerMs: number;
  private readonly labelSelector?: string;

  /**
   * `labelSelector`: only objects carrying these labels are watched (the driver's own: its
   * managed-by and gateway id labels), so the API server sends this driver its own objects'
   * changes, not those of every other driver and workload in the namespace. An object waited on
   * without them wakes nobody; its wait still reads it on every poll.
   */
  constructor(kubeconfig: k8s.KubeConfig, options: { lingerMs?: number; labelSelector?: string } = {}) {
    this.watcher = new k8s.Watch(kubeconfig);
    this.lingerMs = options.lingerMs ?? LINGER_MS;
    this.labelSelector = options.labelSelector;
  }

  /** Calls `wake` whenever one of `objects` changes; returns the unsubscribe. */
  subscribe(objects: WatchedObject[], wake: () => void): () => void {
    if (this.closed) return () => undefined;
    const entries = objects.map((object) => {
      const collection = this.collection(object.path);
      collection.subscriptions++;
      clearTimeout(collection.linger);
      let waiters = collection.waiters.get(object.name);
      if (!waiters) collection.waiters.set(object.name, (waiters = new Set()));
      waiters.add(wake);
      if (!collection.request) this.open(collection);
      return { collection, name: object.name, waiters };
    });
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      for (const { collection, name, waiters } of entries) {
        waiters.delete(wake);
        if (waiters.size === 0 && collection.waiters.get(name) === waiters) collection.waiters.delete(name);
        if (--collection.subscriptions === 0) this.linger(collection);
      }
    };
  }

  /** Watches open now, and objects waited on (what a test reads to prove sharing and clean-up). */
  stats(): { watches: number; waitedObjects: number } {
    const all = [...this.collections.values()];
    return { watches: all.filter((c) => c.request).length, waitedObjects: all.reduce((n, c) => n + c.waiters.size, 0) };
  }

  /** Ends every watch; later subscriptions get no wake-ups (the waits still poll). */
  close(): void {
    this.closed = true;
    for (const collection of this.collections.values()) {
      clearTimeout(collection.linger);
      collection.request?.abort();
      for (const waiters of collection.waiters.values()) for (const wake of waiters) wake();
    }
    this.collections.clear();
  }

  private collection(path: string): Collection {
    let collection = this.collections.get(path);
    if (!collection) this.collections.set(path, (collection = { path, waiters: new Map(), subscriptions: 0, failures: 0 }));
    return collection;
  }

  private linger(collection: Collection): void {
    clearTimeout(collection.linger);
    collection.linger = setTimeout(() => {
      if (collection.subscriptions > 0) return;
      collection.request?.abort();
      collection.request = undefined;
      this.collections.delete(collection.path);
    }, this.lingerMs);
    collection.linger.unref();
  }

  private wakeAll(collection: Collection): void {
    for (const waiters of collection.waiters.values()) for (const wake of waiters) wake();
  }

  private open(collection: Collection): void {
    const controller = new AbortController();
    collection.request = controller;
    const ended = (error?: unknown) => {
      if (collection.request !== controller) return; // replaced or closed
      collection.request = undefined;
      if (this.closed || this.collections.get(collection.path) !== collection) return;
      if (error) collection.failures++;
      else collection.failures = 0;
      // Events may have been missed until the watch is back: every waiter reads again.
      this.wakeAll(collection);
      if (collection.subscriptions === 0) return;
      const delay = collection.failures ? Math.min(100 * 2 ** collection.failures, BACKOFF_MAX_MS) : 0;
      const retry = setTimeout(() => {
        if (!collection.request && collection.subscriptions > 0 && this.collections.get(collection.path) === collection && !this.closed) this.open(collection);
      }, delay);
      retry.unref();
    };
    const query = { allowWatchBookmarks: true, ...(this.labelSelector && { labelSelector: this.labelSelector }), ...(collection.resourceVersion ? { resourceVersion: collection.resourceVersion } : {}) };
    void this.watcher
      .watch(
        collection.path,
        query,
        (type: string, object: k8s.KubernetesObject & { code?: number }) => {
          if (type === 'ERROR') {
            // 410 Gone: the resourceVersion is too old; start from the current state.
            if (object?.code === 410) collection.resourceVersion = undefined;
            return;
          }
          const rv = object?.metadata?.resourceVersion;
          if (rv) collection.resourceVersion = rv;
          if (type === 'BOOKMARK') return;
          const name = object?.metadata?.name;
          const waiters = name ? collection.waiters.get(name) : undefined;
          if (waiters) for (const wake of waiters) wake();
        },
        (error) => ended(error ?? undefined),
      )
      .then(
        (request) => {
          // Closed, or nobody left, while it was opening.
          if (collection.request !== controller) request.abort();
          else controller.signal.addEventListener('abort', () => request.abort(), { once: true });
        },
        (error: unknown) => ended(error),
      );
  }
}
