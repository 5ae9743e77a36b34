import { test, expect } from '@playwright/test';
import { refusal } from '../test-kit.ts';
import type { KubeObject } from '../types.ts';
import { commonFieldSelectors, fieldSelectorsByResource, parseFieldSelector } from './field-selectors.ts';

test.describe('parseFieldSelector', () => {
  const podFields = fieldSelectorsByResource.pods;
  const pod = (extra: Record<string, unknown>): KubeObject => ({
    metadata: { name: 'p1', namespace: 'ns1' },
    ...extra,
  });
  const running = pod({ spec: { nodeName: 'node-a', restartPolicy: 'Always' }, status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] } });
  const pending = pod({ spec: {}, status: { phase: 'Pending' } });

  test('every resource supports metadata.name and metadata.namespace', () => {
    expect(commonFieldSelectors).toEqual(['metadata.name', 'metadata.namespace']);
    expect(parseFieldSelector('metadata.name=p1', [])(running)).toBe(true);
    expect(parseFieldSelector('metadata.name==p2', [])(running)).toBe(false);
    expect(parseFieldSelector('metadata.namespace!=ns1', [])(running)).toBe(false);
    expect(parseFieldSelector('metadata.namespace!=ns2', [])(running)).toBe(true);
  });

  test('empty selector (and empty terms) match everything', () => {
    expect(parseFieldSelector('', podFields)(running)).toBe(true);
    expect(parseFieldSelector('metadata.name=p1,', podFields)(running)).toBe(true);
  });

  test('combinations are ANDed', () => {
    const sel = parseFieldSelector('metadata.name=p1,metadata.namespace!=kube-system,status.phase=Running', podFields);
    expect(sel(running)).toBe(true);
    expect(sel(pending)).toBe(false);
  });

  test('missing values compare as empty: spec.nodeName= selects unscheduled pods', () => {
    const unscheduled = parseFieldSelector('spec.nodeName=', podFields);
    expect(unscheduled(pending)).toBe(true);
    expect(unscheduled(running)).toBe(false);
    expect(parseFieldSelector('spec.nodeName!=', podFields)(running)).toBe(true);
    expect(parseFieldSelector('spec.host=node-a', podFields)(running)).toBe(true);
  });

  test('derived values: pod IP from podIPs, Go zero values for bools and ints', () => {
    expect(parseFieldSelector('status.podIP=10.0.0.1', podFields)(running)).toBe(true);
    expect(parseFieldSelector('spec.hostNetwork=false', podFields)(running)).toBe(true);
    const node: KubeObject = { metadata: { name: 'n1' }, spec: {} };
    expect(parseFieldSelector('spec.unschedulable=false', fieldSelectorsByResource.nodes)(node)).toBe(true);
    const rs: KubeObject = { metadata: { name: 'rs' }, status: {} };
    expect(parseFieldSelector('status.replicas=0', fieldSelectorsByResource.replicasets)(rs)).toBe(true);
  });

  test('event fields', () => {
    const event: KubeObject = {
      metadata: { name: 'e1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p1', namespace: 'default', uid: 'u-1' },
      reason: 'Scheduled',
      type: 'Normal',
      source: { component: 'default-scheduler' },
    };
    const sel = parseFieldSelector(
      'involvedObject.kind=Pod,involvedObject.name=p1,involvedObject.namespace=default,involvedObject.uid=u-1,reason=Scheduled,type=Normal,source=default-scheduler',
      fieldSelectorsByResource.events,
    );
    expect(sel(event)).toBe(true);
    expect(parseFieldSelector('type!=Normal', fieldSelectorsByResource.events)(event)).toBe(false);
  });

  test('secrets by type', () => {
    const secret: KubeObject = { metadata: { name: 's' }, type: 'kubernetes.io/tls' };
    expect(parseFieldSelector('type=kubernetes.io/tls', fieldSelectorsByResource.secrets)(secret)).toBe(true);
  });

  test('escaped values', () => {
    const odd = pod({ status: { phase: 'a,b=c\\d' } });
    expect(parseFieldSelector('status.phase=a\\,b\\=c\\\\d', podFields)(odd)).toBe(true);
    expect(parseFieldSelector('status.phase=a\\,b\\=c\\\\d,metadata.name=p1', podFields)(odd)).toBe(true);
  });

  test('unsupported fields are 400s', () => {
    const err = refusal(() => parseFieldSelector('spec.nodeName=x', []));
    expect(err.code).toBe(400);
    expect(err.message).toBe('field label not supported: spec.nodeName');
    // No whitespace trimming, as upstream.
    expect(refusal(() => parseFieldSelector('metadata.name = x', podFields)).message).toBe('field label not supported: metadata.name ');
  });

  test('syntax errors are 400s', () => {
    const noOp = refusal(() => parseFieldSelector('metadata.name', podFields));
    expect(noOp.code).toBe(400);
    expect(noOp.message).toBe("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(refusal(() => parseFieldSelector('metadata.name=a=b', podFields)).message).toBe(
      'invalid field selector: unescaped character in value: =',
    );
    expect(refusal(() => parseFieldSelector('metadata.name=a\\x', podFields)).message).toBe(
      'invalid field selector: invalid escape sequence: \\x',
    );
    expect(refusal(() => parseFieldSelector('metadata.name=a\\', podFields)).message).toBe(
      'invalid field selector: invalid escape sequence: \\',
    );
  });
});
