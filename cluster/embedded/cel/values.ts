import type { CelInput } from '@bufbuild/cel';
import { additionalSchema, type JSONSchemaProps } from '../schema/structural-schema.ts';
import { isPlainObject } from '../types.ts';

/**
 * JSON objects as CEL values. JSON has one number type; Kubernetes decodes whole numbers as
 * int64 and the rest as float64, so CEL sees `int` and `double` (`object.spec.replicas + 1` is
 * int arithmetic). JavaScript objects and arrays are CEL maps and lists as they are.
 */
export function jsonToCel(value: unknown): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(jsonToCel);
  if (isPlainObject(value)) {
    const result: Record<string, CelInput> = {};
    for (const [key, member] of Object.entries(value)) result[key] = jsonToCel(member);
    return result;
  }
  return value as CelInput;
}

/**
 * The same, typed by a structural schema as the CRD validator types `self`: `type: number` is
 * double even when whole, `type: integer` is int; members without a schema of their own
 * (preserved unknown fields, int-or-string) are decoded as in jsonToCel.
 */
export function jsonToCelBySchema(value: unknown, schema: JSONSchemaProps | undefined): CelInput {
  if (!schema) return jsonToCel(value);
  if (typeof value === 'number') {
    if (schema.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => jsonToCelBySchema(item, schema.items));
  if (isPlainObject(value)) {
    const extra = additionalSchema(schema);
    const result: Record<string, CelInput> = {};
    for (const [key, member] of Object.entries(value)) result[key] = jsonToCelBySchema(member, schema.properties?.[key] ?? extra);
    return result;
  }
  return value as CelInput;
}
