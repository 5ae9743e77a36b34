import { expect, test } from '@playwright/test';
import { deepFreeze } from '../types.ts';
import { coreMergeKeys } from './merge-keys.ts';
import { strategicMergePatch } from './strategic-merge.ts';
import { deployment, web } from './test-kit.ts';

/** Applies with the core merge keys, and checks on every call that no directive survived. */
function apply(original: unknown, patch: unknown): any {
  const result = strategicMergePatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(patch)), coreMergeKeys);
  expect(directivesIn(result)).toEqual([]);
  return result;
}

const sidecar = { name: 'proxy', image: 'envoy:1.30' };

test.describe('strategicMergePatch', () => {
  test("kubectl's client-side apply patch updates the image and keeps everything else", () => {
    const original = deployment([web]);
    const result = apply(original, {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ image: 'nginx:1.26', name: 'web' }] } } },
    });
    const expected = deployment([{ ...web, image: 'nginx:1.26' }]);
    expect(result).toEqual(expected);
  });

  test('$setElementOrder orders listed elements first, unlisted ones after in their own order', () => {
    const logger = { name: 'logger', image: 'fluent-bit:3' };
    const result = apply(deployment([sidecar, web, logger]), {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'metrics' }, { name: 'web' }],
            containers: [{ name: 'metrics', image: 'prom:2' }],
          },
        },
      },
    });
    expect(result.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['metrics', 'web', 'proxy', 'logger']);
  });

  test('$setElementOrder orders a primitive list and may come without the list itself', () => {
    const result = apply(
      { metadata: { finalizers: ['a/one', 'b/two', 'c/three'] } },
      { metadata: { '$setElementOrder/finalizers': ['c/three', 'a/one'] } },
    );
    expect(result.metadata.finalizers).toEqual(['c/three', 'a/one', 'b/two']);
  });

  test('env merges by name: updates, additions, untouched entries kept', () => {
    const result = apply(deployment([web]), {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'web', env: [{ name: 'LOG', value: 'debug' }, { name: 'REGION', value: 'eu' }] }],
          },
        },
      },
    });
    expect(result.spec.template.spec.containers[0].env).toEqual([
      { name: 'MODE', value: 'prod' },
      { name: 'LOG', value: 'debug' },
      { name: 'REGION', value: 'eu' },
    ]);
    expect(result.spec.template.spec.containers[0].image).toBe('nginx:1.25');
  });

  test('an env entry switches from value to valueFrom with a null', () => {
    const result = apply(deployment([web]), {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'web', env: [{ name: 'MODE', value: null, valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } } }] },
            ],
          },
        },
      },
    });
    expect(result.spec.template.spec.containers[0].env[0]).toEqual({
      name: 'MODE',
      valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } },
    });
  });

  test('$patch: delete removes a container by name', () => {
    const result = apply(deployment([web, sidecar]), {
      spec: { template: { spec: { containers: [{ $patch: 'delete', name: 'proxy' }] } } },
    });
    expect(result.spec.template.spec.containers).toEqual([web]);
  });

  test('$patch: delete of an element that is not there is a no-op', () => {
    const result = apply(deployment([web]), {
      spec: { template: { spec: { containers: [{ $patch: 'delete', name: 'ghost' }] } } },
    });
    expect(result.spec.template.spec.containers).toEqual([web]);
  });

  test('$patch: delete removes one scheduling gate from a Pod', () => {
    const pod = {
      metadata: { name: 'p' },
      spec: { schedulingGates: [{ name: 'example.com/quota' }, { name: 'example.com/image' }], containers: [web] },
    };
    const result = apply(pod, { spec: { schedulingGates: [{ $patch: 'delete', name: 'example.com/quota' }] } });
    expect(result.spec.schedulingGates).toEqual([{ name: 'example.com/image' }]);
    expect(result.spec.containers).toEqual([web]);
  });

  test('ownerReferences merge by uid', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'u-1', controller: true };
    const result = apply(
      { metadata: { name: 'web-abc-x', ownerReferences: [owner] } },
      {
        metadata: {
          ownerReferences: [
            { uid: 'u-1', blockOwnerDeletion: true },
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'anchor', uid: 'u-2' },
          ],
        },
      },
    );
    expect(result.metadata.ownerReferences).toEqual([
      { ...owner, blockOwnerDeletion: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'anchor', uid: 'u-2' },
    ]);
  });

  test('Service spec.ports merge by port', () => {
    const service = {
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
          { name: 'admin', port: 9000, targetPort: 9000, protocol: 'TCP' },
        ],
      },
    };
    const result = apply(service, {
      spec: { ports: [{ port: 80, targetPort: 8081 }, { name: 'https', port: 443, targetPort: 8443 }, { port: 9000, $patch: 'delete' }] },
    });
    expect(result.spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 8081, protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443 },
    ]);
  });

  test('container ports merge by containerPort', () => {
    const result = apply(deployment([web]), {
      spec: { template: { spec: { containers: [{ name: 'web', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 9090 }] }] } } },
    });
    expect(result.spec.template.spec.containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 9090 },
    ]);
  });

  test('status conditions merge by type', () => {
    const result = apply(
      { status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] } },
      { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Started' }] } },
    );
    expect(result.status.conditions).toEqual([
      { type: 'Ready', status: 'True', reason: 'Started' },
      { type: 'PodScheduled', status: 'True' },
    ]);
  });

  test('finalizers merge as a set, original order first', () => {
    const result = apply(
      { metadata: { name: 'x', finalizers: ['example.com/a', 'example.com/b'] } },
      { metadata: { finalizers: ['example.com/c', 'example.com/a', 'example.com/c'] } },
    );
    expect(result.metadata.finalizers).toEqual(['example.com/a', 'example.com/b', 'example.com/c']);
  });

  test('an empty finalizers list merges to no change; null clears it', () => {
    const original = { metadata: { finalizers: ['example.com/a'] } };
    expect(apply(original, { metadata: { finalizers: [] } }).metadata.finalizers).toEqual(['example.com/a']);
    expect(apply(original, { metadata: { finalizers: null } }).metadata).toEqual({});
  });

  test('$deleteFromPrimitiveList/finalizers removes values, and the same patch may add others', () => {
    const result = apply(
      { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b', 'example.com/zzz'], finalizers: ['example.com/d'] } },
    );
    expect(result.metadata.finalizers).toEqual(['example.com/a', 'example.com/c', 'example.com/d']);
  });

  test('null deletes fields, nested ones included', () => {
    const original = {
      metadata: { name: 'web', labels: { app: 'web', tier: 'fe' }, annotations: { a: '1' } },
      spec: { replicas: 2, paused: true },
    };
    const result = apply(original, { metadata: { labels: { tier: null }, annotations: null }, spec: { paused: null } });
    expect(result).toEqual({ metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 2 } });
  });

  test('null in a newly added element is dropped', () => {
    const result = apply(deployment([]), { spec: { template: { spec: { containers: [{ name: 'new', image: 'busybox', args: null }] } } } });
    expect(result.spec.template.spec.containers).toEqual([{ name: 'new', image: 'busybox' }]);
  });

  test('$retainKeys clears fields not listed: switching a Deployment to Recreate', () => {
    const result = apply(deployment([web]), { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    expect(result.spec.strategy).toEqual({ type: 'Recreate' });
    expect(result.spec.replicas).toBe(2);
  });

  test('$retainKeys inside a keyed list element: a volume changes its source', () => {
    const pod = { spec: { volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c1' } }] } };
    const result = apply(pod, {
      spec: {
        volumes: [{ $retainKeys: ['name', 'persistentVolumeClaim'], name: 'data', persistentVolumeClaim: { claimName: 'pvc' } }],
      },
    });
    expect(result.spec.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'pvc' } },
      { name: 'cfg', configMap: { name: 'c1' } },
    ]);
  });

  test('$patch: replace in a map replaces the whole map with the rest of the patch', () => {
    const result = apply(deployment([web]), {
      spec: { selector: { $patch: 'replace', matchExpressions: [{ key: 'app', operator: 'Exists' }] } },
    });
    expect(result.spec.selector).toEqual({ matchExpressions: [{ key: 'app', operator: 'Exists' }] });
  });

  test('$patch: replace as a list element makes the patch list replace the original', () => {
    const result = apply(deployment([web, sidecar]), {
      spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'solo', image: 'busybox' }] } } },
    });
    expect(result.spec.template.spec.containers).toEqual([{ name: 'solo', image: 'busybox' }]);
  });

  test('$patch: merge is the default and is stripped', () => {
    const result = apply(deployment([web]), {
      metadata: { labels: { $patch: 'merge', tier: 'fe' } },
      spec: { template: { spec: { containers: [{ $patch: 'merge', name: 'web', image: 'nginx:1.27' }] } } },
    });
    expect(result.metadata.labels).toEqual({ app: 'web', tier: 'fe' });
    expect(result.spec.template.spec.containers[0]).toEqual({ ...web, image: 'nginx:1.27' });
  });

  test('lists without a merge key are replaced atomically', () => {
    const pod = {
      spec: {
        tolerations: [{ key: 'a', operator: 'Exists' }],
        containers: [{ name: 'web', image: 'x', args: ['--one', '--two'] }],
      },
    };
    const result = apply(pod, {
      spec: { tolerations: [{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'web', args: ['--three'] }] },
    });
    expect(result.spec.tolerations).toEqual([{ key: 'b', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(result.spec.containers[0].args).toEqual(['--three']);
  });

  test('a value of a different type replaces the original', () => {
    const result = apply({ spec: { a: 'text', b: { x: 1 }, c: [1] } }, { spec: { a: { y: 2 }, b: [3], c: 'text' } });
    expect(result.spec).toEqual({ a: { y: 2 }, b: [3], c: 'text' });
  });

  test('other $-prefixed names are data, not directives', () => {
    const original = { spec: { schema: { $ref: '#/a' } } };
    const result = strategicMergePatch(original, { spec: { schema: { $schema: 'x' } } }, coreMergeKeys);
    expect(result).toEqual({ spec: { schema: { $ref: '#/a', $schema: 'x' } } });
  });

  test('$patch: delete on a map leaves it empty', () => {
    const result = apply(deployment([web]), { spec: { strategy: { $patch: 'delete' } } });
    expect(result.spec.strategy).toEqual({});
  });

  test('never mutates its inputs and never aliases the patch', () => {
    // apply() deep-freezes both inputs, so any in-place write would throw.
    const patch = { spec: { template: { spec: { containers: [{ name: 'new', image: 'busybox', env: [{ name: 'A', value: '1' }] }] } } } };
    const result = strategicMergePatch(deployment([web]), patch, coreMergeKeys) as any;
    expect(result.spec.template.spec.containers[1]).toEqual(patch.spec.template.spec.containers[0]);
    expect(result.spec.template.spec.containers[1]).not.toBe(patch.spec.template.spec.containers[0]);
    expect(result.spec.template.spec.containers[1].env).not.toBe(patch.spec.template.spec.containers[0].env);
    apply(deployment([web, sidecar]), {
      metadata: { labels: null },
      spec: { template: { spec: { containers: [{ $patch: 'delete', name: 'proxy' }, { name: 'web', env: [{ name: 'LOG', value: 'x' }] }] } } },
    });
  });

  test('a member named __proto__ is data, not a prototype', () => {
    const result = strategicMergePatch({ metadata: {} }, JSON.parse('{"metadata":{"__proto__":{"polluted":true}}}'), coreMergeKeys) as any;
    expect(Object.hasOwn(result.metadata, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Paths of every `$patch`, `$retainKeys`, `$setElementOrder/…` or `$deleteFromPrimitiveList/…` key. */
function directivesIn(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => directivesIn(v, `${at}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(/^\$(patch$|retainKeys$|setElementOrder\/|deleteFromPrimitiveList\/)/.test(k) ? [`${at}.${k}`] : []),
    ...directivesIn(v, `${at}.${k}`),
  ]);
}
