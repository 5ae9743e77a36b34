import * as k8s from '@kubernetes/client-node';
import { DriverError } from '../compute-driver.ts';
import type { CallScope } from './call-scope.ts';
import { FIELD_MANAGER } from './names.ts';
import { PooledConnections } from './pooled-connections.ts';
import { SharedWatches } from './shared-watches.ts';

export type KubeObject = k8s.KubernetesObject & { spec?: any; status?: any; [key: string]: unknown };

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface DeleteRequest {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
}

/** The Status a failed call answered, when there is one. */
export function statusOf(error: unknown): { code: number; reason?: string; message?: string } | undefined {
  if (!(error instanceof k8s.ApiException)) return undefined;
  let body: { reason?: string; message?: string } = {};
  try {
    body = typeof error.body === 'string' ? JSON.parse(error.body) : (error.body as object);
  } catch {
    // not a Status body
  }
  return { code: error.code, reason: body?.reason, message: body?.message };
}

export function isNotFound(error: unknown): boolean {
  return statusOf(error)?.code === 404;
}

export function isConflict(error: unknown): boolean {
  const status = statusOf(error);
  return status?.code === 409 && status.reason !== 'AlreadyExists';
}

export function isAlreadyExists(error: unknown): boolean {
  const status = statusOf(error);
  return status?.code === 409 && status.reason === 'AlreadyExists';
}

/** Errors of the API server's own trouble (a 5xx, the server unreachable): a later try may succeed. */
const TRANSIENT = new WeakSet<DriverError>();

/** Whether `error` is the API server's passing trouble (a 5xx, unreachable) rather than an answer about the objects. */
export function isTransientApiError(error: unknown): boolean {
  return error instanceof DriverError && TRANSIENT.has(error);
}

function transient(error: DriverError): DriverError {
  TRANSIENT.add(error);
  return error;
}

/** Turns a client failure into the driver's error vocabulary, keeping the server's message. */
export function asDriverError(error: unknown, doing: string): DriverError {
  if (error instanceof DriverError) return error;
  const status = statusOf(error);
  if (!status) {
    const message = (error as Error)?.message ?? String(error);
    if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|socket hang up|fetch failed/i.test(message + String((error as { cause?: unknown })?.cause ?? ''))) {
      return transient(new DriverError('UNAVAILABLE', `${doing}: the Kubernetes API server is unreachable (${message})`));
    }
    return new DriverError('INTERNAL', `${doing}: ${message}`);
  }
  const message = `${doing}: ${status.message ?? `HTTP ${status.code}`}`;
  if (status.code >= 500) return transient(new DriverError('INTERNAL', message));
  if (status.code === 404) return new DriverError('NOT_FOUND', message);
  if (status.code === 409 && status.reason === 'AlreadyExists') return new DriverError('ALREADY_EXISTS', message);
  if (status.code === 400 || status.code === 422) return new DriverError('INVALID_ARGUMENT', message);
  if (status.code === 403 || status.code === 409) return new DriverError('FAILED_PRECONDITION', message);
  return new DriverError('INTERNAL', message);
}

/**
 * How many times one request is sent again when the API server asks the client to come back
 * later, and how long a reset read waits before it is sent again: client-go's defaults (its
 * request retries: 10, and a second for a retried read).
 */
const MAX_RETRIES = 10;
const RESET_READ_RETRY_MS = 1_000;

/**
 * How long to wait before sending a failed request again, or undefined when it must not be.
 * As client-go's request does: an answer of 429 or 5xx with a Retry-After header says the request
 * was not carried out and when to come back, whatever the verb; a read whose connection
 * was reset is sent again (a write is not: it may have landed). client-node retries nothing.
 */
export function retryDelay(error: unknown, read: boolean): number | undefined {
  if (error instanceof k8s.ApiException) {
    const header = Object.entries(error.headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
    const seconds = header === undefined ? undefined : Number(header);
    // Capped at 10 s: a wait outside any call (the reconcile loop) must not stall on one answer.
    if ((error.code === 429 || error.code >= 500) && seconds !== undefined && Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 10) * 1000;
    return undefined;
  }
  const text = `${(error as Error)?.message ?? ''} ${String((error as { cause?: { code?: string } })?.cause?.code ?? '')}`;
  return read && /ECONNRESET|socket hang up|EPIPE/i.test(text) ? RESET_READ_RETRY_MS : undefined;
}

/** What every view of one driver instance shares: clients made once, the watches, its life. */
interface KubeShared {
  objects: k8s.KubernetesObjectApi;
  core: k8s.CoreV1Api;
  apis: k8s.ApisApi;
  connections: PooledConnections;
  watches: SharedWatches;
  /** Halting one view halts them all. */
  life: { halted: boolean };
}

/**
 * The few calls the driver makes, over @kubernetes/client-node's generic object API, so one
 * code path serves core kinds and the Agent Sandbox custom resource alike. A view made for one
 * call (`forCall`) sends nothing once that call has ended and stops waiting for an answer the
 * moment it ends. The clients, their connection pool and the watches are made once per driver
 * instance, never per call.
 */
export class Kube {
  private readonly shared: KubeShared;
  private readonly scope?: CallScope;

  /** `watchSelector`: the labels of the objects the shared watches see (shared-watches.ts). */
  constructor(
    readonly config: k8s.KubeConfig,
    view?: { shared: KubeShared; scope: CallScope } | { watchSelector: string },
  ) {
    this.shared = view && 'shared' in view ? view.shared : Kube.shared(config, view?.watchSelector);
    this.scope = view && 'scope' in view ? view.scope : undefined;
  }

  private static shared(config: k8s.KubeConfig, watchSelector?: string): KubeShared {
    const connections = new PooledConnections(config);
    // Every request names its namespace, so the kubeconfig's default namespace is never needed.
    return { objects: connections.client(k8s.KubernetesObjectApi), core: connections.client(k8s.CoreV1Api), apis: connections.client(k8s.ApisApi), connections, watches: new SharedWatches(config, { labelSelector: watchSelector }), life: { halted: false } };
  }

  /** The same client, bound to one call's deadline and signal. */
  forCall(scope: CallScope): Kube {
    return new Kube(this.config, { shared: this.shared, scope });
  }

  /** The driver's shared watches: waits subscribe to the objects they wait for (change-signal.ts). */
  get watches(): SharedWatches {
    return this.shared.watches;
  }

  /** From now on every call fails: an instance abandoned mid-operation, as a crash leaves it. */
  halt(): void {
    this.shared.life.halted = true;
    // The waits wake, read, and meet the halt; requests in flight finish as they would have.
    this.shared.watches.close();
  }

  /** Ends the shared watches and closes the pooled connections (the driver is closing). */
  close(): void {
    this.shared.watches.close();
    this.shared.connections.close();
  }

  /**
   * Runs one request, unless the instance was halted or the call has ended; stops waiting when
   * the call ends. Sent again when the server says to come back later (`retryDelay`), within the call's bounds.
   */
  private async request<T>(send: () => Promise<T>, read = false): Promise<T> {
    for (let retries = 0; ; retries++) {
      try {
        return await this.once(send);
      } catch (error) {
        const delay = retries < MAX_RETRIES ? retryDelay(error, read) : undefined;
        if (delay === undefined) throw error;
        const waited = new Promise<void>((resolve) => setTimeout(resolve, delay));
        await (this.scope ? this.scope.race(waited) : waited);
      }
    }
  }

  private once<T>(send: () => Promise<T>): Promise<T> {
    if (this.shared.life.halted) return Promise.reject(new DriverError('UNAVAILABLE', 'this driver instance was halted (simulated crash)'));
    if (!this.scope) return send();
    try {
      this.scope.check();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.scope.race(send());
  }

  /** The object, or undefined when it does not exist. */
  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    try {
      return (await this.request(() => this.shared.objects.read({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } }), true)) as KubeObject;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list(apiVersion: string, kind: string, namespace: string | undefined, labelSelector?: string): Promise<KubeObject[]> {
    const list = await this.request(() => this.shared.objects.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector), true);
    return list.items as KubeObject[];
  }

  async create<T extends KubeObject>(object: T): Promise<T> {
    return (await this.request(() => this.shared.objects.create(object, undefined, undefined, FIELD_MANAGER))) as T;
  }

  /** A JSON merge patch; carry `metadata.resourceVersion` in it for optimistic concurrency. */
  async mergePatch(ref: ObjectRef, patch: Record<string, unknown>): Promise<KubeObject> {
    const body = { ...patch, apiVersion: ref.apiVersion, kind: ref.kind, metadata: { ...(patch.metadata as object), name: ref.name, namespace: ref.namespace } };
    return (await this.request(() => this.shared.objects.patch(body, undefined, undefined, FIELD_MANAGER, undefined, k8s.PatchStrategy.MergePatch))) as KubeObject;
  }

  /**
   * A JSON patch on a Pod. Through the typed CoreV1Api, because the generic object API
   * serialises bodies through the Pod model, which drops patch directives.
   */
  async jsonPatchPod(namespace: string, name: string, operations: object[]): Promise<KubeObject> {
    return (await this.request(() => this.shared.core.patchNamespacedPod({ name, namespace, body: operations, fieldManager: FIELD_MANAGER }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch)))) as KubeObject;
  }

  /** True when a DELETE was accepted; false when the object was already gone. */
  async delete(ref: ObjectRef, request: DeleteRequest = {}): Promise<boolean> {
    try {
      await this.request(() =>
        this.shared.objects.delete(
          { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace } },
          undefined,
          undefined,
          request.gracePeriodSeconds,
          undefined,
          request.propagationPolicy,
          { preconditions: request.preconditions, propagationPolicy: request.propagationPolicy, gracePeriodSeconds: request.gracePeriodSeconds },
        ),
      );
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** The versions the API server serves for a group (discovery). */
  async groupVersions(group: string): Promise<string[]> {
    const groups = await this.request(() => this.shared.apis.getAPIVersions(), true);
    return groups.groups.find((g) => g.name === group)?.versions.map((v) => v.version) ?? [];
  }
}
