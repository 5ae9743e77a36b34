/**
 * Golden test pairs, kwok-style: testdata/<family>/<case>.input.yaml describes what happens (its
 * leading comment says which upstream behaviour it follows); <case>.golden.yaml holds what the
 * simulation produced from it. Regenerate with UPDATE_GOLDEN=1 and review the diff.
 */
import { expect } from '@playwright/test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export function goldenDir(family: string): URL {
  return new URL(`./testdata/${family}/`, import.meta.url);
}

/** The case names of a family: every <case>.input.yaml. */
export function goldenCases(family: string): string[] {
  return readdirSync(goldenDir(family))
    .filter((f) => f.endsWith('.input.yaml'))
    .map((f) => f.replace(/\.input\.yaml$/, ''))
    .sort();
}

export function readGoldenInput<T>(family: string, name: string): T {
  return parse(readFileSync(new URL(`${name}.input.yaml`, goldenDir(family)), 'utf8')) as T;
}

/** Compares `actual` with <case>.golden.yaml (written instead under UPDATE_GOLDEN=1). */
export function expectGolden(family: string, name: string, actual: unknown): void {
  const file = new URL(`${name}.golden.yaml`, goldenDir(family));
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, stringify(actual, { lineWidth: 0 }));
  expect(actual).toEqual(parse(readFileSync(file, 'utf8')));
}
