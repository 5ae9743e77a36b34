import { coreMergeKeys, MERGE_AS_SET } from '../patch/merge-keys.ts';
import { DESCRIPTIONS } from './openapi-descriptions.ts';
import { messageSchema, SCALARS, type FieldInfo } from './protobuf/message-table.ts';

/**
 * OpenAPI v3 schemas for built-in kinds, made from the same message tables the protobuf decoder
 * uses (field names and types as data, see protobuf/message-table.ts): deep enough for
 * `kubectl explain pod.spec.containers.ports`, one component per message, `$ref`s between them,
 * and strategic-merge markers (patch strategy and merge key) where the server merges lists by key,
 * so kubectl's client-side apply computes the same patches it does against a real cluster.
 * Descriptions come from openapi-descriptions.ts, for the kinds people explain most.
 */

type Schema = Record<string, unknown>;

const COMPONENT_PREFIX = 'io.k8s.embedded.';

const SPECIAL: Record<string, Schema> = {
  Time: { type: 'string', format: 'date-time' },
  MicroTime: { type: 'string', format: 'date-time' },
  FieldsV1: { type: 'object' },
  ExtraValue: { type: 'array', items: { type: 'string' } },
};

function scalar(type: string): Schema {
  switch (type) {
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'double':
      return { type: 'number', format: 'double' };
    default:
      return { type: 'string' };
  }
}

/** Types with a JSON form of their own that are still components, so explain names them `<IntOrString>`. */
const NAMED_SPECIAL: Record<string, Schema> = {
  Quantity: { 'x-kubernetes-int-or-string': true },
  IntOrString: { format: 'int-or-string', 'x-kubernetes-int-or-string': true },
};

function valueSchema(type: string): Schema {
  if (SCALARS.has(type)) return scalar(type);
  if (SPECIAL[type]) return { ...SPECIAL[type] };
  return { $ref: `#/components/schemas/${COMPONENT_PREFIX}${type}` };
}

/** Where a message's lists sit, so the server's merge-key rules (keyed by field path) apply to it. */
function contextPath(message: string): string[] {
  if (message === 'Container' || message === 'EphemeralContainerCommon') return ['spec', 'containers'];
  if (message === 'ServiceSpec') return ['spec'];
  if (message === 'ObjectMeta') return ['metadata'];
  return ['', ''];
}

function fieldSchema(message: string, field: FieldInfo): Schema {
  if (field.map) return { type: 'object', additionalProperties: valueSchema(field.type) };
  const item = valueSchema(field.type);
  if (!field.repeated) return item.$ref ? { allOf: [item] } : item;
  const schema: Schema = { type: 'array', items: item };
  const key = coreMergeKeys([...contextPath(message), field.json]);
  if (key) {
    schema['x-kubernetes-patch-strategy'] = 'merge';
    if (key !== MERGE_AS_SET) schema['x-kubernetes-patch-merge-key'] = key;
  }
  return schema;
}

function properties(message: string): Record<string, Schema> {
  const result: Record<string, Schema> = {};
  for (const field of messageSchema().fields.get(message) ?? []) {
    if (field.inline) {
      Object.assign(result, properties(field.type));
      continue;
    }
    const description = DESCRIPTIONS[`${message}.${field.json}`];
    result[field.json] = { ...fieldSchema(message, field), ...(description ? { description } : {}) };
  }
  return result;
}

/** True when the tables describe this kind. */
export function hasBuiltinSchema(kind: string): boolean {
  return messageSchema().fields.has(kind);
}

/**
 * The kind's schema and every component it reaches. `root` gets apiVersion and kind and the
 * group-version-kind marker from the caller.
 */
export function builtinSchemas(kind: string): { root: Schema; components: Record<string, Schema> } {
  const components: Record<string, Schema> = {};
  const pending = [kind];
  while (pending.length) {
    const message = pending.pop()!;
    if (components[COMPONENT_PREFIX + message] || SPECIAL[message]) continue;
    if (NAMED_SPECIAL[message]) {
      components[COMPONENT_PREFIX + message] = NAMED_SPECIAL[message];
      continue;
    }
    const description = DESCRIPTIONS[message];
    components[COMPONENT_PREFIX + message] = { ...(description ? { description } : {}), type: 'object', properties: properties(message) };
    for (const field of messageSchema().fields.get(message) ?? []) {
      if (!SCALARS.has(field.type) && !SPECIAL[field.type]) pending.push(field.type);
    }
  }
  const root = components[COMPONENT_PREFIX + kind];
  delete components[COMPONENT_PREFIX + kind];
  const rootProperties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, ...(root.properties as Record<string, Schema>) };
  return { root: { ...root, properties: rootProperties }, components };
}
