/**
 * Structural defaulting, as apiextensions applies it on create, update and every read from
 * storage: a property's `default` fills it in when the property is absent, or when it is null
 * and the schema does not allow null. Defaults only appear inside objects that exist (no
 * `spec.replicas` default without a `spec`), and a freshly set default is itself defaulted
 * further down, so nested defaults inside a default object also apply.
 */

import { clone, isPlainObject } from '../types.ts';
import { additionalSchema, type JSONSchemaProps } from './structural-schema.ts';

/** Mutates `obj` in place. */
export function applyDefaults(obj: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(obj)) {
    obj.forEach((item, i) => {
      if (needsDefault(item, schema.items)) obj[i] = clone(schema.items!.default);
      applyDefaults(obj[i], schema.items);
    });
    return;
  }
  if (!isPlainObject(obj)) return;
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const absent = !Object.hasOwn(obj, key) || obj[key] === undefined;
    if (hasDefault(prop) && (absent || needsDefault(obj[key], prop))) obj[key] = clone(prop.default);
  }
  const extra = additionalSchema(schema);
  for (const key of Object.keys(obj)) {
    const prop = schema.properties?.[key];
    if (prop) {
      applyDefaults(obj[key], prop);
    } else if (extra) {
      if (needsDefault(obj[key], extra)) obj[key] = clone(extra.default);
      applyDefaults(obj[key], extra);
    }
  }
}

/** The server treats `default: null` as no default at all. */
function hasDefault(schema: JSONSchemaProps | undefined): schema is JSONSchemaProps {
  return schema?.default !== undefined && schema.default !== null;
}

/** A present value is replaced only when it is a null the schema does not allow. */
function needsDefault(value: unknown, schema: JSONSchemaProps | undefined): boolean {
  return value === null && hasDefault(schema) && !schema.nullable;
}
