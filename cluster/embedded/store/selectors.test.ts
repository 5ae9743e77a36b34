import { test, expect } from '@playwright/test';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import {
  commonFieldSelectors,
  fieldSelectorsByResource,
  labelSelectorFromObject,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.ts';

/** The ApiError a call throws, so tests can check code and message together. */
function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const labels = { app: 'web', tier: 'frontend', 'agents.x-k8s.io/sandbox-name-hash': 'abc123', count: '5', empty: '' };

test.describe('parseLabelSelector', () => {
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=api', false],
    ['app!=api', true],
    ['app!=web', false],
    ['missing!=x', true], // absent keys satisfy negative requirements
    ['app in (web,api)', true],
    ['app in (api)', false],
    ['app notin (api, db)', true],
    ['app notin (web)', false],
    ['missing notin (x)', true],
    ['missing in (x)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['empty=', true],
    ['app=', false],
    ['missing=', false], // `=` still requires the key
    ['empty in ()', true], // `()` is the single empty value
    ['app in (,web)', true],
    ['empty in (x,)', true],
    ['count>3', true],
    ['count<3', false],
    ['app>3', false], // non-integer label never matches
    ['agents.x-k8s.io/sandbox-name-hash=abc123', true],
    ['agents.x-k8s.io/sandbox-name-hash in (zzz)', false],
    ['app=web,tier=frontend', true],
    ['app=web,tier=backend', false],
    ['app in (web),!missing,tier,tier notin (backend)', true],
    ['  app  =  web  ,\ttier\n!=\rbackend  ', true],
    ['app in(web,api)', true],
    ['app=web,!app', false],
    ['in=x', false], // keywords are plain keys where a key is expected
    ['app in (in, notin, web)', true],
  ];
  for (const [selector, expected] of cases) {
    test(`${JSON.stringify(selector)} -> ${expected}`, () => {
      expect(parseLabelSelector(selector)(labels)).toBe(expected);
    });
  }

  test('undefined labels behave as no labels', () => {
    expect(parseLabelSelector('!app')(undefined)).toBe(true);
    expect(parseLabelSelector('app')(undefined)).toBe(false);
    expect(parseLabelSelector('')(undefined)).toBe(true);
  });

  const invalid: [string, string][] = [
    ['app web', "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"],
    ['app=web,', "found '', expected: identifier after ','"],
    ['app=web,,tier', "found ',', expected: identifier after ','"],
    ['app=web tier', "found 'tier', expected: ',' or 'end of string'"],
    ['!app=web', "found '=', expected: ',' or 'end of string'"],
    ['=web', "found '=', expected: !, identifier, or 'end of string'"],
    ['app in web', "unable to parse requirement: found 'web' expected: '('"],
    ['app in (web', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['app in (web api)', "unable to parse requirement: found 'api', expected: ',' or ')'"],
    ['app in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['app==(x)', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['app>x', "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['bad key!=x', "unable to parse requirement: found 'key', expected: in, notin, =, ==, !=, gt, lt"],
  ];
  for (const [selector, message] of invalid) {
    test(`rejects ${JSON.stringify(selector)}`, () => {
      const err = apiError(() => parseLabelSelector(selector));
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toBe(message);
    });
  }

  test('rejects invalid keys and values with validation detail', () => {
    const key = apiError(() => parseLabelSelector('-app=web'));
    expect(key.code).toBe(400);
    expect(key.message).toMatch(/^unable to parse requirement: <nil>: Invalid value: "-app": name part must consist of alphanumeric/);
    const prefix = apiError(() => parseLabelSelector('Example.com/app'));
    expect(prefix.message).toContain('prefix part a lowercase RFC 1123 subdomain');
    const slashes = apiError(() => parseLabelSelector('a/b/c'));
    expect(slashes.message).toContain('a qualified name must consist of');
    const value = apiError(() => parseLabelSelector('app=web/x'));
    expect(value.message).toMatch(/^unable to parse requirement: values\[0\]\[app\]: Invalid value: "web\/x": a valid label must be/);
    const long = apiError(() => parseLabelSelector(`app=${'x'.repeat(64)}`));
    expect(long.message).toContain('must be no more than 63 characters');
  });
});

test.describe('labelSelectorFromObject', () => {
  test('matchLabels and every matchExpressions operator', () => {
    const m = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['frontend', 'backend'] },
        { key: 'app', operator: 'NotIn', values: ['db'] },
        { key: 'agents.x-k8s.io/sandbox-name-hash', operator: 'Exists' },
        { key: 'missing', operator: 'DoesNotExist' },
      ],
    });
    expect(m(labels)).toBe(true);
    expect(m({ ...labels, missing: 'x' })).toBe(false);
    expect(m({ ...labels, tier: 'db' })).toBe(false);
    expect(m({ app: 'web' })).toBe(false);
  });

  test('empty selects everything; null/undefined nothing unless nullMatches', () => {
    expect(labelSelectorFromObject({})(labels)).toBe(true);
    expect(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] })(undefined)).toBe(true);
    expect(labelSelectorFromObject(null)(labels)).toBe(false);
    expect(labelSelectorFromObject(undefined)({})).toBe(false);
    expect(labelSelectorFromObject(null, { nullMatches: true })(labels)).toBe(true);
  });

  test('invalid selectors are 400s', () => {
    const op = apiError(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }));
    expect(op.code).toBe(400);
    expect(op.message).toBe('"Gt" is not a valid label selector operator');
    const empty = apiError(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }));
    expect(empty.message).toBe("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
    const exists = apiError(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }));
    expect(exists.message).toContain('values set must be empty for exists and does not exist');
    const both = apiError(() => labelSelectorFromObject({ matchLabels: { 'bad key': 'bad value' } }));
    expect(both.message).toMatch(/^\[key: Invalid value: "bad key": .*, values\[0\]\[bad key\]: Invalid value: "bad value": .*\]$/);
  });
});

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
    const err = apiError(() => parseFieldSelector('spec.nodeName=x', []));
    expect(err.code).toBe(400);
    expect(err.message).toBe('field label not supported: spec.nodeName');
    // No whitespace trimming, as upstream.
    expect(apiError(() => parseFieldSelector('metadata.name = x', podFields)).message).toBe('field label not supported: metadata.name ');
  });

  test('syntax errors are 400s', () => {
    const noOp = apiError(() => parseFieldSelector('metadata.name', podFields));
    expect(noOp.code).toBe(400);
    expect(noOp.message).toBe("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(apiError(() => parseFieldSelector('metadata.name=a=b', podFields)).message).toBe(
      'invalid field selector: unescaped character in value: =',
    );
    expect(apiError(() => parseFieldSelector('metadata.name=a\\x', podFields)).message).toBe(
      'invalid field selector: invalid escape sequence: \\x',
    );
    expect(apiError(() => parseFieldSelector('metadata.name=a\\', podFields)).message).toBe(
      'invalid field selector: invalid escape sequence: \\',
    );
  });
});
