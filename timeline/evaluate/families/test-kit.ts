/**
 * Golden tests of an invariant family over recorded timelines (timeline/testdata, see its
 * README): each case names what the recording shows — the defect, when it is one — and the
 * status it must give the rules it is about; a watch gap can be put into a recording. Every
 * verdict of every case is also kept in `timeline/testdata/golden/<family>.verdicts.golden.json`
 * (status and the first lines of the message): `UPDATE_GOLDEN=1 npx playwright test
 * --project=unit timeline/evaluate` rewrites them. A last test checks that every rule of the
 * family has a PASS, a FAIL and a watch-gap INCONCLUSIVE case.
 */
import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { derive } from '../../derive/histories.ts';
import type { GapEntry, Timeline, TimelineEntry, WatchedResource } from '../../model.ts';
import type { InvariantFamily } from '../family.ts';
import { verdictWord, type EvaluationSettings, type Verdict, type VerdictStatus } from '../verdict.ts';

/** The lanes' driver settings the recordings were made with (lanes/driver-settings.ts). */
export const SETTINGS: EvaluationSettings = { apiHeadroomSeconds: 5 };
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** A recording from timeline/testdata, by its name without `.json`. */
export function recording(name: string): Timeline {
  return JSON.parse(readFileSync(new URL(`../../testdata/${name}.json`, import.meta.url), 'utf8')) as Timeline;
}

/** The first entry of a recording that matches (a clear error naming the recording when none does). */
export function entry(timeline: Timeline, where: (e: TimelineEntry) => boolean, what: string): TimelineEntry {
  const found = timeline.entries.find(where);
  if (!found) throw new Error(`${timeline.test ?? 'recording'}: no entry ${what}`);
  return found;
}

/** The recording with a watch gap on `resource` from 25 ms before `from` to 25 ms after `to`, put in at its place. */
export function withGap(timeline: Timeline, resource: WatchedResource, from: TimelineEntry, to: TimelineEntry = from): Timeline {
  const gap: GapEntry = { kind: 'gap', seq: Math.max(...timeline.entries.map((e) => e.seq)) + 1, t: from.t - 25, resource, reason: 'watch broke: put in by the test', endT: to.t + 25 };
  const at = timeline.entries.indexOf(from);
  return { ...timeline, entries: [...timeline.entries.slice(0, at), gap, ...timeline.entries.slice(at)] };
}

/** The recording without the entries that match. */
export function without(timeline: Timeline, drop: (e: TimelineEntry) => boolean): Timeline {
  return { ...timeline, entries: timeline.entries.filter((e) => !drop(e)) };
}

export interface GoldenCase {
  /** What the recording shows, naming the defect when it is one. */
  title: string;
  /** The recording in timeline/testdata. */
  recording: string;
  /** A change made to the recording; a case whose change puts in a watch gap says so with `gap: true`. */
  edit?: (timeline: Timeline) => Timeline;
  gap?: boolean;
  /** Each rule's status over the recording: its worst verdict (FAIL, then INCONCLUSIVE, then PASS), as toHold sees it. */
  expect: Record<string, VerdictStatus>;
  /** Text these rules' messages must contain. */
  says?: Record<string, string[]>;
}

/** One verdict as the golden file keeps it: its word (NOT SEEN for nothing of its kind) and the first two lines of the message. */
function goldenLine(v: Verdict): string {
  return `${verdictWord(v)} ${v.status === 'PASS' ? `${v.id}: ` : ''}${v.message.split('\n').slice(0, 2).map((l) => l.trim()).join(' / ')}`;
}

/** Registers a test per case, the golden file check, and the coverage check of the family's rules. */
export function goldenCases(family: InvariantFamily, cases: GoldenCase[]): void {
  const name = family.prefix.replace(/\/$/, '');
  const goldenPath = new URL(`../../testdata/golden/${name}.verdicts.golden.json`, import.meta.url);
  const golden: Record<string, string[]> = {};
  const judge = (c: GoldenCase) => family.evaluate(derive((c.edit ?? ((t) => t))(recording(c.recording))), SETTINGS);

  for (const c of cases) {
    test(`${family.prefix} ${c.title} [${c.recording}]`, () => {
      const verdicts = judge(c);
      for (const [id, status] of Object.entries(c.expect)) {
        const mine = verdicts.filter((v) => v.id === id);
        expect(mine.length, `${id} judged at least once`).toBeGreaterThan(0);
        const worst = (['FAIL', 'INCONCLUSIVE', 'PASS'] as const).find((s) => mine.some((v) => v.status === s));
        expect(`${worst}: ${mine.map((v) => `${v.status} ${v.message}`).join('\n')}`, id).toMatch(new RegExp(`^${status}: `));
        for (const text of c.says?.[id] ?? []) expect(mine.map((v) => v.message).join('\n'), id).toContain(text);
      }
      for (const v of verdicts) if (v.status !== 'PASS') expect(v.message.startsWith(`${v.id}: `), `a ${v.status} message starts with its rule's id: ${v.message}`).toBe(true);
    });
  }

  test(`${family.prefix} every verdict of every case matches the golden file`, () => {
    for (const c of cases) golden[c.title] = judge(c).map(goldenLine);
    const text = `${JSON.stringify(golden, null, 1)}\n`;
    if (UPDATE) {
      mkdirSync(new URL('.', goldenPath), { recursive: true });
      writeFileSync(goldenPath, text);
    }
    expect(existsSync(goldenPath), `${goldenPath.pathname} is missing; UPDATE_GOLDEN=1 writes it`).toBe(true);
    expect(text, `${goldenPath.pathname} differs; read the change, then UPDATE_GOLDEN=1 if it is meant`).toBe(readFileSync(goldenPath, 'utf8'));
  });

  test(`${family.prefix} every rule has a recorded PASS, FAIL and watch-gap INCONCLUSIVE case`, () => {
    for (const { id } of family.invariants) {
      const has = (status: VerdictStatus, gap = false) => cases.some((c) => c.expect[id] === status && (!gap || c.gap));
      expect({ id, pass: has('PASS'), fail: has('FAIL'), gap: has('INCONCLUSIVE', true) }).toEqual({ id, pass: true, fail: true, gap: true });
    }
  });
}
