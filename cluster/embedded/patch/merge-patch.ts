/**
 * JSON merge patch (RFC 7386), the `application/merge-patch+json` PATCH body: objects merge
 * recursively, `null` removes a member, and anything that is not an object replaces the
 * target wholesale (lists included, which is why Kubernetes also has strategic merge patch).
 */

import { clone, isPlainObject } from '../types.ts';

/** Returns a new value; neither input is mutated, and nothing in the result aliases them. */
export function jsonMergePatch(original: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const target = isPlainObject(original) ? original : {};
  const result: Record<string, unknown> = {};
  // Walk the target first so untouched and patched members keep their original order.
  for (const key of Object.keys(target)) {
    if (!Object.hasOwn(patch, key)) setOwn(result, key, clone(target[key]));
    else if (patch[key] !== null) setOwn(result, key, jsonMergePatch(target[key], patch[key]));
  }
  for (const key of Object.keys(patch)) {
    // A new member is merged against nothing, which drops the nulls nested inside it (RFC 7386 §2).
    if (!Object.hasOwn(target, key) && patch[key] !== null) setOwn(result, key, jsonMergePatch(undefined, patch[key]));
  }
  return result;
}

/** Plain assignment would treat a JSON member named `__proto__` as the prototype instead of data. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
