/**
 * Custom resources against their schema, as kube-apiserver admits them: unknown fields pruned
 * (refused or warned about as fieldValidation asks), defaults applied, the structural schema
 * and its CEL validation rules checked.
 */
import { errors } from '../errors.ts';
import { applyDefaults } from '../schema/defaults.ts';
import { prune } from '../schema/prune.ts';
import { validateAgainstSchema } from '../schema/structural-schema.ts';
import { validationRuleCauses } from '../schema/validation-rules.ts';
import { clone, type KubeObject } from '../types.ts';
import type { FieldValidation } from './object-api-options.ts';
import { storageVersion, type Target } from './resource-type.ts';

/** A custom resource in the storage version against that version's schema; built-in kinds pass untouched. */
export function admitToSchema(target: Target, object: KubeObject, old: KubeObject | undefined, fieldValidation: FieldValidation | undefined, warnings: string[]): void {
  const { type } = target;
  if (type.builtin) return;
  const version = storageVersion(type);
  const schema = version.schema;
  if (!schema) return;
  const unknown = prune(object, schema, { isRoot: true });
  if (unknown.length && fieldValidation === 'Strict') {
    throw errors.badRequest(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  }
  if (unknown.length && fieldValidation === 'Warn') warnings.push(...unknown.map((f) => `unknown field "${f}"`));
  applyDefaults(object, schema);
  const causeList = validateAgainstSchema(object, schema).filter((c) => !c.field?.startsWith('metadata'));
  causeList.push(...validationRuleCauses(object, old, schema, causeList, warnings));
  if (causeList.length) throw errors.invalid(type.kind, type.group, object.metadata.name ?? '', causeList);
}

/**
 * A custom resource written through a non-storage version, validated against that version's own
 * schema before conversion, as kube-apiserver does (conversion can drop the offending field,
 * e.g. v1alpha1 `spec.replicas: 2`).
 */
export function validateInRequestVersion(target: Target, object: KubeObject): void {
  const { type, version } = target;
  if (type.builtin || !version.schema || version.name === storageVersion(type).name) return;
  const copy = clone(object);
  if (version.status) delete copy.status;
  prune(copy, version.schema, { isRoot: true });
  applyDefaults(copy, version.schema);
  const causeList = validateAgainstSchema(copy, version.schema).filter((c) => !c.field?.startsWith('metadata'));
  if (causeList.length) throw errors.invalid(type.kind, type.group, object.metadata.name ?? '', causeList);
}
