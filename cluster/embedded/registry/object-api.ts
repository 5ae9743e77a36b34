import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { AdmissionAttributes, UserInfo, ValidatingAdmission } from '../admission/attributes.ts';
import { ApiError, errors } from '../errors.ts';
import { coreMergeKeys } from '../patch/merge-keys.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone, deepFreeze, isPlainObject, type KubeObject, metaTime } from '../types.ts';
import { markedForDeletion } from './deletion.ts';
import { listStart, pageOf, parseRevision, snapshotAt } from './list-pages.ts';
import { assertNamespaceOpen } from './namespace-lifecycle.ts';
import type { DeleteOptions, DeleteResult, ListOptions, ListResult, PatchType, WatchEmitter, WatchOptions, WriteOptions, WriteResult } from './object-api-options.ts';
import { generateName, nameRuleOf, validateName } from './object-names.ts';
import { appliedOnto, parseApplyBody, patchedObject } from './patch-by-type.ts';
import { boundPod } from './pod-binding.ts';
import { assertDeletePreconditions, assertResourceVersion, assertUid } from './preconditions.ts';
import { objectOfBody } from './request-object.ts';
import type { ResourceRegistry } from './resource-registry.ts';
import { apiVersionOf, resourceKey, storageVersion, type ResourceType, type Target } from './resource-type.ts';
import { scaleOf, scaleRequest, writeReplicas } from './scale-subresource.ts';
import { admitToSchema, validateInRequestVersion } from './schema-admission.ts';
import { selectedEvent, selectionOf } from './selection.ts';
import { recordApply, recordUpdate, type Writer } from './server-side-apply.ts';
import { keepServerOwnedMetadata, refuseNewFinalizersWhileDeleting, specChanged, unchanged, writtenThrough } from './update-rules.ts';

/** What a request addresses: a served version of a resource, in a namespace or cluster-wide. */
export type { Target } from './resource-type.ts';
/** The options and results of the calls below. */
export type {
  DeleteOptions,
  DeleteResult,
  FieldValidation,
  ListOptions,
  ListResult,
  PatchType,
  WatchEmitter,
  WatchOptions,
  WriteOptions,
  WriteResult,
} from './object-api-options.ts';

/**
 * The one write path of the embedded cluster: the HTTP layer, the controllers and the node
 * agent all change objects through these calls, so every change is validated, versioned and
 * seen by watchers the same way. Semantics follow kube-apiserver's generic registry store:
 * names, uid, generation, optimistic concurrency, graceful deletion, finalizers, defaults,
 * pruning and schema validation for custom resources, conversion between versions.
 */
export class ObjectApi {
  /** Validating admission (ValidatingAdmissionPolicy): every create, update and delete passes it before it is stored. */
  validatingAdmission?: ValidatingAdmission;
  /** The last conversion present() made, for the next watcher of the same event and version. */
  private lastConversion?: { stored: KubeObject; version: string; object: KubeObject };

  constructor(
    readonly store: ObjectStore,
    readonly registry: ResourceRegistry,
  ) {}

  /** The target for a group/version/plural, for in-process callers. Throws 404 when not served. */
  target(apiVersion: string, plural: string, namespace?: string): Target {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const found = this.registry.lookup(group, version, plural);
    if (!found) throw errors.noRoute();
    return { ...found, namespace };
  }

  /** The storage-version target for a store resource key, for controllers acting on any kind. */
  targetForKey(key: string, namespace?: string): Target | undefined {
    const type = this.registry.byResourceKey(key);
    return type ? { type, version: storageVersion(type), namespace: type.namespaced ? namespace : undefined } : undefined;
  }

  // ---- reads ----

  get(target: Target, name: string): KubeObject {
    const stored = this.store.get(this.key(target), target.namespace, name);
    if (!stored) throw errors.notFound(target.type.group, target.type.plural, name);
    return this.present(target, stored);
  }

  list(target: Target, options: ListOptions = {}): ListResult {
    const key = this.key(target);
    const selected = selectionOf(target.type, options);
    const { revision, startAfter } = listStart(options, this.store.currentRevision());
    const all = snapshotAt(this.store, key, target.namespace, revision, !!options.continue);
    const matching = options.labelSelector || options.fieldSelector ? all.filter(selected) : all;
    const { page, ...next } = pageOf(matching, revision, startAfter, options.limit);
    return { items: page.map((o) => this.present(target, o)), resourceVersion: String(revision), ...next };
  }

  /**
   * Streams changes in commit order. Without a resourceVersion (or "0") the current objects come
   * first as ADDED; with one, everything after it is replayed from the revision log (410 when
   * it is too old). Objects entering or leaving the selectors appear as ADDED or DELETED.
   */
  watch(target: Target, options: WatchOptions, emit: WatchEmitter): () => void {
    const key = this.key(target);
    const selected = selectionOf(target.type, options);
    const matches = (o: KubeObject | undefined) => !!o && (!target.namespace || o.metadata.namespace === target.namespace) && selected(o);
    let from: number;
    if (!options.resourceVersion || options.resourceVersion === '0') {
      from = this.store.currentRevision();
      for (const object of this.store.list(key, target.namespace)) {
        if (matches(object)) emit('ADDED', this.present(target, object));
      }
    } else {
      from = parseRevision(options.resourceVersion);
    }
    return this.store.subscribe(from, (event: StoreEvent) => {
      if (event.resource !== key) return;
      const type = selectedEvent(event, matches);
      if (type) emit(type, this.present(target, event.object));
    });
  }

  // ---- writes ----

  create(target: Target, body: unknown, options: WriteOptions = {}): WriteResult {
    return this.createAs(target, body, options, 'Update');
  }

  /** `operation` Apply: the create of a server-side apply, whose manager owns what it applied. */
  private createAs(target: Target, body: unknown, options: WriteOptions, operation: 'Update' | 'Apply'): WriteResult {
    const { type } = target;
    const object = this.checkBody(target, body);
    const warnings: string[] = [];
    const meta = object.metadata;
    if (meta.resourceVersion) throw errors.badRequest('resourceVersion should not be set on objects to be created');
    const requestName = meta.name ?? '';
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    if (!meta.name) {
      throw errors.invalid(type.kind, type.group, '', [
        { reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' },
      ]);
    }
    const nameErrors = validateName(meta.name, nameRuleOf(type));
    if (nameErrors.length) throw errors.invalid(type.kind, type.group, meta.name, nameErrors);
    if (type.namespaced) assertNamespaceOpen(this.store, type, meta.namespace!, meta.name);

    const stored = this.toStorage(target, object, options);
    if (target.version.status) delete stored.status;
    type.strategy.prepareForCreate?.(stored);
    this.admit(target, stored, undefined, options, warnings);
    const causeList = type.strategy.validateCreate?.(stored) ?? [];
    if (causeList.length) throw errors.invalid(type.kind, type.group, meta.name, causeList);

    Object.assign(stored.metadata, { uid: randomUUID(), creationTimestamp: metaTime() });
    if (type.generation) stored.metadata.generation = 1;
    else delete stored.metadata.generation;
    delete stored.metadata.deletionTimestamp;
    delete stored.metadata.deletionGracePeriodSeconds;
    delete stored.metadata.managedFields;
    if (operation === 'Apply') recordApply(undefined, stored, body, { ...this.writer(target, options), manager: options.fieldManager!, force: !!options.force });
    else recordUpdate(undefined, stored, this.writer(target, options));
    this.validateAdmission({ operation: 'CREATE', target, name: requestName, namespace: stored.metadata.namespace, object: stored, options }, warnings);
    if (this.store.get(this.key(target), stored.metadata.namespace, meta.name)) {
      throw errors.alreadyExists(type.group, type.plural, meta.name);
    }
    if (options.dryRun) return { object: this.present(target, stored), warnings, created: true };
    return { object: this.present(target, this.store.create(this.key(target), stored)), warnings, created: true };
  }

  /** PUT: replace the object (or only its status/scale through those subresources). */
  update(target: Target, name: string, body: unknown, options: WriteOptions = {}): WriteResult {
    const object = this.checkBody(target, body, name);
    const current = this.store.get(this.key(target), target.namespace, name);
    if (!current) throw errors.notFound(target.type.group, target.type.plural, name);
    assertUid(target.type, name, object.metadata.uid, current.metadata.uid);
    assertResourceVersion(target.type, name, object.metadata.resourceVersion, current.metadata.resourceVersion);
    return this.replace(target, current, this.toStorage(target, object, options), options);
  }

  patch(target: Target, name: string, patchType: PatchType, patchBody: unknown, options: WriteOptions = {}): WriteResult {
    const { type } = target;
    const current = this.store.get(this.key(target), target.namespace, name);
    if (patchType === 'apply') {
      if (!options.fieldManager) {
        // metav1 validation.ValidatePatchOptions, answered before the object is looked at.
        throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [
          { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
        ]);
      }
      const applied = typeof patchBody === 'string' ? parseApplyBody(patchBody) : patchBody;
      if (!current) {
        if (options.subresource) throw errors.notFound(type.group, type.plural, name);
        return this.createAs(target, applied, options, 'Apply');
      }
      const live = this.present(target, current);
      const merged = appliedOnto(type, live, applied);
      if (isPlainObject(merged) && isPlainObject(merged.metadata)) {
        recordApply(live, merged as KubeObject, applied, { ...this.writer(target, options), manager: options.fieldManager, force: !!options.force });
      }
      return this.applyPatched(target, current, merged, { ...options }, 'Apply');
    }
    if (!current) throw errors.notFound(type.group, type.plural, name);
    const patched = patchedObject(type, this.present(target, current), patchType, patchBody);
    return this.applyPatched(target, current, patched, options, 'Update');
  }

  delete(target: Target, name: string, options: DeleteOptions = {}): DeleteResult {
    return this.deleteObject(target, name, options, name);
  }

  /** `requestName` is what admission sees as the request's name: '' for each object of a deletecollection. */
  private deleteObject(target: Target, name: string, options: DeleteOptions, requestName: string): DeleteResult {
    const { type } = target;
    const key = this.key(target);
    const current = this.store.get(key, target.namespace, name);
    if (!current) throw errors.notFound(type.group, type.plural, name);
    assertDeletePreconditions(type, name, options.preconditions, current.metadata.uid, current.metadata.resourceVersion);
    const warnings: string[] = [];
    this.validateAdmission({ operation: 'DELETE', target, name: requestName, namespace: current.metadata.namespace, oldObject: current, options }, warnings);
    const next = markedForDeletion(type, current, options);
    if (next === 'remove') {
      if (options.dryRun) return { object: this.present(target, current), removed: true, warnings };
      return { object: this.present(target, this.store.remove(key, target.namespace, name)), removed: true, warnings };
    }
    if (isDeepStrictEqual(next, current) || options.dryRun) return { object: this.present(target, next), removed: false, warnings };
    return { object: this.present(target, this.store.update(key, next)), removed: false, warnings };
  }

  deleteCollection(target: Target, listOptions: ListOptions, deleteOptions: DeleteOptions): KubeObject[] {
    const { items } = this.list(target, { labelSelector: listOptions.labelSelector, fieldSelector: listOptions.fieldSelector });
    const deleted: KubeObject[] = [];
    for (const item of items) {
      const scoped = { ...target, namespace: item.metadata.namespace };
      try {
        deleted.push(this.deleteObject(scoped, item.metadata.name!, deleteOptions, '').object);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 404)) throw error;
      }
    }
    return deleted;
  }

  /** Removes a Pod whose termination the node agent confirmed (the kubelet's final grace-0 delete). */
  finalizeGracefulDeletion(target: Target, name: string, uid: string): boolean {
    const current = this.store.get(this.key(target), target.namespace, name);
    if (!current || current.metadata.uid !== uid || !current.metadata.deletionTimestamp) return false;
    if ((current.metadata.finalizers ?? []).length > 0) {
      this.store.update(this.key(target), { ...current, metadata: { ...current.metadata, deletionGracePeriodSeconds: 0 } });
      return false;
    }
    this.store.remove(this.key(target), target.namespace, name);
    return true;
  }

  /** The pods/binding subresource: assigns an unscheduled Pod to a node (the scheduler's only write to spec). */
  bind(target: Target, name: string, nodeName: string): KubeObject {
    const key = this.key(target);
    const current = this.store.get(key, target.namespace, name);
    if (!current) throw errors.notFound(target.type.group, target.type.plural, name);
    const next = boundPod(current, name, nodeName);
    return this.present(target, this.store.update(key, next));
  }

  /** The autoscaling/v1 Scale view of an object whose version has a scale subresource. */
  getScale(target: Target, name: string): KubeObject {
    const scale = target.version.scale;
    if (!scale) throw errors.noRoute();
    return scaleOf(this.get(target, name), scale, name);
  }

  /** Writes `spec.replicas` of a Scale back to the object's specReplicasPath. */
  updateScale(target: Target, name: string, body: unknown, options: WriteOptions = {}): KubeObject {
    const scale = target.version.scale;
    if (!scale) throw errors.noRoute();
    const { replicas, resourceVersion } = scaleRequest(body);
    const current = clone(this.get(target, name));
    assertResourceVersion(target.type, name, resourceVersion, current.metadata.resourceVersion);
    writeReplicas(current, scale, replicas);
    this.update(target, name, current, { ...options, subresource: '' });
    return this.getScale(target, name);
  }

  // ---- internals ----

  private applyPatched(
    target: Target,
    current: KubeObject,
    patched: unknown,
    options: WriteOptions,
    operation: 'Update' | 'Apply',
  ): WriteResult {
    if (!isPlainObject(patched) || !isPlainObject(patched.metadata)) throw errors.badRequest('patch produced an object without metadata');
    const object = patched as KubeObject;
    const name = current.metadata.name!;
    if (object.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${String(object.metadata.name)}) does not match the name on the URL (${name})`);
    }
    assertResourceVersion(target.type, name, object.metadata.resourceVersion, current.metadata.resourceVersion);
    assertUid(target.type, name, object.metadata.uid, current.metadata.uid);
    return this.replace(target, current, this.toStorage(target, object, options), options, operation);
  }

  private replace(
    target: Target,
    current: KubeObject,
    incoming: KubeObject,
    options: WriteOptions,
    operation: 'Update' | 'Apply' = 'Update',
  ): WriteResult {
    const { type } = target;
    const key = this.key(target);
    const warnings: string[] = [];
    const sub = options.subresource ?? '';
    const next = writtenThrough(sub, current, incoming, target.version.status);
    // An Apply's ownership comes with the merged object, whatever part of it the subresource keeps.
    if (operation === 'Apply') {
      if (incoming.metadata.managedFields) next.metadata.managedFields = incoming.metadata.managedFields;
      else delete next.metadata.managedFields;
    }
    keepServerOwnedMetadata(next, current);
    refuseNewFinalizersWhileDeleting(type, next, current);
    const meta = next.metadata;
    if (sub === '') type.strategy.prepareForUpdate?.(next, current);
    if (sub !== 'status') this.admit(target, next, current, options, warnings);
    const causeList = type.strategy.validateUpdate?.(next, current) ?? [];
    if (causeList.length) throw errors.invalid(type.kind, type.group, current.metadata.name!, causeList);

    if (type.generation && specChanged(next, current)) meta.generation = (current.metadata.generation ?? 1) + 1;
    // An Apply's ownership was settled on the merged object (recordApply); an Update's is settled here.
    if (operation === 'Update') recordUpdate(current, next, this.writer(target, options));
    this.validateAdmission({ operation: 'UPDATE', target, subresource: sub, name: meta.name!, namespace: meta.namespace, object: next, oldObject: current, options }, warnings);
    if (unchanged(next, current)) return { object: this.present(target, current), warnings, created: false };
    if (options.dryRun) return { object: this.present(target, next), warnings, created: false };

    // The last finalizer leaving an object that is being deleted completes the deletion.
    const gracefulPending = (current.metadata.deletionGracePeriodSeconds ?? 0) > 0;
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && !gracefulPending && !type.strategy.holdsDeletion?.(next)) {
      // As the generic registry does (errEmptiedFinalizers): the write becomes the deletion, so watchers
      // see one DELETED, not a MODIFIED first. Namespace finalize is a write of its own before the delete.
      if (sub === 'finalize') this.store.update(key, next);
      const tombstone = this.store.remove(key, target.namespace, meta.name!);
      return { object: this.present(target, { ...next, metadata: { ...next.metadata, resourceVersion: tombstone.metadata.resourceVersion } }), warnings, created: false };
    }
    return { object: this.present(target, this.store.update(key, next)), warnings, created: false };
  }

  /** The kind's normalisation, then, for a custom resource, its schema (see schema-admission.ts). */
  private admit(target: Target, object: KubeObject, old: KubeObject | undefined, options: WriteOptions, warnings: string[]): void {
    target.type.strategy.normalize?.(object);
    admitToSchema(target, object, old, options.fieldValidation, warnings);
  }

  private validateAdmission(attributes: AdmissionAttributes, warnings: string[]): void {
    const userInfo = (attributes.options as { userInfo?: UserInfo } | undefined)?.userInfo;
    if (this.validatingAdmission) warnings.push(...this.validatingAdmission.validate({ ...attributes, userInfo: attributes.userInfo ?? userInfo }));
  }

  /** A request body as an object of the target's kind: apiVersion, kind, name and namespace checked and set. */
  checkBody(target: Target, body: unknown, urlName?: string): KubeObject {
    return objectOfBody(target, body, urlName);
  }

  private key(target: Target): string {
    return resourceKey(target.type.group, target.type.plural);
  }

  /** Converts a client-version object into the storage version, validated in its own version first (see schema-admission.ts). */
  private toStorage(target: Target, object: KubeObject, options: WriteOptions): KubeObject {
    if (options.subresource !== 'status') validateInRequestVersion(target, object);
    return this.convert(target.type, object, storageVersion(target.type).name);
  }

  /**
   * A stored object in the version the client asked for, frozen and shared, never a copy: in the
   * storage version it is the stored object itself (lists and watches serialise it as it is), in
   * another it is the conversion. A caller that changes what it read must `clone` it first.
   */
  present(target: Target, stored: KubeObject): KubeObject {
    const version = target.version.name;
    if (apiVersionOf(target.type.group, version) === stored.apiVersion) return stored;
    // Every watcher of one version is handed the same conversion of an event (one conversion, one encoding).
    const last = this.lastConversion;
    if (last?.stored === stored && last.version === version) return last.object;
    const object = deepFreeze(this.convert(target.type, stored, version));
    this.lastConversion = { stored, version, object };
    return object;
  }

  private convert(type: ResourceType, object: KubeObject, version: string): KubeObject {
    const wanted = apiVersionOf(type.group, version);
    if (object.apiVersion === wanted) return object;
    if (type.converter) return type.converter(object, version);
    return { ...object, apiVersion: wanted };
  }

  /** Who writes, for field ownership: the manager, the request's version and subresource, the list keys. */
  private writer(target: Target, options: WriteOptions): Writer {
    return {
      manager: options.fieldManager,
      apiVersion: apiVersionOf(target.type.group, target.version.name),
      subresource: options.subresource ?? '',
      keys: target.type.builtin ? coreMergeKeys : () => undefined,
    };
  }
}
