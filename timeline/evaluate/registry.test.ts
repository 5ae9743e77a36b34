import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { derive } from '../derive/histories.ts';
import type { Timeline } from '../model.ts';
import { holds } from './assertions.ts';
import { defineFamily } from './family.ts';
import { FAMILIES } from './families/index.ts';
import { evaluateFamilies, evaluateInvariant, findInvariant, INVARIANTS, invariantsIn } from './registry.ts';

const load = (name: string): Timeline => JSON.parse(readFileSync(new URL(`../testdata/${name}.json`, import.meta.url), 'utf8')) as Timeline;
const SETTINGS = { apiHeadroomSeconds: 5 };

test('the registry lists every family\'s rules, each under its family\'s prefix', () => {
  expect(INVARIANTS).toEqual(FAMILIES.flatMap((f) => f.invariants));
  for (const family of FAMILIES) for (const i of family.invariants) expect(i.id.startsWith(family.prefix)).toBe(true);
  expect(invariantsIn('stop/').map((i) => i.id)).toEqual(INVARIANTS.filter((i) => i.id.startsWith('stop/')).map((i) => i.id));
  expect(new Set(INVARIANTS.map((i) => i.id)).size).toBe(INVARIANTS.length);
});

test('a family is one folder, registered once, with its golden test: families/<name>/<name>-family.ts and -family.test.ts', () => {
  const folder = new URL('./families/', import.meta.url);
  const folders = readdirSync(folder, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  expect(FAMILIES.map((f) => f.prefix.replace(/\/$/, '')).sort()).toEqual(folders);
  for (const name of folders) {
    expect(existsSync(new URL(`${name}/${name}-family.ts`, folder)), `${name}/${name}-family.ts`).toBe(true);
    expect(existsSync(new URL(`${name}/${name}-family.test.ts`, folder)), `${name}/${name}-family.test.ts`).toBe(true);
  }
});

test('an unknown invariant is a clear error naming the known ones', () => {
  expect(() => findInvariant('stop/nope')).toThrow(`unknown invariant "stop/nope"; known: ${INVARIANTS.map((i) => i.id).join(', ')}`);
  expect(() => holds('stop/nope')).toThrow('unknown invariant "stop/nope"');
});

test('a family whose rule id lacks its prefix is refused at registration', () => {
  const rule = { id: 'start/x', title: 't', source: 's', judge: () => [] };
  expect(() => defineFamily({ prefix: 'stop/', episodes: () => [], noEpisode: 'n', rules: [rule] })).toThrow('family stop/: rule ids must start with "stop/": start/x');
});

test('one invariant is the families\' evaluation cut to its id', () => {
  const facts = derive(load('recorded-suspend-first'));
  const all = evaluateFamilies(facts, SETTINGS);
  for (const { id } of INVARIANTS) expect(evaluateInvariant(id, facts, SETTINGS)).toEqual(all.filter((v) => v.id === id));
  expect(holds('stop/supervisor-exit-clean').evaluate(facts, SETTINGS).map((v) => v.status)).toEqual(['FAIL']);
});
