import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { builtinSchemas, hasBuiltinSchema } from './openapi-builtin.ts';

/**
 * OpenAPI v3 documents, enough for kubectl: per group version, the write operations with their
 * `fieldValidation` parameter (so kubectl leaves validation to the server and sends
 * fieldValidation=Strict) and each kind's schema (the CRD's own for custom resources).
 * Built-in kinds described by the message tables get their full schema (openapi-builtin.ts), others
 * an open object schema; the server does not validate built-in kinds against these schemas.
 */
const WRITE_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation'].map((name) => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } }));
const PATCH_PARAMETERS = [...WRITE_PARAMETERS, { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } }];

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function schemaName(type: ResourceType, version: string): string {
  return `${type.group || 'core'}.${version}.${type.kind}`;
}

export function groupVersionDocument(registry: ResourceRegistry, group: string, version: string): unknown | undefined {
  const types = registry.all().filter((t) => t.group === group && t.versions.some((v) => v.name === version && v.served));
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const type of types) {
    const gvk = { group, version, kind: type.kind };
    const ref = { $ref: `#/components/schemas/${schemaName(type, version)}` };
    const body = { content: { 'application/json': { schema: ref } } };
    const ok = { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } };
    const base = `/${gvPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    const op = (action: string, parameters: unknown[], extra: Record<string, unknown> = {}) => ({
      operationId: `${action}${type.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters,
      responses: ok,
      ...extra,
    });
    paths[base] = { get: op('list', []), post: op('post', WRITE_PARAMETERS, { requestBody: body }) };
    paths[`${base}/{name}`] = {
      get: op('get', []),
      put: op('put', WRITE_PARAMETERS, { requestBody: body }),
      patch: op('patch', PATCH_PARAMETERS, { requestBody: { content: { 'application/merge-patch+json': { schema: { type: 'object' } } } } }),
      delete: op('delete', []),
    };
    const v = type.versions.find((x) => x.name === version)!;
    let schema = v.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    if (type.builtin && hasBuiltinSchema(type.kind)) {
      const built = builtinSchemas(type.kind);
      Object.assign(schemas, built.components);
      schema = built.root;
    }
    schemas[schemaName(type, version)] = { ...schema, 'x-kubernetes-group-version-kind': [gvk] };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes (embedded)', version: 'v1.32.0' }, paths, components: { schemas } };
}

export function openApiIndex(registry: ResourceRegistry): unknown {
  const paths: Record<string, unknown> = {};
  for (const [group, versions] of registry.groups()) {
    for (const version of versions) {
      const doc = JSON.stringify(groupVersionDocument(registry, group, version));
      const hash = createHash('sha256').update(doc).digest('hex').slice(0, 16).toUpperCase();
      paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
    }
  }
  return { paths };
}
