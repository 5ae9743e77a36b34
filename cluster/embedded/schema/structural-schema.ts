/**
 * Validation of custom resources against a CRD's structural OpenAPI v3 schema, worded the way
 * kube-apiserver's apiextensions reports it: the kube-openapi schema validator produces
 * "<path> in body ..." details, which the server then wraps in field errors (`Required value`,
 * `Unsupported value`, `Too long`, ...). Field paths are dotted from the object root, with
 * `[i]` for list items: `spec.podTemplate.spec.containers[0].name`.
 *
 * Deliberately not covered:
 * - `x-kubernetes-validations` (CEL rules): validation-rules.ts evaluates them after this.
 * - `anyOf`/`allOf`/`oneOf`/`not`: structural schemas only use them for extra value checks;
 *   the one shape real CRDs carry (`anyOf: [integer, string]` beside `x-kubernetes-int-or-string`)
 *   is already enforced by the int-or-string type check.
 * - ObjectMeta and embedded-resource (`apiVersion`/`kind`) validation, which the server runs
 *   separately from the schema.
 * Unknown fields are never a validation error: the server prunes them before validating
 * (see prune.ts), and `fieldValidation=Strict` reports them from the prune, not from here.
 */

import { causes, jsonType, type StatusCause } from '../errors.ts';
import { isPlainObject } from '../types.ts';

export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps | boolean;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  [k: string]: unknown;
}

/** Path of an object member, as the server prints it. */
export function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Path of a list item. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** The `additionalProperties` schema, when it is one (a boolean carries no schema). */
export function additionalSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const extra = schema?.additionalProperties;
  return typeof extra === 'object' && extra !== null ? extra : undefined;
}

export function validateAgainstSchema(obj: unknown, schema: JSONSchemaProps): StatusCause[] {
  const found: StatusCause[] = [];
  const listErrors: StatusCause[] = [];
  validateValue(obj, schema, '', found, listErrors);
  // The server runs the list-type uniqueness checks after the schema validator, so they come last.
  return [...found, ...listErrors];
}

/**
 * One schema node. As in the real validator, each check applies by the kind of the value, not
 * the declared type: a wrong type is reported and then only the checks that fit the value run.
 */
function validateValue(value: unknown, schema: JSONSchemaProps, path: string, out: StatusCause[], listOut: StatusCause[]): void {
  checkType(value, schema, path, out);
  if (typeof value === 'string') checkString(value, schema, path, out);
  if (typeof value === 'number') checkNumber(value, schema, path, out);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items) value.forEach((item, i) => validateValue(item, items, indexPath(path, i), out, listOut));
    checkItemCount(value, schema, path, out);
    listOut.push(...checkListType(value, schema, path));
  }
  if (schema.enum && schema.enum.length > 0 && !schema.enum.some((allowed) => sameJson(allowed, value))) {
    // Non-string members are listed as their JSON text, which the server then quotes like strings.
    const allowed = schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    out.push(causes.unsupported(path, value, allowed));
  }
  if (isPlainObject(value)) checkObject(value, schema, path, out, listOut);
}

function checkType(value: unknown, schema: JSONSchemaProps, path: string, out: StatusCause[]): void {
  const types = schema['x-kubernetes-int-or-string'] ? ['integer', 'string'] : schema.type ? [schema.type] : [];
  if (types.length === 0) return;
  if (value === null) {
    if (!schema.nullable) out.push(typeInvalid(path, 'null', types.join(',')));
    return;
  }
  const actual = jsonType(value);
  // An integer is a number; a float is not an integer (1.0 is indistinguishable from 1 in JSON).
  const ok = types.includes(actual) || (actual === 'integer' && types.includes('number'));
  if (!ok) out.push(typeInvalid(path, actual, types.join(',')));
}

function checkString(value: string, schema: JSONSchemaProps, path: string, out: StatusCause[]): void {
  // The real string validator stops at its first failure, in this order.
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    out.push({ reason: 'FieldValueTooLong', field: path, message: `Too long: may not be more than ${schema.maxLength} bytes` });
  } else if (schema.minLength !== undefined && length < schema.minLength) {
    out.push(causes.invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
  } else if (schema.pattern !== undefined && compilePattern(schema.pattern)?.test(value) === false) {
    out.push(causes.invalid(path, value, `${path} in body should match '${schema.pattern}'`));
  }
  const format = schema.format ? FORMATS.get(schema.format) : undefined;
  if (format && !format(value)) {
    // Format failures are type errors that show the offending string itself.
    out.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: ${JSON.stringify(value)}: ${path} in body must be of type ${schema.format}: ${JSON.stringify(value)}`,
    });
  }
}

function checkNumber(value: number, schema: JSONSchemaProps, path: string, out: StatusCause[]): void {
  // An integer value is compared natively as int64, against the bound truncated to an integer.
  const asInt = Number.isInteger(value);
  const bound = (limit: number) => (asInt ? Math.trunc(limit) : limit);
  if (schema.minimum !== undefined) {
    const min = bound(schema.minimum);
    if (schema.exclusiveMinimum ? value <= min : value < min) {
      const relation = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      out.push(causes.invalid(path, value, `${path} in body should be ${relation} ${goNumber(min, asInt)}`));
    }
  }
  if (schema.maximum !== undefined) {
    const max = bound(schema.maximum);
    if (schema.exclusiveMaximum ? value >= max : value > max) {
      const relation = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
      out.push(causes.invalid(path, value, `${path} in body should be ${relation} ${goNumber(max, asInt)}`));
    }
  }
}

function checkItemCount(value: unknown[], schema: JSONSchemaProps, path: string, out: StatusCause[]): void {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    out.push(causes.invalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    out.push({
      reason: 'FieldValueTooMany',
      field: path,
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  }
}

function checkObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  out: StatusCause[],
  listOut: StatusCause[],
): void {
  const extra = additionalSchema(schema);
  for (const [key, member] of Object.entries(value)) {
    const memberSchema = schema.properties?.[key] ?? extra;
    // Undeclared members have no schema to check against (prune removes them unless preserved).
    if (memberSchema) validateValue(member, memberSchema, childPath(path, key), out, listOut);
  }
  // Present-but-null still counts as present; only a missing key is "Required value".
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key)) out.push(causes.required(childPath(path, key)));
  }
}

/** `x-kubernetes-list-type: set` items and `map` keys must be unique; reports each repeat once. */
function checkListType(list: unknown[], schema: JSONSchemaProps, path: string): StatusCause[] {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') return duplicates(list).map((i) => duplicate(indexPath(path, i), goValue(list[i])));
  if (listType !== 'map') return [];
  const bad = list.findIndex((item) => item !== null && !isPlainObject(item));
  if (bad >= 0) return [causes.invalid(indexPath(path, bad), list[bad], 'must be an object for an array of list-type map')];
  const keyFields = schema['x-kubernetes-list-map-keys'] ?? [];
  // A missing key field (or a null item) is "unspecified", which is itself a comparable key.
  const keys = list.map((item) => {
    const key: Record<string, unknown> = {};
    for (const field of keyFields) if (isPlainObject(item) && Object.hasOwn(item, field)) key[field] = item[field];
    return key;
  });
  return duplicates(keys).map((i) => duplicate(indexPath(path, i), goMapLiteral(keys[i])));
}

/** Index of the second occurrence of every value that occurs more than once. */
function duplicates(values: unknown[]): number[] {
  const seen = new Map<string, number>();
  const repeats: number[] = [];
  values.forEach((value, i) => {
    const text = canonicalJson(value);
    const count = seen.get(text) ?? 0;
    if (count === 1) repeats.push(i);
    seen.set(text, count + 1);
  });
  return repeats;
}

function duplicate(field: string, rendered: string): StatusCause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${rendered}` };
}

/**
 * A type mismatch names the value's JSON type, not the value (`Invalid value: "string": ...
 * must be of type integer: "string"`), because the validator reports the type it inferred.
 */
function typeInvalid(path: string, actual: string, expected: string): StatusCause {
  return {
    reason: 'FieldValueTypeInvalid',
    field: path,
    message: `Invalid value: ${JSON.stringify(actual)}: ${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
  };
}

/**
 * A bound as Go prints it: an int64 plainly; a float64 with `%v`, which switches to exponent
 * form outside 1e-4..1e6 (`1e+06`, `1.5e-05`).
 */
function goNumber(n: number, asInt: boolean): string {
  if (asInt) return String(n);
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (!Number.isFinite(n) || (exp >= -4 && exp < 6)) return String(n);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** How Go's `%#v` shows the scalars a list-type duplicate carries. */
function goValue(value: unknown): string {
  return value === null ? 'interface {}(nil)' : JSON.stringify(value);
}

/** `map[string]interface {}{"name":"a"}`: the server prints a list-map key with Go's `%#v`. */
function goMapLiteral(key: Record<string, unknown>): string {
  const members = Object.keys(key)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${goValue(key[k])}`);
  return `map[string]interface {}{${members.join(', ')}}`;
}

/** JSON with sorted keys, so equal values compare equal whatever their member order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const members = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

const patternCache = new Map<string, RegExp | null>();

/** Patterns are ECMA-262 in the schema; one that does not compile could not have been admitted. */
function compilePattern(pattern: string): RegExp | null {
  if (!patternCache.has(pattern)) {
    let compiled: RegExp | null = null;
    try {
      compiled = new RegExp(pattern);
    } catch {
      compiled = null;
    }
    patternCache.set(pattern, compiled);
  }
  return patternCache.get(pattern) ?? null;
}

/**
 * String formats the server checks. Others (int32, int64, double, ...) describe numbers or are
 * stripped from CRD schemas before validation, so they never fail.
 */
const FORMATS = new Map<string, (value: string) => boolean>([
  ['date', isDate],
  // RFC 3339 as the validator accepts it: a calendar date, `T` (any case), time, optional
  // fraction, and `Z` or a numeric offset.
  [
    'date-time',
    (value) => {
      const match = /^(\d{4}-\d{2}-\d{2})[tT](\d{2}):(\d{2}):(\d{2})(\.\d+)?([zZ]|[+-]\d{2}:\d{2})$/.exec(value);
      return !!match && isDate(match[1]) && Number(match[2]) <= 23 && Number(match[3]) <= 59 && Number(match[4]) <= 59;
    },
  ],
]);

function isDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
