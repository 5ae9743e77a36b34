/**
 * A request to the Kubernetes API as the fault proxy sees it: what kube-apiserver's RequestInfo
 * resolver reads from the method and URL (verb, group, version, resource, subresource, namespace,
 * name), the query parameters that decide how it is answered, and, for writes, what the body
 * conditions it on. One model for every fault: triggers and faults match requests on it.
 */

/** The Kubernetes verbs, as RequestInfo names them (`connect` for exec, attach, port-forward, proxy). */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'connect';

export const WRITE_VERBS: readonly KubeVerb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export interface KubeRequest {
  verb: KubeVerb;
  /** '' for the core group. */
  group: string;
  version: string;
  /** The resource's plural: `pods`, `sandboxes`. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The request path and query as sent. */
  path: string;
  /** Query parameters that decide how a read is answered. */
  resourceVersion?: string;
  resourceVersionMatch?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  sendInitialEvents?: boolean;
  fieldManager?: string;
  /** The body of a write, parsed (JSON; YAML for apply); undefined without one or when it is not JSON (protobuf). */
  body?: unknown;
  patchType?: 'json' | 'merge' | 'strategic' | 'apply';
  /** The resourceVersion the write is conditioned on: `metadata.resourceVersion` in the body, or DeleteOptions' preconditions. */
  resourceVersionPrecondition?: string;
  /** The UID the write is conditioned on (body `metadata.uid`, or DeleteOptions' preconditions). */
  uidPrecondition?: string;
  /** Which of its client's writes this is (1 = the first), counted by the proxy; undefined for reads. */
  writeIndex?: number;
}

/**
 * Which requests a fault or trigger applies to; an omitted field matches anything. Plain data, so
 * schedules carry it, except `target`, which the schedule engine adds for objects named by role.
 */
export interface RequestMatch {
  verb?: KubeVerb | KubeVerb[];
  /** The plural, alone or with its group: `secrets`, `sandboxes.agents.x-k8s.io`. */
  resource?: string;
  /** A subresource (`status`); '' matches the main resource only. */
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Only writes (create, update, patch, delete, deletecollection). */
  writes?: boolean;
  /** Only this client's requests: the index of the driver replica whose kubeconfig sent it. */
  client?: number;
  fieldManager?: string;
  /** A further predicate (not serialised): objects a schedule names by role, resolved by the engine. */
  target?: (request: KubeRequest) => boolean;
}
