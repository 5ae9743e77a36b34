import { ApiError, errors } from '../../errors.ts';
import type { KubeObject } from '../../types.ts';
import { messageSchema } from './message-table.ts';
import { toKubernetesJson } from './to-json.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** Every protobuf body starts with these four bytes ("k8s" and a zero), then a runtime.Unknown. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/**
 * The kinds a protobuf body may carry, by apiVersion and kind: what kubectl's typed clients write
 * (`kubectl create namespace|configmap|secret|...`, `create token`, `auth can-i`). Others get 415.
 */
const PROTOBUF_KINDS = new Set([
  'v1/Namespace',
  'v1/ConfigMap',
  'v1/Secret',
  'v1/ServiceAccount',
  'v1/Service',
  'v1/Pod',
  'v1/ResourceQuota',
  'apps/v1/Deployment',
  'batch/v1/Job',
  'batch/v1/CronJob',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'scheduling.k8s.io/v1/PriorityClass',
  'policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1/Ingress',
  'authentication.k8s.io/v1/TokenRequest',
  'authentication.k8s.io/v1/TokenReview',
  'authentication.k8s.io/v1/SelfSubjectReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview',
  'authorization.k8s.io/v1/SubjectAccessReview',
]);

/**
 * Decodes a `application/vnd.kubernetes.protobuf` body into the JSON object the rest of the server
 * works on. Malformed bodies are 400 (the caller adds kube-apiserver's "the object provided is
 * unrecognized" frame); a well-formed body of a kind without a message table here is 415.
 */
export function decodeProtobufObject(body: Buffer): KubeObject {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw errors.badRequest(`provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`);
  }
  const schema = messageSchema();
  const envelope = decodeMessage('Unknown', body.subarray(MAGIC.length)) as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: Uint8Array;
    contentEncoding?: string;
  };
  const apiVersion = envelope.typeMeta?.apiVersion ?? '';
  const kind = envelope.typeMeta?.kind ?? '';
  if (!kind) throw errors.badRequest("Object 'Kind' is missing in the protobuf envelope (runtime.Unknown typeMeta)");
  if (!apiVersion) throw errors.badRequest(`Object 'apiVersion' is missing in the protobuf envelope of a ${kind}`);
  if (envelope.contentEncoding) throw errors.badRequest(`unsupported contentEncoding "${envelope.contentEncoding}" in the protobuf envelope`);
  if (!PROTOBUF_KINDS.has(`${apiVersion}/${kind}`)) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the embedded cluster cannot decode a protobuf body of kind ${kind} (${apiVersion}); send it as JSON or YAML instead, e.g. from a manifest with kubectl apply -f`,
      { kind, causes: [{ reason: 'UnsupportedMediaType', message: `${PROTOBUF_MEDIA_TYPE} (${apiVersion}, Kind=${kind})` }] },
    );
  }
  const message = decodeMessage(kind, envelope.raw ?? new Uint8Array());
  return { apiVersion, kind, ...toKubernetesJson(schema, kind, message) } as KubeObject;
}

function decodeMessage(typeName: string, bytes: Uint8Array): Record<string, unknown> {
  try {
    return messageSchema().type(typeName).decode(bytes) as unknown as Record<string, unknown>;
  } catch (error) {
    // protobufjs reports a cut-off message as a RangeError; Go's generated unmarshalers say this.
    const reason = error instanceof RangeError ? 'unexpected EOF' : (error as Error).message;
    throw errors.badRequest(`unable to decode ${typeName === 'Unknown' ? 'the protobuf envelope' : `a protobuf ${typeName}`}: ${reason}`);
  }
}
