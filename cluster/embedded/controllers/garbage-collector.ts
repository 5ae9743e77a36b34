import { ApiError } from '../errors.ts';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../registry/deletion.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import type { KubeObject, OwnerReference } from '../types.ts';
import { Controller } from './controller-base.ts';

interface Located {
  resource: string;
  object: KubeObject;
}

/**
 * The garbage collector, as kube-controller-manager runs it: dependents whose owners are all
 * gone are deleted; `orphan` strips owner references before the owner goes; `foregroundDeletion`
 * deletes dependents first and keeps the owner until no dependent with blockOwnerDeletion remains.
 * Keys are owner uids.
 */
export class GarbageCollector extends Controller {
  /** owner uid -> dependent uids */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi) {
    super('garbage-collector');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => this.observe(event));
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  private observe(event: StoreEvent): void {
    const { object, previous } = event;
    const uid = object.metadata.uid!;
    for (const ref of previous?.metadata.ownerReferences ?? []) this.dependents.get(ref.uid)?.delete(uid);
    if (event.type !== 'DELETED') {
      for (const ref of object.metadata.ownerReferences ?? []) {
        let set = this.dependents.get(ref.uid);
        if (!set) this.dependents.set(ref.uid, (set = new Set()));
        set.add(uid);
        // An owner that does not exist (never did, or is gone) is handled like a deleted one.
        if (!this.api.store.getByUid(ref.uid)) this.enqueue(ref.uid);
      }
    }
    if (event.type === 'DELETED' || object.metadata.deletionTimestamp) this.enqueue(uid);
    // A dependent leaving may unblock its owners' foreground deletion.
    if (event.type === 'DELETED') for (const ref of object.metadata.ownerReferences ?? []) this.enqueue(ref.uid);
  }

  protected override reconcile(ownerUid: string): number | void {
    const owner = this.api.store.getByUid(ownerUid);
    const dependents = [...(this.dependents.get(ownerUid) ?? [])]
      .map((uid) => this.api.store.getByUid(uid))
      .filter((d): d is Located => !!d);
    if (!owner) {
      for (const dependent of dependents) this.ownerGone(dependent, ownerUid);
      if (dependents.length === 0) this.dependents.delete(ownerUid);
      return;
    }
    const finalizers = owner.object.metadata.finalizers ?? [];
    if (!owner.object.metadata.deletionTimestamp) return;
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dependent of dependents) this.dropOwnerReference(dependent, ownerUid);
      this.removeFinalizer(owner, ORPHAN_FINALIZER);
      return;
    }
    if (finalizers.includes(FOREGROUND_FINALIZER)) {
      // kube-controller-manager deletes each dependent on its own: one whose deletion is refused
      // (e.g. by an admission policy) is retried, and holds the owner only if it blocks it.
      let refused: unknown;
      for (const dependent of dependents) {
        if (dependent.object.metadata.deletionTimestamp) continue;
        try {
          this.deleteObject(dependent, 'Foreground');
        } catch (error) {
          refused ??= error;
        }
      }
      const blocking = dependents.filter((d) =>
        (d.object.metadata.ownerReferences ?? []).some((r) => r.uid === ownerUid && r.blockOwnerDeletion),
      );
      // Re-read: deleting may have removed some dependents at once.
      const stillBlocking = blocking.filter((d) => this.api.store.getByUid(d.object.metadata.uid!));
      if (stillBlocking.length === 0) this.removeFinalizer(owner, FOREGROUND_FINALIZER);
      if (refused) throw refused;
      return;
    }
  }

  /** A dependent lost an owner: delete it when no other owner is left, else drop the reference. */
  private ownerGone(dependent: Located, ownerUid: string): void {
    const refs: OwnerReference[] = dependent.object.metadata.ownerReferences ?? [];
    const others = refs.filter((r) => r.uid !== ownerUid && this.api.store.getByUid(r.uid));
    if (others.length > 0) this.dropOwnerReference(dependent, ownerUid);
    else if (!dependent.object.metadata.deletionTimestamp) this.deleteObject(dependent, 'Background');
  }

  private deleteObject(dependent: Located, policy: 'Background' | 'Foreground'): void {
    const target = this.api.targetForKey(dependent.resource, dependent.object.metadata.namespace);
    if (!target) return;
    ignoreNotFound(() =>
      this.api.delete(target, dependent.object.metadata.name!, {
        propagationPolicy: policy,
        preconditions: { uid: dependent.object.metadata.uid },
      }),
    );
  }

  private dropOwnerReference(dependent: Located, ownerUid: string): void {
    const target = this.api.targetForKey(dependent.resource, dependent.object.metadata.namespace);
    if (!target) return;
    const refs = (dependent.object.metadata.ownerReferences ?? []).filter((r) => r.uid !== ownerUid);
    ignoreNotFound(() =>
      this.api.patch(target, dependent.object.metadata.name!, 'merge', {
        metadata: { ownerReferences: refs.length ? refs : null, resourceVersion: dependent.object.metadata.resourceVersion },
      }),
    );
  }

  private removeFinalizer(owner: Located, finalizer: string): void {
    const target = this.api.targetForKey(owner.resource, owner.object.metadata.namespace);
    if (!target) return;
    const remaining = (owner.object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    ignoreNotFound(() =>
      this.api.patch(target, owner.object.metadata.name!, 'merge', {
        metadata: { finalizers: remaining.length ? remaining : null, resourceVersion: owner.object.metadata.resourceVersion },
      }),
    );
  }
}

function ignoreNotFound(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 404)) throw error;
  }
}
