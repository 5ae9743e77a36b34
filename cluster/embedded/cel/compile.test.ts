import { expect, test } from '@playwright/test';
import { CelCompileError, compileCel, type CelOutcome } from './compile.ts';
import { jsonToCel, jsonToCelBySchema } from './values.ts';

function evaluate(expression: string, bindings: Record<string, unknown> = {}): CelOutcome {
  const converted = Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, jsonToCel(v)]));
  return compileCel(expression, Object.keys(bindings)).evaluate(converted);
}

function value(expression: string, bindings: Record<string, unknown> = {}): unknown {
  const outcome = evaluate(expression, bindings);
  if ('error' in outcome) throw new Error(outcome.error);
  return outcome.value;
}

function compileError(expression: string, declared: string[] = []): string {
  try {
    compileCel(expression, declared);
  } catch (error) {
    expect(error).toBeInstanceOf(CelCompileError);
    return (error as CelCompileError).detail;
  }
  throw new Error(`${expression} compiled`);
}

test('JSON objects are maps, whole numbers int, fractions double', () => {
  const object = { metadata: { name: 'a', labels: { app: 'x' } }, spec: { replicas: 3, ratio: 0.5, items: ['a', 'b'] } };
  expect(value('object.metadata.name == "a" && object.metadata.labels.app == "x"', { object })).toBe(true);
  expect(value('object.spec.replicas + 1', { object })).toBe(4n);
  expect(value('object.spec.ratio * 2.0', { object })).toBe(1);
  expect(value('has(object.spec.missing) || !has(object.metadata.labels.other)', { object })).toBe(true);
  expect(value('oldObject == null', { oldObject: null })).toBe(true);
});

test('macros and the string library', () => {
  const object = { items: ['alpha', 'beta'], n: [3, 1, 2] };
  expect(value('object.items.all(i, i.size() > 3) && object.items.exists(i, i.startsWith("b"))', { object })).toBe(true);
  expect(value('object.items.exists_one(i, i.contains("ph"))', { object })).toBe(true);
  expect([...(value('object.n.filter(x, x > 1).map(x, x * 10)', { object }) as Iterable<bigint>)]).toEqual([30n, 20n]);
  expect(value('"A-b".lowerAscii() + "x".upperAscii() + "a,b".split(",")[1] + " t ".trim()', {})).toBe('a-bXbt');
  expect(value('"release-1.2".matches("^release-[0-9.]+$") && "abc".indexOf("c") == 2', {})).toBe(true);
});

test('the Kubernetes list and regex libraries', () => {
  expect(value('[1, 2, 2].isSorted() && ![2, 1].isSorted()')).toBe(true);
  expect(value('[1, 2, 3].sum() + [4, 2].min() + [4, 9].max()')).toBe(17n);
  expect(value('[1.5, 2.5].sum()')).toBe(4);
  expect(value('["a", "b", "a"].indexOf("a") * 10 + ["a", "b", "a"].lastIndexOf("a")')).toBe(2n);
  expect(value('"x12y345".find("[0-9]+") + ":" + "x12y345".findAll("[0-9]+").join(",") + ":" + "x12y345".findAll("[0-9]", 2).join("")')).toBe('12:12,345:12');
  expect(evaluate('[].min()')).toEqual({ error: 'min(list) called on an empty list' });
});

test('runtime errors carry cel-go words', () => {
  expect(evaluate('object.spec.missing == 1', { object: { spec: {} } })).toEqual({ error: 'no such key: missing' });
  expect(evaluate('1 / object.zero', { object: { zero: 0 } })).toEqual({ error: 'division by zero' });
});

test('an undeclared reference is a compile error with the cel-go frame', () => {
  expect(compileError('object.a == params.b', ['object'])).toBe(
    "compilation failed: ERROR: <input>:1:13: undeclared reference to 'params' (in container '')\n | object.a == params.b\n | ............^",
  );
  // Comprehension variables are bound inside their macro only.
  expect(() => compileCel('object.items.all(i, i > 0)', ['object'])).not.toThrow();
  expect(compileError('object.items.all(i, i > 0) && i > 0', ['object'])).toContain("undeclared reference to 'i'");
});

test('a syntax error names the line and column', () => {
  const detail = compileError('object.a &&\n  b )', ['object', 'b']);
  expect(detail).toMatch(/^compilation failed: ERROR: <input>:2:5: Syntax error: found \) .+\n \|   b \)\n \| \.\.\.\.\^$/);
});

test('references list the declared variables read, and variables.<name> reads', () => {
  const compiled = compileCel('variables.a + variables.b > object.x', ['object', 'variables', 'oldObject']);
  expect([...compiled.references].sort()).toEqual(['object', 'variables']);
  expect([...compiled.variableReferences].sort()).toEqual(['a', 'b']);
});

test('schema typing: a whole number in a `number` field is double, in an `integer` field int', () => {
  const schema = { type: 'object', properties: { ratio: { type: 'number' }, count: { type: 'integer' } } };
  const self = jsonToCelBySchema({ ratio: 2, count: 2 }, schema);
  expect(compileCel('self.ratio * 1.5 == 3.0 && self.count * 2 == 4', ['self']).evaluate({ self })).toEqual({ value: true });
});
