/**
 * What each patch content type makes of the live object: JSON merge patch, JSON patch, strategic
 * merge patch (built-in kinds only, as on a real server) and the merge of a server-side apply.
 */
import jsonPatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import { ApiError, errors } from '../errors.ts';
import { coreMergeKeys } from '../patch/merge-keys.ts';
import { jsonMergePatch } from '../patch/merge-patch.ts';
import { strategicMergePatch } from '../patch/strategic-merge.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import type { ResourceType } from './resource-type.ts';

/** The object an update patch makes of `live`: not yet checked to be an object of the kind. */
export function patchedObject(type: ResourceType, live: KubeObject, patchType: 'merge' | 'json' | 'strategic', patchBody: unknown): unknown {
  switch (patchType) {
    case 'merge':
      if (!isPlainObject(patchBody)) throw errors.badRequest('merge patch body must be a JSON object');
      return jsonMergePatch(live, patchBody);
    case 'strategic':
      if (!type.builtin) {
        throw errors.unsupportedMediaType('application/strategic-merge-patch+json', [
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/apply-patch+yaml',
        ]);
      }
      if (!isPlainObject(patchBody)) throw errors.badRequest('strategic merge patch body must be a JSON object');
      return strategicMergePatch(live, patchBody, coreMergeKeys);
    case 'json':
      return applyJsonPatch(live, patchBody);
  }
}

/** A server-side apply's configuration merged onto the live object: strategically for built-in kinds. */
export function appliedOnto(type: ResourceType, live: KubeObject, applied: unknown): unknown {
  return type.builtin ? strategicMergePatch(live, applied, coreMergeKeys) : jsonMergePatch(live, applied);
}

/** An apply body sent as YAML (or JSON, which YAML reads too). */
export function parseApplyBody(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw errors.badRequest(`error decoding YAML: ${(error as Error).message}`);
  }
}

function applyJsonPatch(document: KubeObject, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw errors.badRequest('json patch body must be a JSON array of operations');
  try {
    return jsonPatch.applyPatch(document, operations as jsonPatch.Operation[], true, false).newDocument;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    // kube-apiserver's words exactly (NewGenericServerResponse); the failed operation is kept as a cause.
    throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message }] });
  }
}
