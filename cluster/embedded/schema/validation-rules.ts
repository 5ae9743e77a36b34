/**
 * CRD `x-kubernetes-validations`: CEL rules on structural schema nodes, evaluated as
 * apiextensions-apiserver does. `self` is the node's value (typed by its schema), `oldSelf` the
 * correlated old value; a rule that reads `oldSelf` (a transition rule) runs only on an update
 * where that old value exists. Old values correlate through object properties, granular maps and
 * `x-kubernetes-list-type: map` items (by their keys), nowhere else. Ratcheting (beta, on by
 * default since 1.30): a failing rule without `oldSelf` on a value the update left unchanged is a
 * warning, not an error. Errors are worded as the real server words them:
 * `spec: Invalid value: "object": volumeClaimTemplates is immutable`.
 *
 * Not covered: `optionalOldSelf`, cost budgets, string formats as CEL types (a `date-time`
 * string stays a string), rules inside `allOf`, embedded resources as roots of their own.
 */

import { isDeepStrictEqual } from 'node:util';
import { CelCompileError, compileCel, type CompiledExpression } from '../cel/compile.ts';
import { jsonToCelBySchema } from '../cel/values.ts';
import type { StatusCause } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import { additionalSchema, childPath, indexPath, type JSONSchemaProps } from './structural-schema.ts';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

const RULE_VARIABLES = ['self', 'oldSelf'];

/** Reasons that keep the real server from running CEL rules on an object (hasBlockingErr). */
const BLOCKING_REASONS = new Set(['FieldValueTypeInvalid', 'FieldValueNotSupported']);

/**
 * Field errors of the schema's rules for `object` (with `old` on an update). `schemaCauses` are
 * the errors the schema validator already found: a wrong type or enum value stops the rules.
 * Ratcheted failures are appended to `warnings`.
 */
export function validationRuleCauses(
  object: KubeObject,
  old: KubeObject | undefined,
  schema: JSONSchemaProps,
  schemaCauses: readonly StatusCause[],
  warnings: string[],
): StatusCause[] {
  if (!hasRules(schema)) return [];
  if (schemaCauses.some((c) => c.reason && BLOCKING_REASONS.has(c.reason))) {
    return [{ reason: 'FieldValueInvalid', field: ROOT, message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' }];
  }
  const out: StatusCause[] = [];
  const root = resourceRoot(object);
  const oldRoot = old && resourceRoot(old);
  validateNode(root, oldRoot, schema, '', oldRoot !== undefined && isDeepStrictEqual(root, oldRoot), { out, warnings });
  return out;
}

/**
 * Compile errors of every rule in a CRD version's schema, as CRD validation reports them:
 * `<base>.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ...`.
 */
export function validationRuleCompileCauses(schema: JSONSchemaProps | undefined, base: string): StatusCause[] {
  if (!schema) return [];
  const out: StatusCause[] = [];
  rulesOf(schema).forEach((rule, i) => {
    const field = `${base}.x-kubernetes-validations[${i}]`;
    for (const [member, expression] of [['rule', rule.rule], ['messageExpression', rule.messageExpression]] as const) {
      if (typeof expression !== 'string' || !expression.trim()) continue;
      try {
        compileCel(expression, RULE_VARIABLES);
      } catch (error) {
        if (!(error instanceof CelCompileError)) throw error;
        out.push({ reason: 'FieldValueInvalid', field: `${field}.${member}`, message: `Invalid value: ${goRule(rule)}: ${error.detail}` });
      }
    }
  });
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...validationRuleCompileCauses(child, `${base}.properties[${key}]`));
  out.push(...validationRuleCompileCauses(schema.items, `${base}.items`));
  out.push(...validationRuleCompileCauses(additionalSchema(schema), `${base}.additionalProperties`));
  return out;
}

interface Sink {
  out: StatusCause[];
  warnings: string[];
}

function validateNode(value: unknown, old: unknown, schema: JSONSchemaProps, path: string, unchanged: boolean, sink: Sink): void {
  if (value === null || value === undefined) return;
  for (const rule of rulesOf(schema)) evaluateRule(rule, value, old, schema, path, unchanged, sink);
  if (Array.isArray(value) && schema.items) {
    const keys = schema['x-kubernetes-list-type'] === 'map' ? schema['x-kubernetes-list-map-keys'] ?? [] : undefined;
    value.forEach((item, i) => {
      const oldItem = keys && Array.isArray(old) ? old.find((o) => keys.every((k) => isPlainObject(o) && isPlainObject(item) && isDeepStrictEqual(o[k], item[k]))) : undefined;
      const itemUnchanged = oldItem !== undefined ? isDeepStrictEqual(item, oldItem) : unchanged;
      validateNode(item, oldItem, schema.items!, indexPath(path, i), itemUnchanged, sink);
    });
  }
  if (isPlainObject(value)) {
    const correlatable = schema['x-kubernetes-map-type'] !== 'atomic' && isPlainObject(old);
    const extra = additionalSchema(schema);
    for (const [key, member] of Object.entries(value)) {
      const memberSchema = schema.properties?.[key] ?? extra;
      if (!memberSchema) continue;
      const oldMember = correlatable ? (old as Record<string, unknown>)[key] : undefined;
      const memberUnchanged = oldMember !== undefined ? isDeepStrictEqual(member, oldMember) : unchanged;
      validateNode(member, oldMember, memberSchema, extra && !schema.properties?.[key] ? `${path}[${key}]` : childPath(path, key), memberUnchanged, sink);
    }
  }
}

function evaluateRule(rule: ValidationRule, value: unknown, old: unknown, schema: JSONSchemaProps, path: string, unchanged: boolean, sink: Sink): void {
  const typeName = schema.type ?? '';
  let compiled: CompiledExpression;
  try {
    compiled = compileCel(rule.rule, RULE_VARIABLES);
  } catch (error) {
    // A CRD with such a rule is refused when written; one that got in reports it per object, as the server does.
    sink.out.push(invalid(path, typeName, `rule compile error: ${(error as Error).message}`));
    return;
  }
  const transition = compiled.references.has('oldSelf');
  if (transition && (old === null || old === undefined)) return;
  const bindings = { self: jsonToCelBySchema(value, schema), ...(transition ? { oldSelf: jsonToCelBySchema(old, schema) } : {}) };
  const outcome = compiled.evaluate(bindings);
  if ('error' in outcome) {
    sink.out.push(invalid(path, typeName, `${outcome.error} evaluating rule: ${ruleErrorString(rule)}`));
    return;
  }
  if (outcome.value === true) return;
  const field = (rule.fieldPath ? childPath(path, normalizeFieldPath(rule.fieldPath)) : path) || ROOT;
  const cause = causeForReason(rule.reason, field, typeName, messageOf(rule, bindings));
  if (!transition && unchanged) sink.warnings.push(`${cause.field}: ${cause.message}`);
  else sink.out.push(cause);
}

/** messageExpression when it yields a usable string, else the rule's message, else "failed rule: <rule>". */
function messageOf(rule: ValidationRule, bindings: Record<string, unknown>): string {
  if (rule.messageExpression?.trim()) {
    try {
      const outcome = compileCel(rule.messageExpression, RULE_VARIABLES).evaluate(bindings as never);
      const text = 'value' in outcome && typeof outcome.value === 'string' ? outcome.value.trim() : '';
      if (text && !/[\n\r]/.test(text)) return text;
    } catch {
      // A messageExpression that does not compile falls back like one that fails.
    }
  }
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

function causeForReason(reason: ValidationRule['reason'], field: string, typeName: string, detail: string): StatusCause {
  switch (reason) {
    case 'FieldValueForbidden':
      return { reason, field, message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { reason, field, message: `Required value: ${detail}` };
    case 'FieldValueDuplicate':
      return { reason, field, message: `Duplicate value: ${JSON.stringify(typeName)}` };
    default:
      return invalid(field, typeName, detail);
  }
}

/** field.Invalid with the node's schema type as the value, as the CEL validator reports it. */
function invalid(field: string, typeName: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field: field || ROOT, message: `Invalid value: ${JSON.stringify(typeName)}: ${detail}` };
}

/** How a nil field.Path prints: the field of a rule on the resource root. */
const ROOT = '<nil>';

/** `.spec.x['a.b']` -> `spec.x[a.b]`: a rule's fieldPath as a field.Path prints it. */
function normalizeFieldPath(fieldPath: string): string {
  return fieldPath.replace(/^\./, '').replace(/\['((?:[^'\\]|\\.)*)'\]/g, (_m, key: string) => `[${key.replace(/\\(.)/g, '$1')}]`);
}

/** The resource root as rules see it: apiVersion, kind, and of metadata only name and generateName. */
function resourceRoot(object: KubeObject): KubeObject {
  const { name, generateName } = object.metadata;
  return { ...object, metadata: { ...(name !== undefined ? { name } : {}), ...(generateName !== undefined ? { generateName } : {}) } };
}

function rulesOf(schema: JSONSchemaProps): ValidationRule[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter((r): r is ValidationRule => isPlainObject(r) && typeof r.rule === 'string') : [];
}

const withRules = new WeakMap<JSONSchemaProps, boolean>();

function hasRules(schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  let found = withRules.get(schema);
  if (found === undefined) {
    found = rulesOf(schema).length > 0 || Object.values(schema.properties ?? {}).some(hasRules) || hasRules(schema.items) || hasRules(additionalSchema(schema));
    withRules.set(schema, found);
  }
  return found;
}

/** Go's %#v of an apiextensions.ValidationRule, the value CRD validation shows for a bad rule. */
function goRule(rule: ValidationRule): string {
  const reason = rule.reason ? `(*apiextensions.FieldValueErrorReason)(${JSON.stringify(rule.reason)})` : '(*apiextensions.FieldValueErrorReason)(nil)';
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${rule.optionalOldSelf})`;
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(rule.rule)}, Message:${JSON.stringify(rule.message ?? '')}, MessageExpression:${JSON.stringify(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${JSON.stringify(rule.fieldPath ?? '')}, OptionalOldSelf:${optional}}`;
}
