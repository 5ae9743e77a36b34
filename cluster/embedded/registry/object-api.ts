import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import jsonPatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import type { AdmissionAttributes, UserInfo, ValidatingAdmission } from '../admission/attributes.ts';
import { ApiError, causes, errors } from '../errors.ts';
import { coreMergeKeys } from '../patch/merge-keys.ts';
import { jsonMergePatch } from '../patch/merge-patch.ts';
import { strategicMergePatch } from '../patch/strategic-merge.ts';
import { applyDefaults } from '../schema/defaults.ts';
import { prune } from '../schema/prune.ts';
import { validateAgainstSchema } from '../schema/structural-schema.ts';
import { validationRuleCauses } from '../schema/validation-rules.ts';
import type { ObjectStore, StoreEvent, WatchEventType } from '../store/object-store.ts';
import { commonFieldSelectors, fieldSelectorsByResource, parseFieldSelector, parseLabelSelector } from '../store/selectors.ts';
import { clone, isPlainObject, type KubeObject } from '../types.ts';
import { recordApply, recordUpdate, type Writer } from './server-side-apply.ts';
import { generateName, validateName, type NameRule } from './names.ts';
import type { ResourceRegistry } from './resource-registry.ts';
import { apiVersionOf, resourceKey, storageVersion, type ResourceType, type ResourceVersion, type Target } from './resource-type.ts';

/** What a request addresses: a served version of a resource, in a namespace or cluster-wide. */
export type { Target } from './resource-type.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** '' for the main resource, 'status' or 'scale'. */
  subresource?: string;
  /** Server-side apply: take over conflicting fields. */
  force?: boolean;
  /** Who writes, as admission's `request.userInfo` shows it (the HTTP layer's authenticated user); absent: the administrator. */
  userInfo?: UserInfo;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  created: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Who deletes, as admission's `request.userInfo` shows it; absent: the administrator. */
  userInfo?: UserInfo;
}

export interface DeleteResult {
  /** The object as it stands after the call: still present (finalizers, graceful Pod) or its last state. */
  object: KubeObject;
  removed: boolean;
  /** From validating admission (a ValidatingAdmissionPolicy binding with the Warn action). */
  warnings: string[];
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
}

export type WatchEmitter = (type: WatchEventType, object: KubeObject) => void;

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** Finalizers the API server itself acts on. */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

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
    const labels = parseLabelSelector(options.labelSelector ?? '');
    const fields = parseFieldSelector(options.fieldSelector ?? '', this.selectableFields(target.type));
    let revision = this.store.currentRevision();
    let startAfter: string | undefined;
    if (options.continue) {
      ({ revision, startAfter } = decodeContinue(options.continue));
    } else if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) {
      revision = parseRevision(options.resourceVersion);
    } else if (options.resourceVersion && options.resourceVersion !== '0') {
      const wanted = parseRevision(options.resourceVersion);
      if (wanted > revision) throw errors.timeout(`Too large resource version: ${wanted}, current: ${revision}`);
    }
    const all = this.snapshotForList(key, target.namespace, revision, !!options.continue);
    const matching = all.filter((o) => labels(o.metadata.labels) && fields(o));
    let start = 0;
    if (startAfter !== undefined) {
      start = matching.findIndex((o) => objectSortKey(o) > startAfter!);
      if (start < 0) start = matching.length;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    const page = limit ? matching.slice(start, start + limit) : matching.slice(start);
    const remaining = matching.length - start - page.length;
    const result: ListResult = { items: page.map((o) => this.present(target, o)), resourceVersion: String(revision) };
    if (limit && remaining > 0) {
      result.continue = encodeContinue(revision, objectSortKey(page[page.length - 1]));
      result.remainingItemCount = remaining;
    }
    return result;
  }

  private snapshotForList(key: string, namespace: string | undefined, revision: number, continuing: boolean): KubeObject[] {
    try {
      return this.store.snapshot(key, namespace, revision);
    } catch (error) {
      if (!continuing || !(error instanceof ApiError && error.code === 410)) throw error;
      throw errors.gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
  }

  /**
   * Streams changes in commit order. Without a resourceVersion (or "0") the current objects come
   * first as ADDED; with one, everything after it is replayed from the revision log (410 when
   * it is too old). Objects entering or leaving the selectors appear as ADDED or DELETED.
   */
  watch(target: Target, options: WatchOptions, emit: WatchEmitter): () => void {
    const key = this.key(target);
    const labels = parseLabelSelector(options.labelSelector ?? '');
    const fields = parseFieldSelector(options.fieldSelector ?? '', this.selectableFields(target.type));
    const matches = (o: KubeObject | undefined) =>
      !!o && (!target.namespace || o.metadata.namespace === target.namespace) && labels(o.metadata.labels) && fields(o);
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
      const now = event.type === 'DELETED' ? false : matches(event.object);
      const before = matches(event.previous);
      if (event.type === 'DELETED' && before) emit('DELETED', this.present(target, event.object));
      else if (event.type === 'ADDED' && now) emit('ADDED', this.present(target, event.object));
      else if (event.type === 'MODIFIED') {
        if (now && before) emit('MODIFIED', this.present(target, event.object));
        else if (now) emit('ADDED', this.present(target, event.object));
        else if (before) emit('DELETED', this.present(target, event.object));
      }
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
    const nameErrors = validateName(meta.name, this.nameRule(type));
    if (nameErrors.length) throw errors.invalid(type.kind, type.group, meta.name, nameErrors);
    if (type.namespaced) this.assertNamespaceOpen(type, meta.namespace!, meta.name);

    const stored = this.toStorage(target, object, options);
    if (target.version.status) delete stored.status;
    type.strategy.prepareForCreate?.(stored);
    this.admit(target, stored, undefined, options, warnings);
    const causeList = type.strategy.validateCreate?.(stored) ?? [];
    if (causeList.length) throw errors.invalid(type.kind, type.group, meta.name, causeList);

    Object.assign(stored.metadata, { uid: randomUUID(), creationTimestamp: now() });
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
    if (object.metadata.uid && object.metadata.uid !== current.metadata.uid) {
      throw uidPreconditionFailed(target.type, name, object.metadata.uid, current.metadata.uid);
    }
    if (object.metadata.resourceVersion && object.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.staleResourceVersion(target.type.group, target.type.plural, name);
    }
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
      const merged = type.builtin ? strategicMergePatch(live, applied, coreMergeKeys) : jsonMergePatch(live, applied);
      if (isPlainObject(merged) && isPlainObject(merged.metadata)) {
        recordApply(live, merged as KubeObject, applied, { ...this.writer(target, options), manager: options.fieldManager, force: !!options.force });
      }
      return this.applyPatched(target, current, merged, { ...options }, 'Apply');
    }
    if (!current) throw errors.notFound(type.group, type.plural, name);
    const live = this.present(target, current);
    let patched: unknown;
    switch (patchType) {
      case 'merge':
        if (!isPlainObject(patchBody)) throw errors.badRequest('merge patch body must be a JSON object');
        patched = jsonMergePatch(live, patchBody);
        break;
      case 'strategic':
        if (!type.builtin) {
          throw errors.unsupportedMediaType('application/strategic-merge-patch+json', [
            'application/json-patch+json',
            'application/merge-patch+json',
            'application/apply-patch+yaml',
          ]);
        }
        if (!isPlainObject(patchBody)) throw errors.badRequest('strategic merge patch body must be a JSON object');
        patched = strategicMergePatch(live, patchBody, coreMergeKeys);
        break;
      case 'json':
        patched = applyJsonPatch(live, patchBody);
        break;
    }
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
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw uidPreconditionFailed(target.type, name, pre.uid, current.metadata.uid);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(
        type.group,
        type.plural,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const warnings: string[] = [];
    this.validateAdmission({ operation: 'DELETE', target, name: requestName, namespace: current.metadata.namespace, oldObject: current, options }, warnings);
    const next = clone(current);
    const meta = next.metadata;
    const finalizers = new Set(meta.finalizers ?? []);
    const policy = options.propagationPolicy ?? (options.orphanDependents ? 'Orphan' : undefined);
    if (!meta.deletionTimestamp) {
      if (policy === 'Orphan') finalizers.add(ORPHAN_FINALIZER);
      if (policy === 'Foreground') finalizers.add(FOREGROUND_FINALIZER);
    }
    const grace = type.strategy.gracePeriodSeconds?.(current, options.gracePeriodSeconds) ?? 0;
    if (finalizers.size === 0 && grace === 0 && !type.strategy.holdsDeletion?.(current)) {
      if (options.dryRun) return { object: this.present(target, current), removed: true, warnings };
      return { object: this.present(target, this.store.remove(key, target.namespace, name)), removed: true, warnings };
    }
    const deadline = new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const shortens = meta.deletionGracePeriodSeconds === undefined || grace < meta.deletionGracePeriodSeconds;
    if (!meta.deletionTimestamp || shortens) {
      meta.deletionTimestamp = deadline;
      meta.deletionGracePeriodSeconds = grace;
    }
    if (finalizers.size) meta.finalizers = [...finalizers];
    type.strategy.markDeleting?.(next);
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
    const spec = (current.spec ?? {}) as { nodeName?: string; schedulingGates?: unknown[] };
    // kube-apiserver's order; every refusal is a Conflict on pods/binding (BindingREST.assignPod).
    if (current.metadata.deletionTimestamp) throw errors.conflict('', 'pods/binding', name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw errors.conflict('', 'pods/binding', name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    if ((spec.schedulingGates ?? []).length > 0) throw errors.conflict('', 'pods/binding', name, `pod ${name} has non-empty .spec.schedulingGates`);
    const next = clone(current);
    (next.spec as Record<string, unknown>).nodeName = nodeName;
    const status = (next.status ?? {}) as { conditions?: Record<string, unknown>[] };
    const stamp = now();
    status.conditions = [
      ...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: stamp },
    ];
    next.status = status;
    return this.present(target, this.store.update(key, next));
  }

  /** The autoscaling/v1 Scale view of an object whose version has a scale subresource. */
  getScale(target: Target, name: string): KubeObject {
    const scale = target.version.scale;
    if (!scale) throw errors.noRoute();
    const object = this.get(target, name);
    return {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        creationTimestamp: object.metadata.creationTimestamp,
      },
      spec: { replicas: readPath(object, scale.specReplicasPath) ?? 0 },
      status: {
        replicas: readPath(object, scale.statusReplicasPath) ?? 0,
        ...(scale.labelSelectorPath && readPath(object, scale.labelSelectorPath) !== undefined
          ? { selector: readPath(object, scale.labelSelectorPath) }
          : {}),
      },
    };
  }

  /** Writes `spec.replicas` of a Scale back to the object's specReplicasPath. */
  updateScale(target: Target, name: string, body: unknown, options: WriteOptions = {}): KubeObject {
    const scale = target.version.scale;
    if (!scale) throw errors.noRoute();
    if (!isPlainObject(body) || !isPlainObject(body.spec) || typeof body.spec.replicas !== 'number') {
      throw errors.badRequest('a Scale object with spec.replicas is required');
    }
    const metadata = isPlainObject(body.metadata) ? body.metadata : {};
    const current = this.get(target, name);
    if (metadata.resourceVersion && metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.staleResourceVersion(target.type.group, target.type.plural, name);
    }
    writePath(current, scale.specReplicasPath, body.spec.replicas);
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
    if (object.metadata.resourceVersion && object.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.staleResourceVersion(target.type.group, target.type.plural, name);
    }
    if (object.metadata.uid && object.metadata.uid !== current.metadata.uid) {
      throw uidPreconditionFailed(target.type, name, object.metadata.uid, current.metadata.uid);
    }
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
    let next: KubeObject;
    if (sub === 'status') {
      next = { ...clone(current), status: clone(incoming.status) };
      if (next.status === undefined) delete next.status;
    } else if (sub === 'finalize') {
      // Namespace finalize: only spec.finalizers changes (the namespace controller's last step).
      const spec = isPlainObject(incoming.spec) ? incoming.spec : {};
      next = clone(current);
      next.spec = { ...(next.spec as object), finalizers: clone(spec.finalizers ?? []) };
    } else {
      next = incoming;
      if (target.version.status) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
    }
    // An Apply's ownership comes with the merged object, whatever part of it the subresource keeps.
    if (operation === 'Apply') {
      if (incoming.metadata.managedFields) next.metadata.managedFields = incoming.metadata.managedFields;
      else delete next.metadata.managedFields;
    }
    // Fields the client cannot change through a write.
    const meta = next.metadata;
    for (const field of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (current.metadata[field] === undefined) delete meta[field];
      else meta[field] = current.metadata[field] as never;
    }
    if (current.metadata.deletionTimestamp) {
      const added = (meta.finalizers ?? []).filter((f) => !(current.metadata.finalizers ?? []).includes(f));
      if (added.length) {
        throw errors.invalid(type.kind, type.group, current.metadata.name!, [
          // Go's %#v of the sorted set, as ValidateNoNewFinalizers prints it: []string{"a", "b"}.
          causes.forbidden(
            'metadata.finalizers',
            `no new finalizers can be added if the object is being deleted, found new finalizers []string{${[...new Set(added)].sort().map((f) => JSON.stringify(f)).join(', ')}}`,
          ),
        ]);
      }
    }
    if (sub === '') type.strategy.prepareForUpdate?.(next, current);
    if (sub !== 'status') this.admit(target, next, current, options, warnings);
    const causeList = type.strategy.validateUpdate?.(next, current) ?? [];
    if (causeList.length) throw errors.invalid(type.kind, type.group, current.metadata.name!, causeList);

    if (type.generation && !isDeepStrictEqual(specOf(next), specOf(current))) meta.generation = (current.metadata.generation ?? 1) + 1;
    // An Apply's ownership was settled on the merged object (recordApply); an Update's is settled here.
    if (operation === 'Update') recordUpdate(current, next, this.writer(target, options));
    this.validateAdmission({ operation: 'UPDATE', target, subresource: sub, name: meta.name!, namespace: meta.namespace, object: next, oldObject: current, options }, warnings);
    const unchanged = isDeepStrictEqual(withoutVolatile(next), withoutVolatile(current)) && isDeepStrictEqual(ownership(next), ownership(current));
    if (unchanged) return { object: this.present(target, current), warnings, created: false };
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

  /** Custom-resource admission: prune unknown fields, apply defaults, validate against the version's schema and its CEL rules. */
  private admit(target: Target, object: KubeObject, old: KubeObject | undefined, options: WriteOptions, warnings: string[]): void {
    const { type } = target;
    type.strategy.normalize?.(object);
    if (type.builtin) return;
    const version = storageVersion(type);
    const schema = version.schema;
    if (!schema) return;
    const unknown = prune(object, schema, { isRoot: true });
    if (unknown.length && options.fieldValidation === 'Strict') {
      throw errors.badRequest(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
    }
    if (unknown.length && options.fieldValidation === 'Warn') warnings.push(...unknown.map((f) => `unknown field "${f}"`));
    applyDefaults(object, schema);
    const causeList = validateAgainstSchema(object, schema).filter((c) => !c.field?.startsWith('metadata'));
    causeList.push(...validationRuleCauses(object, old, schema, causeList, warnings));
    if (causeList.length) throw errors.invalid(type.kind, type.group, object.metadata.name ?? '', causeList);
  }

  private validateAdmission(attributes: AdmissionAttributes, warnings: string[]): void {
    const userInfo = (attributes.options as { userInfo?: UserInfo } | undefined)?.userInfo;
    if (this.validatingAdmission) warnings.push(...this.validatingAdmission.validate({ ...attributes, userInfo: attributes.userInfo ?? userInfo }));
  }

  /** A request body as an object of the target's kind: apiVersion, kind, name and namespace checked and set. */
  checkBody(target: Target, body: unknown, urlName?: string): KubeObject {
    const { type, version } = target;
    if (!isPlainObject(body)) throw errors.badRequest('the body of the request must be a JSON or YAML object');
    const object = clone(body) as KubeObject;
    const expected = apiVersionOf(type.group, version.name);
    if (object.apiVersion !== undefined && object.apiVersion !== expected) {
      throw errors.badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${expected})`);
    }
    if (object.kind !== undefined && object.kind !== type.kind) throw wrongKind(target, object);
    object.apiVersion = expected;
    object.kind = type.kind;
    if (!isPlainObject(object.metadata)) object.metadata = {};
    const meta = object.metadata;
    if (urlName !== undefined) {
      if (meta.name && meta.name !== urlName) {
        throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${urlName})`);
      }
      meta.name = urlName;
    }
    if (type.namespaced) {
      if (meta.namespace && target.namespace && meta.namespace !== target.namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = target.namespace ?? meta.namespace;
      if (!meta.namespace) throw errors.badRequest('a namespace must be given for a namespaced resource');
    } else {
      delete meta.namespace;
    }
    return object;
  }

  /** The NamespaceLifecycle admission plugin: no creates in a missing or Terminating namespace. */
  private assertNamespaceOpen(type: ResourceType, namespace: string, name: string): void {
    const ns = this.store.get('namespaces', undefined, namespace);
    if (!ns) throw errors.notFound('', 'namespaces', namespace);
    if (ns.metadata.deletionTimestamp) {
      const resource = resourceKey(type.group, type.plural);
      throw new ApiError(
        403,
        'Forbidden',
        `${resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name,
          group: type.group || undefined,
          kind: type.plural,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  }

  private nameRule(type: ResourceType): NameRule {
    if (type.group === '' && type.plural === 'services') return 'dns1035';
    if (type.group === 'rbac.authorization.k8s.io') return 'path-segment';
    return type.group === '' && type.plural === 'namespaces' ? 'label' : 'subdomain';
  }

  private selectableFields(type: ResourceType): readonly string[] {
    return [...commonFieldSelectors, ...(type.builtin ? fieldSelectorsByResource[type.plural] ?? [] : [])];
  }

  private key(target: Target): string {
    return resourceKey(target.type.group, target.type.plural);
  }

  /**
   * Converts a client-version object into the storage version. A custom resource written through a
   * non-storage version is first validated against that version's own schema, as kube-apiserver does
   * (conversion can drop the offending field, e.g. v1alpha1 `spec.replicas: 2`).
   */
  private toStorage(target: Target, object: KubeObject, options: WriteOptions): KubeObject {
    if (options.subresource !== 'status') this.validateInRequestVersion(target, object);
    return this.convert(target.type, object, storageVersion(target.type).name);
  }

  private validateInRequestVersion(target: Target, object: KubeObject): void {
    const { type, version } = target;
    if (type.builtin || !version.schema || version.name === storageVersion(type).name) return;
    const copy = clone(object);
    if (version.status) delete copy.status;
    prune(copy, version.schema, { isRoot: true });
    applyDefaults(copy, version.schema);
    const causeList = validateAgainstSchema(copy, version.schema).filter((c) => !c.field?.startsWith('metadata'));
    if (causeList.length) throw errors.invalid(type.kind, type.group, object.metadata.name ?? '', causeList);
  }

  /** A copy of a stored object in the version the client asked for. */
  present(target: Target, stored: KubeObject): KubeObject {
    return this.convert(target.type, clone(stored), target.version.name);
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

function uidPreconditionFailed(type: ResourceType, name: string, expected: string | undefined, actual: string | undefined): ApiError {
  return errors.conflict(type.group, type.plural, name, `Precondition failed: UID in precondition: ${expected}, UID in object meta: ${actual}`);
}

/** Everything but metadata and status: what `metadata.generation` tracks. */
function specOf(object: KubeObject): unknown {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
}

/** managedFields without their times: what decides whether ownership changed. */
function ownership(object: KubeObject): unknown {
  return ((object.metadata.managedFields ?? []) as { time?: string }[]).map(({ time: _t, ...entry }) => entry);
}

function withoutVolatile(object: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = object.metadata;
  return { ...object, metadata: meta };
}

/** Reads a simple `.a.b.c` JSON path, the form CRD scale paths use. */
function readPath(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.replace(/^\./, '').split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return value;
}

function writePath(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let node = object;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

/**
 * A body whose kind is not the resource's: a built-in's decoder cannot convert it (400, through
 * transformDecodeError); a custom resource fails validation of `kind` (422).
 */
function wrongKind(target: Target, object: KubeObject): ApiError {
  const { type, version } = target;
  const kind = String(object.kind);
  if (!type.builtin) {
    return errors.invalid(kind, type.group, String(object.metadata?.name ?? ''), [causes.invalid('kind', kind, `must be ${type.kind}`)]);
  }
  const dataVersion = typeof object.apiVersion === 'string' ? object.apiVersion.split('/').pop()! : version.name;
  const internal = type.group === '' ? 'core' : type.group.split('.')[0];
  return errors.badRequest(
    `${kind} in version "${dataVersion}" cannot be handled as a ${type.kind}: converting (${dataVersion}.${kind}) to (${internal}.${type.kind}): unknown conversion`,
  );
}

function objectSortKey(object: KubeObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name!;
}

function parseRevision(value: string): number {
  const revision = Number(value);
  if (!Number.isInteger(revision) || revision < 0) throw errors.badRequest(`invalid resource version: ${value}`);
  return revision;
}

function encodeContinue(revision: number, startAfter: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: startAfter })).toString('base64url');
}

function decodeContinue(token: string): { revision: number; startAfter: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: unknown; start: unknown };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') return { revision: parsed.rv, startAfter: parsed.start };
  } catch {
    // fall through to the error below
  }
  throw errors.badRequest('invalid continue token');
}

function parseApplyBody(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw errors.badRequest(`error decoding YAML: ${(error as Error).message}`);
  }
}

function applyJsonPatch(document: KubeObject, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw errors.badRequest('json patch body must be a JSON array of operations');
  try {
    return jsonPatch.applyPatch(document, operations as jsonPatch.Operation[], true, false).newDocument;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    // kube-apiserver's words exactly (NewGenericServerResponse); the failed operation is kept as a cause.
    throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message }] });
  }
}

