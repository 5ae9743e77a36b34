import { expect, test } from '@playwright/test';
import { coreMergeKeys, MERGE_AS_SET } from './merge-keys.ts';

test.describe('coreMergeKeys', () => {
  const cases: Array<[string[], string | undefined]> = [
    [['spec', 'containers'], 'name'],
    [['spec', 'template', 'spec', 'initContainers'], 'name'],
    [['spec', 'ephemeralContainers'], 'name'],
    [['spec', 'volumes'], 'name'],
    [['spec', 'containers', 'volumeMounts'], 'mountPath'],
    [['spec', 'containers', 'volumeDevices'], 'devicePath'],
    [['spec', 'template', 'spec', 'containers', 'env'], 'name'],
    [['spec', 'containers', 'ports'], 'containerPort'],
    [['spec', 'template', 'spec', 'initContainers', 'ports'], 'containerPort'],
    [['spec', 'ports'], 'port'],
    [['spec', 'ingress', 'ports'], undefined],
    [['status', 'conditions'], 'type'],
    [['spec', 'imagePullSecrets'], 'name'],
    [['metadata', 'ownerReferences'], 'uid'],
    [['spec', 'template', 'metadata', 'ownerReferences'], 'uid'],
    [['spec', 'schedulingGates'], 'name'],
    [['spec', 'tolerations'], undefined],
    [['spec', 'hostAliases'], 'ip'],
    [['spec', 'topologySpreadConstraints'], 'topologyKey'],
    [['metadata', 'finalizers'], MERGE_AS_SET],
    [['spec', 'finalizers'], undefined],
    [['spec', 'containers', 'args'], undefined],
    [[], undefined],
  ];
  for (const [path, key] of cases) {
    test(`${path.join('.') || '<root>'} -> ${key}`, () => expect(coreMergeKeys(path)).toBe(key));
  }
});
