import { isDeepStrictEqual } from 'node:util';
import { causes, type StatusCause } from '../../errors.ts';
import { isPlainObject, type KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

const DATA_FIELDS = ['data', 'binaryData', 'stringData'] as const;

/** `immutable: true` Secrets and ConfigMaps keep their data and their immutability for life. */
function validateImmutable(object: KubeObject, old: KubeObject): StatusCause[] {
  if (old.immutable !== true) return [];
  const result: StatusCause[] = [];
  if (object.immutable !== true) result.push(causes.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const field of DATA_FIELDS) {
    if (!isDeepStrictEqual(object[field], old[field])) result.push(causes.forbidden(field, 'field is immutable when `immutable` is set'));
  }
  return result;
}

export const configMapStrategy: ResourceStrategy = {
  validateUpdate: validateImmutable,
  table: {
    columns: [{ name: 'Data', type: 'integer', jsonPath: '', description: 'Number of entries' }],
    cells: (cm) => [Object.keys(isPlainObject(cm.data) ? cm.data : {}).length + Object.keys(isPlainObject(cm.binaryData) ? cm.binaryData : {}).length],
  },
};

export const secretStrategy: ResourceStrategy = {
  /** stringData is write-only: the server folds it into base64 `data`, as kube-apiserver does. */
  normalize(secret) {
    secret.type ??= 'Opaque';
    if (isPlainObject(secret.stringData)) {
      const data = { ...(isPlainObject(secret.data) ? secret.data : {}) };
      for (const [key, value] of Object.entries(secret.stringData)) data[key] = Buffer.from(String(value)).toString('base64');
      secret.data = data;
      delete secret.stringData;
    }
  },
  validateUpdate: validateImmutable,
  table: {
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.type', description: 'The type of the secret' },
      { name: 'Data', type: 'integer', jsonPath: '', description: 'Number of entries' },
    ],
    cells: (s) => [s.type ?? 'Opaque', Object.keys(isPlainObject(s.data) ? s.data : {}).length],
  },
};
