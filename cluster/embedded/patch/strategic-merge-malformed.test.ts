import { expect, test } from '@playwright/test';
import { ApiError } from '../errors.ts';
import { coreMergeKeys } from './merge-keys.ts';
import { strategicMergePatch } from './strategic-merge.ts';
import { deployment, web } from './test-kit.ts';

test.describe('strategicMergePatch rejects malformed patches with 400 BadRequest', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a list as the whole patch', [{ op: 'add' }], /must be a JSON object, got array/],
    ['a string as the whole patch', 'spec', /must be a JSON object, got string/],
    ['null as the whole patch', null, /must be a JSON object, got null/],
    ['an unknown $patch in a map', { spec: { strategy: { $patch: 'remove' } } }, /spec\.strategy: unknown "\$patch" value "remove"/],
    ['a non-string $patch', { metadata: { $patch: 1 } }, /unknown "\$patch" value 1/],
    [
      'an unknown $patch in a list element',
      { spec: { template: { spec: { containers: [{ name: 'web', $patch: 'drop' }] } } } },
      /spec\.template\.spec\.containers: unknown "\$patch" value "drop"/,
    ],
    [
      '$patch: delete without the merge key',
      { spec: { template: { spec: { containers: [{ $patch: 'delete', image: 'nginx' }] } } } },
      /lacks merge key "name"/,
    ],
    ['$patch: delete in an atomic list', { spec: { tolerations: [{ $patch: 'delete', key: 'a' }] } }, /needs a list that merges by key/],
    [
      'a keyed list element without its merge key',
      { spec: { template: { spec: { containers: [{ image: 'nginx' }] } } } },
      /does not contain merge key "name"/,
    ],
    ['a keyed list mixing objects and values', { spec: { template: { spec: { containers: [{ name: 'a' }, 'b'] } } } }, /mixes objects/],
    ['$setElementOrder that is not a list', { spec: { '$setElementOrder/containers': { name: 'web' } } }, /\$setElementOrder\/containers must be a list/],
    ['$retainKeys that is not a list', { spec: { strategy: { $retainKeys: 'type' } } }, /\$retainKeys must be a list/],
    ['$retainKeys with non-names', { spec: { strategy: { $retainKeys: [1] } } }, /\$retainKeys must list field names/],
    [
      '$deleteFromPrimitiveList that is not a list',
      { metadata: { '$deleteFromPrimitiveList/finalizers': 'example.com/a' } },
      /\$deleteFromPrimitiveList\/finalizers must be a list/,
    ],
  ];
  for (const [name, patch, message] of cases) {
    test(name, () => {
      let thrown: unknown;
      try {
        strategicMergePatch(deployment([web]), patch, coreMergeKeys);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const error = thrown as ApiError;
      expect(error.code).toBe(400);
      expect(error.toStatus()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(error.message).toMatch(message);
    });
  }
});
