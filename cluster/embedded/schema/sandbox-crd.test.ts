/**
 * The schema machinery against the real upstream Agent Sandbox CRDs (agent-sandbox v0.4.6, which
 * serves v1alpha1 only, and v0.5.0, which adds v1beta1), run in the order the server runs it:
 * prune on decode, then defaults, then validation.
 */

import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { upstreamManifests } from '../../manifests/test-kit.ts';
import type { StatusCause } from '../errors.ts';
import { applyDefaults } from './defaults.ts';
import { prune } from './prune.ts';
import { validateAgainstSchema, type JSONSchemaProps } from './structural-schema.ts';

interface Crd {
  kind?: string;
  metadata?: { name?: string };
  spec?: { versions: Array<{ name: string; schema: { openAPIV3Schema: JSONSchemaProps } }> };
}

const upstream = upstreamManifests('v0.4.6', 'v0.5.0');
test.skip(!!upstream.missing, upstream.missing);

function sandboxSchema(release: 'v0.4.6' | 'v0.5.0', version: 'v1alpha1' | 'v1beta1'): JSONSchemaProps {
  for (const doc of parseAllDocuments(readFileSync(upstream.paths[release], 'utf8'))) {
    const crd = doc.toJS() as Crd | null;
    if (crd?.kind !== 'CustomResourceDefinition' || crd.metadata?.name !== 'sandboxes.agents.x-k8s.io') continue;
    const served = crd.spec!.versions.find((v) => v.name === version);
    if (served) return served.schema.openAPIV3Schema;
  }
  throw new Error(`no ${version} sandboxes.agents.x-k8s.io in ${release}`);
}

// Read only when the files are here (a skipped file still has its tests declared).
const v1alpha1 = upstream.missing ? {} : sandboxSchema('v0.4.6', 'v1alpha1');
const v1alpha1Deprecated = upstream.missing ? {} : sandboxSchema('v0.5.0', 'v1alpha1');
const v1beta1 = upstream.missing ? {} : sandboxSchema('v0.5.0', 'v1beta1');

function sandbox(apiVersion: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion, kind: 'Sandbox', metadata: { name: 'my-sandbox', namespace: 'default' }, spec };
}

const podTemplate = () => ({
  metadata: { labels: { app: 'agent' } },
  spec: { containers: [{ name: 'agent', image: 'busybox', command: ['sleep', '3600'], ports: [{ containerPort: 8080 }] }] },
});

/** What a create does to the body: prune, default, validate. */
function admit(obj: Record<string, unknown>, schema: JSONSchemaProps): { unknown: string[]; errors: string[] } {
  const unknown = prune(obj, schema, { isRoot: true });
  applyDefaults(obj, schema);
  const errors = validateAgainstSchema(obj, schema).map((c: StatusCause) => `${c.field}: ${c.message}`);
  return { unknown, errors };
}

test.describe('v1alpha1', () => {
  for (const [release, schema] of [
    ['v0.4.6', v1alpha1],
    ['v0.5.0 (deprecated)', v1alpha1Deprecated],
  ] as const) {
    test(`a valid Sandbox passes and is defaulted (${release})`, () => {
      const obj = sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), shutdownTime: '2026-09-01T00:00:00Z' });
      expect(admit(obj, schema)).toEqual({ unknown: [], errors: [] });
      expect(obj.spec).toMatchObject({ replicas: 1, shutdownPolicy: 'Retain' });
      expect(obj.spec).not.toHaveProperty('operatingMode');
    });

    test(`replicas is 0 or 1 (${release})`, () => {
      expect(admit(sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), replicas: 0 }), schema).errors).toEqual([]);
      expect(admit(sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), replicas: 2 }), schema).errors).toEqual([
        'spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1',
      ]);
      expect(admit(sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), replicas: -1 }), schema).errors).toEqual([
        'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      ]);
    });
  }

  test('replicas must be an integer', () => {
    expect(admit(sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), replicas: 'string' }), v1alpha1).errors).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  test('a null replicas is defaulted like an absent one', () => {
    const obj = sandbox('agents.x-k8s.io/v1alpha1', { podTemplate: podTemplate(), replicas: null });
    expect(admit(obj, v1alpha1).errors).toEqual([]);
    expect(obj.spec).toMatchObject({ replicas: 1 });
  });
});

test.describe('v1beta1', () => {
  test('a valid Sandbox passes and is defaulted', () => {
    const obj = sandbox('agents.x-k8s.io/v1beta1', { podTemplate: podTemplate() });
    expect(admit(obj, v1beta1)).toEqual({ unknown: [], errors: [] });
    expect(obj.spec).toMatchObject({ operatingMode: 'Running', shutdownPolicy: 'Retain' });
    expect(obj.spec).not.toHaveProperty('replicas');
  });

  test('operatingMode is Running or Suspended', () => {
    expect(admit(sandbox('agents.x-k8s.io/v1beta1', { podTemplate: podTemplate(), operatingMode: 'Suspended' }), v1beta1).errors).toEqual([]);
    expect(admit(sandbox('agents.x-k8s.io/v1beta1', { podTemplate: podTemplate(), operatingMode: 'Paused' }), v1beta1).errors).toEqual([
      'spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"',
    ]);
  });

  test('replicas is not a v1beta1 field: pruned and reported, not validated', () => {
    const obj = sandbox('agents.x-k8s.io/v1beta1', { podTemplate: podTemplate(), replicas: 5 });
    expect(admit(obj, v1beta1)).toEqual({ unknown: ['spec.replicas'], errors: [] });
  });
});

test.describe('both versions', () => {
  for (const [apiVersion, schema] of [
    ['agents.x-k8s.io/v1alpha1', v1alpha1],
    ['agents.x-k8s.io/v1beta1', v1beta1],
  ] as const) {
    test(`spec and podTemplate are required (${apiVersion})`, () => {
      expect(admit(sandbox(apiVersion, {}), schema).errors).toEqual(['spec.podTemplate: Required value']);
      expect(admit(sandbox(apiVersion, { podTemplate: { spec: {} } }), schema).errors).toEqual([
        'spec.podTemplate.spec.containers: Required value',
      ]);
      const noSpec = { apiVersion, kind: 'Sandbox', metadata: { name: 'x' } };
      expect(admit(noSpec, schema).errors).toEqual(['spec: Required value']);
    });

    test(`shutdownPolicy is an enum and shutdownTime a date-time (${apiVersion})`, () => {
      const obj = sandbox(apiVersion, { podTemplate: podTemplate(), shutdownPolicy: 'Keep', shutdownTime: 'yesterday' });
      expect(admit(obj, schema).errors.sort()).toEqual([
        'spec.shutdownPolicy: Unsupported value: "Keep": supported values: "Delete", "Retain"',
        'spec.shutdownTime: Invalid value: "yesterday": spec.shutdownTime in body must be of type date-time: "yesterday"',
      ]);
    });

    test(`unknown fields are pruned and reported; root metadata is kept (${apiVersion})`, () => {
      const template = podTemplate();
      const obj = sandbox(apiVersion, {
        podTemplate: {
          // podTemplate.metadata declares only labels and annotations.
          metadata: { name: 'ignored', labels: { app: 'agent' } },
          spec: { containers: [{ ...template.spec.containers[0], imagePullPolicyy: 'Always' }] },
        },
        foo: 'bar',
      });
      (obj.metadata as Record<string, unknown>).labels = { team: 'a' };
      const { unknown, errors } = admit(obj, schema);
      expect(unknown).toEqual(['spec.podTemplate.metadata.name', 'spec.podTemplate.spec.containers[0].imagePullPolicyy', 'spec.foo']);
      expect(errors).toEqual([]);
      expect(obj.metadata).toEqual({ name: 'my-sandbox', namespace: 'default', labels: { team: 'a' } });
      expect(obj.spec).not.toHaveProperty('foo');
    });

    test(`containers are a list-map keyed by name (${apiVersion})`, () => {
      const containers = [
        { name: 'agent', image: 'a' },
        { name: 'agent', image: 'b' },
      ];
      expect(admit(sandbox(apiVersion, { podTemplate: { spec: { containers } } }), schema).errors).toEqual([
        'spec.podTemplate.spec.containers[1]: Duplicate value: map[string]interface {}{"name":"agent"}',
      ]);
    });

    test(`PodSpec defaults inside list items apply, and int-or-string ports accept names (${apiVersion})`, () => {
      const obj = sandbox(apiVersion, {
        podTemplate: {
          spec: {
            containers: [
              {
                name: 'agent',
                image: 'busybox',
                ports: [{ containerPort: 8080 }],
                readinessProbe: { httpGet: { port: 'http', path: '/' } },
                livenessProbe: { tcpSocket: { port: true } },
              },
            ],
          },
        },
      });
      expect(admit(obj, schema).errors).toEqual([
        'spec.podTemplate.spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: "boolean": spec.podTemplate.spec.containers[0].livenessProbe.tcpSocket.port in body must be of type integer,string: "boolean"',
      ]);
      const spec = obj.spec as { podTemplate: { spec: { containers: Array<{ ports: unknown[] }> } } };
      expect(spec.podTemplate.spec.containers[0].ports).toEqual([{ containerPort: 8080, protocol: 'TCP' }]);
    });
  }

  test('the real schemas mark nothing preserve-unknown-fields or embedded, so nothing escapes pruning', () => {
    const flagged: string[] = [];
    const walk = (s: JSONSchemaProps, path: string): void => {
      if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) flagged.push(path);
      for (const [k, child] of Object.entries(s.properties ?? {})) walk(child, `${path}.${k}`);
      if (s.items) walk(s.items, `${path}[]`);
      if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{}`);
    };
    for (const schema of [v1alpha1, v1alpha1Deprecated, v1beta1]) walk(schema, '');
    expect(flagged).toEqual([]);
  });
});
