import { expect, test } from '@playwright/test';
import type { StatusCause } from '../errors.ts';
import { validateAgainstSchema, type JSONSchemaProps } from './structural-schema.ts';

/** Errors as the server prints them after `is invalid: `. */
function messages(found: StatusCause[]): string[] {
  return found.map((c) => `${c.field}: ${c.message}`);
}

/** Validates `{ spec: value }` against a spec schema, so paths read like a custom resource's. */
function validateSpec(spec: unknown, specSchema: JSONSchemaProps): string[] {
  return messages(validateAgainstSchema({ spec }, { type: 'object', properties: { spec: specSchema } }));
}

function objectOf(properties: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return { type: 'object', properties, ...extra };
}

test.describe('type', () => {
  const schema = objectOf({
    o: { type: 'object' },
    a: { type: 'array' },
    s: { type: 'string' },
    i: { type: 'integer' },
    n: { type: 'number' },
    b: { type: 'boolean' },
  });

  test('values of the declared types pass, and number accepts an integer', () => {
    expect(validateSpec({ o: {}, a: [], s: 'x', i: 3, n: 3, b: false }, schema)).toEqual([]);
    expect(validateSpec({ n: 2.5 }, schema)).toEqual([]);
  });

  test('a mismatch names the JSON type it found, as the value and in the detail', () => {
    expect(validateSpec({ i: 'string' }, schema)).toEqual([
      'spec.i: Invalid value: "string": spec.i in body must be of type integer: "string"',
    ]);
    expect(validateSpec({ i: 'three' }, schema)).toEqual([
      'spec.i: Invalid value: "string": spec.i in body must be of type integer: "string"',
    ]);
    expect(validateSpec({ o: [1], a: {}, s: 1, b: 'yes' }, schema)).toEqual([
      'spec.o: Invalid value: "array": spec.o in body must be of type object: "array"',
      'spec.a: Invalid value: "object": spec.a in body must be of type array: "object"',
      'spec.s: Invalid value: "integer": spec.s in body must be of type string: "integer"',
      'spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"',
    ]);
  });

  test('integer rejects 1.5', () => {
    const found = validateAgainstSchema({ spec: { i: 1.5 } }, objectOf({ spec: schema }));
    expect(found).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.i',
        message: 'Invalid value: "number": spec.i in body must be of type integer: "number"',
      },
    ]);
  });

  test('a schema without a type accepts anything', () => {
    expect(validateSpec({ any: [1, 'x'] }, objectOf({ any: { 'x-kubernetes-preserve-unknown-fields': true } }))).toEqual([]);
  });
});

test.describe('nullable', () => {
  test('null is refused unless the schema is nullable', () => {
    const schema = objectOf({ strict: { type: 'string' }, loose: { type: 'string', nullable: true } });
    expect(validateSpec({ strict: null, loose: null }, schema)).toEqual([
      'spec.strict: Invalid value: "null": spec.strict in body must be of type string: "null"',
    ]);
  });

  test('an enum still applies to null, even when nullable (a known apiextensions quirk)', () => {
    const schema = objectOf({ mode: { type: 'string', nullable: true, enum: ['A'] } });
    expect(validateSpec({ mode: null }, schema)).toEqual(['spec.mode: Unsupported value: null: supported values: "A"']);
  });
});

test.describe('enum', () => {
  test('lists the supported values in schema order', () => {
    const schema = objectOf({ operatingMode: { type: 'string', enum: ['Running', 'Suspended'] } });
    expect(validateSpec({ operatingMode: 'Running' }, schema)).toEqual([]);
    const found = validateAgainstSchema({ spec: { operatingMode: 'Paused' } }, objectOf({ spec: schema }));
    expect(found).toEqual([
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.operatingMode',
        message: 'Unsupported value: "Paused": supported values: "Running", "Suspended"',
      },
    ]);
  });

  test('non-string members are quoted JSON', () => {
    const schema = objectOf({ size: { type: 'integer', enum: [1, 2] } });
    expect(validateSpec({ size: 3 }, schema)).toEqual(['spec.size: Unsupported value: 3: supported values: "1", "2"']);
  });
});

test.describe('minimum and maximum', () => {
  const schema = objectOf({ replicas: { type: 'integer', minimum: 0, maximum: 1 } });

  test('inclusive bounds', () => {
    expect(validateSpec({ replicas: 0 }, schema)).toEqual([]);
    expect(validateSpec({ replicas: 1 }, schema)).toEqual([]);
    expect(validateSpec({ replicas: 2 }, schema)).toEqual([
      'spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1',
    ]);
    expect(validateSpec({ replicas: -1 }, schema)).toEqual([
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ]);
  });

  test('exclusive bounds', () => {
    const exclusive = objectOf({
      ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
    });
    expect(validateSpec({ ratio: 0.5 }, exclusive)).toEqual([]);
    expect(validateSpec({ ratio: 0 }, exclusive)).toEqual([
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
    ]);
    expect(validateSpec({ ratio: 1 }, exclusive)).toEqual(['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1']);
  });

  test('a float value prints the bound as a Go float', () => {
    const big = objectOf({ n: { type: 'number', maximum: 1000000 } });
    expect(validateSpec({ n: 1000000.5 }, big)).toEqual([
      'spec.n: Invalid value: 1000000.5: spec.n in body should be less than or equal to 1e+06',
    ]);
  });

  test('a wrong type skips the numeric checks', () => {
    expect(validateSpec({ replicas: '2' }, schema)).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });
});

test.describe('strings', () => {
  test('maxLength is "Too long" and counts characters', () => {
    const schema = objectOf({ name: { type: 'string', maxLength: 3 } });
    expect(validateSpec({ name: 'äöü' }, schema)).toEqual([]);
    const found = validateAgainstSchema({ spec: { name: 'abcd' } }, objectOf({ spec: schema }));
    expect(found).toEqual([{ reason: 'FieldValueTooLong', field: 'spec.name', message: 'Too long: may not be more than 3 bytes' }]);
  });

  test('minLength', () => {
    const schema = objectOf({ name: { type: 'string', minLength: 2 } });
    expect(validateSpec({ name: 'a' }, schema)).toEqual([
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
    ]);
  });

  test('pattern', () => {
    const schema = objectOf({ name: { type: 'string', pattern: '^[a-z]+$' } });
    expect(validateSpec({ name: 'abc' }, schema)).toEqual([]);
    expect(validateSpec({ name: 'ABC' }, schema)).toEqual([
      "spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'",
    ]);
  });

  test('only the first failing string rule is reported', () => {
    const schema = objectOf({ name: { type: 'string', maxLength: 2, pattern: '^[a-z]+$' } });
    expect(validateSpec({ name: 'ABCD' }, schema)).toEqual(['spec.name: Too long: may not be more than 2 bytes']);
  });
});

test.describe('format date-time', () => {
  const schema = objectOf({ shutdownTime: { type: 'string', format: 'date-time' } });

  test('accepts RFC 3339 timestamps', () => {
    for (const ok of ['2026-01-02T15:04:05Z', '2026-01-02t15:04:05.123456z', '2026-01-02T15:04:05+02:00', '2024-02-29T00:00:00Z']) {
      expect(validateSpec({ shutdownTime: ok }, schema), ok).toEqual([]);
    }
  });

  test('refuses anything else, showing the string itself', () => {
    expect(validateSpec({ shutdownTime: 'yesterday' }, schema)).toEqual([
      'spec.shutdownTime: Invalid value: "yesterday": spec.shutdownTime in body must be of type date-time: "yesterday"',
    ]);
    for (const bad of ['2026-01-02', '2026-01-02T15:04:05', '2026-02-30T00:00:00Z', '2026-01-02T24:00:00Z', '2026-01-02 15:04:05Z']) {
      expect(validateSpec({ shutdownTime: bad }, schema), bad).toHaveLength(1);
    }
  });

  test('unknown formats never fail', () => {
    expect(validateSpec({ port: 'x' }, objectOf({ port: { type: 'string', format: 'no-such-format' } }))).toEqual([]);
  });
});

test.describe('int-or-string', () => {
  const schema = objectOf({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } });

  test('accepts an integer or a string', () => {
    expect(validateSpec({ port: 8080 }, schema)).toEqual([]);
    expect(validateSpec({ port: 'http' }, schema)).toEqual([]);
  });

  test('refuses anything else', () => {
    expect(validateSpec({ port: true }, schema)).toEqual([
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
    expect(validateSpec({ port: 1.5 }, schema)).toEqual([
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
    ]);
  });
});

test.describe('required', () => {
  test('a missing member is "Required value"; a null one is present', () => {
    const schema = objectOf({ podTemplate: { type: 'object', nullable: true } }, { required: ['podTemplate'] });
    const found = validateAgainstSchema({ spec: {} }, objectOf({ spec: schema }));
    expect(found).toEqual([{ reason: 'FieldValueRequired', field: 'spec.podTemplate', message: 'Required value' }]);
    expect(validateSpec({ podTemplate: null }, schema)).toEqual([]);
  });

  test('at the root', () => {
    expect(messages(validateAgainstSchema({}, objectOf({ spec: { type: 'object' } }, { required: ['spec'] })))).toEqual([
      'spec: Required value',
    ]);
  });

  test('is not checked inside an object that is absent', () => {
    const schema = objectOf({ inner: objectOf({ a: { type: 'string' } }, { required: ['a'] }) });
    expect(validateSpec({}, schema)).toEqual([]);
  });
});

test.describe('arrays', () => {
  test('items are validated with indexed paths', () => {
    const schema = objectOf({
      containers: { type: 'array', items: objectOf({ name: { type: 'string' } }, { required: ['name'] }) },
    });
    expect(validateSpec({ containers: [{ name: 'a' }, { image: 'x' }, { name: 7 }] }, schema)).toEqual([
      'spec.containers[1].name: Required value',
      'spec.containers[2].name: Invalid value: "integer": spec.containers[2].name in body must be of type string: "integer"',
    ]);
  });

  test('minItems and maxItems', () => {
    const schema = objectOf({ args: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } } });
    expect(validateSpec({ args: ['a'] }, schema)).toEqual([]);
    expect(validateSpec({ args: [] }, schema)).toEqual(['spec.args: Invalid value: 0: spec.args in body should have at least 1 items']);
    const found = validateAgainstSchema({ spec: { args: ['a', 'b', 'c'] } }, objectOf({ spec: schema }));
    expect(found).toEqual([{ reason: 'FieldValueTooMany', field: 'spec.args', message: 'Too many: 3: must have at most 2 items' }]);
  });
});

test.describe('additionalProperties', () => {
  test('every member is validated against the map value schema', () => {
    const schema = objectOf({ labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } } });
    expect(validateSpec({ labels: { app: 'web' } }, schema)).toEqual([]);
    expect(validateSpec({ labels: { app: 'frontend', tier: 1 } }, schema)).toEqual([
      'spec.labels.app: Too long: may not be more than 3 bytes',
      'spec.labels.tier: Invalid value: "integer": spec.labels.tier in body must be of type string: "integer"',
    ]);
  });
});

test.describe('unknown fields', () => {
  test('are not a validation error, with or without preserve-unknown-fields', () => {
    const plain = objectOf({ known: { type: 'string' } });
    const preserving = objectOf({ known: { type: 'string' } }, { 'x-kubernetes-preserve-unknown-fields': true });
    expect(validateSpec({ known: 'x', foo: { bar: 1 } }, plain)).toEqual([]);
    expect(validateSpec({ known: 'x', foo: { bar: 1 } }, preserving)).toEqual([]);
  });

  test('declared members under preserve-unknown-fields are still checked', () => {
    const preserving = objectOf({ known: { type: 'string' } }, { 'x-kubernetes-preserve-unknown-fields': true });
    expect(validateSpec({ known: 1, foo: 'anything' }, preserving)).toEqual([
      'spec.known: Invalid value: "integer": spec.known in body must be of type string: "integer"',
    ]);
  });
});

test.describe('x-kubernetes-list-type', () => {
  test('set: a repeated item is a Duplicate value, reported once', () => {
    const schema = objectOf({ tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } });
    expect(validateSpec({ tags: ['a', 'b'] }, schema)).toEqual([]);
    const found = validateAgainstSchema({ spec: { tags: ['a', 'b', 'a', 'a', 'b'] } }, objectOf({ spec: schema }));
    expect(found).toEqual([
      { reason: 'FieldValueDuplicate', field: 'spec.tags[2]', message: 'Duplicate value: "a"' },
      { reason: 'FieldValueDuplicate', field: 'spec.tags[4]', message: 'Duplicate value: "b"' },
    ]);
  });

  test('map: items with the same key are duplicates', () => {
    const schema = objectOf({
      containers: {
        type: 'array',
        items: objectOf({ name: { type: 'string' }, image: { type: 'string' } }),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      },
    });
    expect(validateSpec({ containers: [{ name: 'a' }, { name: 'b' }] }, schema)).toEqual([]);
    expect(validateSpec({ containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] }, schema)).toEqual([
      'spec.containers[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    ]);
  });

  test('map with several keys compares them together', () => {
    const schema = objectOf({
      ports: {
        type: 'array',
        items: objectOf({ port: { type: 'integer' }, protocol: { type: 'string' } }),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
      },
    });
    const ports = [
      { port: 80, protocol: 'TCP' },
      { port: 80, protocol: 'UDP' },
      { protocol: 'TCP', port: 80 },
    ];
    expect(validateSpec({ ports }, schema)).toEqual([
      'spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]);
  });

  test('map items must be objects', () => {
    const schema = objectOf({
      containers: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
    });
    expect(validateSpec({ containers: [{ name: 'a' }, 'b'] }, schema)).toEqual([
      'spec.containers[1]: Invalid value: "b": must be an object for an array of list-type map',
    ]);
  });

  test('duplicates are reported after the schema errors', () => {
    const schema = objectOf({
      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      replicas: { type: 'integer', maximum: 1 },
    });
    expect(validateSpec({ tags: ['a', 'a'], replicas: 2 }, schema)).toEqual([
      'spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1',
      'spec.tags[1]: Duplicate value: "a"',
    ]);
  });

  test('atomic lists may repeat items', () => {
    const schema = objectOf({ args: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' } });
    expect(validateSpec({ args: ['a', 'a'] }, schema)).toEqual([]);
  });
});

test('x-kubernetes-validations (CEL) are left to validation-rules.ts', () => {
  const schema = objectOf({ a: { type: 'string' } }, { 'x-kubernetes-validations': [{ rule: 'false', message: 'never' }] });
  expect(validateSpec({ a: 'x' }, schema)).toEqual([]);
});
