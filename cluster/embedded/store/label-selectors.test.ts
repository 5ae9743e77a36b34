import { test, expect } from '@playwright/test';
import { refusal } from '../test-kit.ts';
import { labelSelectorFromObject, parseLabelSelector } from './label-selectors.ts';

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
      const err = refusal(() => parseLabelSelector(selector));
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
      expect(err.message).toBe(message);
    });
  }

  test('rejects invalid keys and values with validation detail', () => {
    const key = refusal(() => parseLabelSelector('-app=web'));
    expect(key.code).toBe(400);
    expect(key.message).toMatch(/^unable to parse requirement: <nil>: Invalid value: "-app": name part must consist of alphanumeric/);
    const prefix = refusal(() => parseLabelSelector('Example.com/app'));
    expect(prefix.message).toContain('prefix part a lowercase RFC 1123 subdomain');
    const slashes = refusal(() => parseLabelSelector('a/b/c'));
    expect(slashes.message).toContain('a qualified name must consist of');
    const value = refusal(() => parseLabelSelector('app=web/x'));
    expect(value.message).toMatch(/^unable to parse requirement: values\[0\]\[app\]: Invalid value: "web\/x": a valid label must be/);
    const long = refusal(() => parseLabelSelector(`app=${'x'.repeat(64)}`));
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
    const op = refusal(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }));
    expect(op.code).toBe(400);
    expect(op.message).toBe('"Gt" is not a valid label selector operator');
    const empty = refusal(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }));
    expect(empty.message).toBe("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
    const exists = refusal(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }));
    expect(exists.message).toContain('values set must be empty for exists and does not exist');
    const both = refusal(() => labelSelectorFromObject({ matchLabels: { 'bad key': 'bad value' } }));
    expect(both.message).toMatch(/^\[key: Invalid value: "bad key": .*, values\[0\]\[bad key\]: Invalid value: "bad value": .*\]$/);
  });
});
