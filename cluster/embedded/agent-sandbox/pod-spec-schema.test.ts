/**
 * The structural podTemplate.spec and claim-template spec of our Sandbox CRDs: what a real API
 * server does with them at write time (prune unknown fields, default, reject wrong types with
 * 422), and, with the real release manifests at hand (AGENT_SANDBOX_MANIFESTS), that every node
 * we model has the real schema's shape: type, properties, required, list and map markers,
 * defaults and formats; where we keep an object whole, the real node is an object too.
 */
import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import { sandboxCrd } from './sandbox-crds.ts';
import { waitForCrdEstablished } from './install.ts';
import { AGENT_SANDBOX_VERSIONS } from './profiles.ts';
import { sandboxCrdOf, upstreamManifests } from '../../manifests/test-kit.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; additionalProperties?: Schema };

test('written through the API: unknown fields pruned, ports defaulted, wrong types refused with 422', async () => {
  const cluster = await EmbeddedCluster.start();
  try {
    const { api } = cluster;
    api.create(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), sandboxCrd('v0.5.4'));
    await waitForCrdEstablished(api, 'sandboxes.agents.x-k8s.io');
    const target = api.target('agents.x-k8s.io/v1beta1', 'sandboxes', 'default');
    const spec = (podSpec: Record<string, unknown>, claim: Record<string, unknown> = { accessModes: ['ReadWriteOnce'] }) => ({
      podTemplate: { spec: podSpec },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: claim }],
    });
    const created = api.create(target, {
      metadata: { name: 'pruned' },
      spec: spec(
        { containers: [{ name: 'c', image: 'busybox', madeUp: 1, ports: [{ containerPort: 80 }] }], notAPodField: true, affinity: { anything: 'kept' } },
        { accessModes: ['ReadWriteOnce'], bogus: 'x', resources: { requests: { storage: '1Gi' } } },
      ),
    }).object.spec as { podTemplate: { spec: unknown }; volumeClaimTemplates: { spec: unknown }[] };
    expect(created.podTemplate.spec).toEqual({
      containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
      // Kept whole: not modelled field by field (a real server would prune inside it too).
      affinity: { anything: 'kept' },
    });
    expect(created.volumeClaimTemplates[0].spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });

    const refused = (podSpec: Record<string, unknown>, claim?: Record<string, unknown>) => {
      try {
        api.create(target, { metadata: { name: 'refused' }, spec: spec(podSpec, claim) });
      } catch (error) {
        return [(error as ApiError).code, (error as ApiError).message];
      }
      return [201, 'created'];
    };
    const c = { name: 'c', image: 'busybox' };
    expect(refused({ containers: [c], terminationGracePeriodSeconds: '30' })).toEqual([
      422,
      expect.stringContaining('spec.podTemplate.spec.terminationGracePeriodSeconds: Invalid value: "string": spec.podTemplate.spec.terminationGracePeriodSeconds in body must be of type integer: "string"'),
    ]);
    expect(refused({ containers: [{ ...c, env: [{ name: 'A', value: 1 }] }] })[0]).toBe(422);
    expect(refused({ containers: [{ ...c, ports: [{ name: 'p' }] }] })[1]).toContain('spec.podTemplate.spec.containers[0].ports[0].containerPort: Required value');
    expect(refused({ containers: [{ ...c, env: [{ name: 'A' }, { name: 'A' }] }] })[1]).toContain('spec.podTemplate.spec.containers[0].env[1]: Duplicate value');
    expect(refused({ containers: [c] }, { resources: { requests: { storage: 'lots' } } })[0]).toBe(422);
    expect(refused({ containers: [{ ...c, readinessProbe: { httpGet: { port: 'http' } } }] })).toEqual([201, 'created']);
  } finally {
    await cluster.stop();
  }
});

/** Every modelled node must have the real node's shape; a kept-whole node only its type. */
function compare(ours: Schema, real: Schema | undefined, path: string, out: string[]): void {
  if (!real) {
    out.push(`${path}: not in the real schema`);
    return;
  }
  const kept = ours['x-kubernetes-preserve-unknown-fields'] === true;
  const keys = kept ? ['type'] : ['type', 'x-kubernetes-int-or-string', 'format', 'default', 'required', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'];
  for (const key of keys) {
    const a = JSON.stringify(ours[key]);
    const b = JSON.stringify(real[key]);
    if (a !== b) out.push(`${path}: ${key} is ${a ?? 'unset'} here, ${b ?? 'unset'} upstream`);
  }
  if (kept) return;
  const ourProps = Object.keys(ours.properties ?? {}).sort();
  const realProps = Object.keys(real.properties ?? {}).sort();
  if (JSON.stringify(ourProps) !== JSON.stringify(realProps)) {
    out.push(`${path}: properties differ: only here [${ourProps.filter((p) => !realProps.includes(p))}], only upstream [${realProps.filter((p) => !ourProps.includes(p))}]`);
  }
  for (const [name, child] of Object.entries(ours.properties ?? {})) compare(child, real.properties?.[name], `${path}.${name}`, out);
  if (ours.items) compare(ours.items, real.items, `${path}[]`, out);
  if (ours.additionalProperties) compare(ours.additionalProperties, real.additionalProperties, `${path}{}`, out);
}

function versionSchema(crd: Record<string, unknown>, name: string): Schema {
  const versions = (crd.spec as { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] }).versions;
  return versions.find((v) => v.name === name)!.schema.openAPIV3Schema;
}

for (const release of AGENT_SANDBOX_VERSIONS) {
  test(`${release}: podTemplate.spec and the claim-template spec have the real CRD's shape`, () => {
    const upstream = upstreamManifests(release);
    test.skip(!!upstream.missing, upstream.missing);
    const real = sandboxCrdOf(upstream.paths[release]) as Record<string, unknown>;
    const ours = sandboxCrd(release) as Record<string, unknown>;
    for (const version of release === 'v0.4.6' ? ['v1alpha1'] : ['v1beta1', 'v1alpha1']) {
      const differences: string[] = [];
      const spec = (s: Schema) => s.properties!.spec.properties!;
      const a = spec(versionSchema(ours, version));
      const b = spec(versionSchema(real, version));
      compare(a.podTemplate.properties!.spec, b.podTemplate.properties?.spec, 'spec.podTemplate.spec', differences);
      compare(a.volumeClaimTemplates.items!, b.volumeClaimTemplates.items, 'spec.volumeClaimTemplates[]', differences);
      expect(differences, `${release} ${version}`).toEqual([]);
    }
  });
}
