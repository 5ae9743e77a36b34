/**
 * The identity family (OpenShell#3556): the stable id is authoritative, and a request aimed at a
 * sandbox (or a supervisor Pod) that has since been deleted and re-created under the same name
 * must not touch the replacement — the UID guard, visible in the timeline. A scenario marks the
 * stale request with a harness step named `stale-call` (or `stale-call <detail>`, e.g.
 * `stale-call stop`) around the call:
 *
 *   await timeline.step('stale-call stop', () => driver.stop(oldId));
 *
 * Inside that step no replacement — an object re-created under a deleted object's name, or an
 * object of a re-created Sandbox — may have its deletion requested, disappear, or (a Sandbox)
 * be suspended, resumed or moved to another stop or start phase.
 */
import { KIND } from '../../../derive/format.ts';
import type { Facts } from '../../../derive/histories.ts';
import { markName, namedSteps, relativeToMark, type StepWindow } from '../../../derive/steps.ts';
import type { ObjectEntry, TimelineEntry } from '../../../model.ts';
import { defineFamily, rule } from '../../family.ts';
import { gapVerdict, slice } from '../../order.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from '../../verdict.ts';
import { replacements, touches, type Replacement } from './identity-episodes.ts';

/** The step that marks a request aimed at an object that has since been replaced. */
export const STALE_CALL_STEP = 'stale-call';

export const IDENTITY_INVARIANTS = {
  staleCallSparesReplacement: {
    id: 'identity/stale-call-spares-replacement',
    title: `a request aimed at a deleted object does not touch its replacement under the same name: nothing re-created is deleted, suspended or moved inside a "${STALE_CALL_STEP}" step`,
    source: 'OpenShell#3556: names are unique only per workspace, the stable id is authoritative; UID preconditions keep a stale request off a replacement',
  },
} satisfies Record<string, InvariantInfo>;

const name = (r: Replacement) => `${KIND[r.object.resource]} ${r.object.name} (uid ${r.object.uid}${r.replaced ? `, replacing uid ${r.replaced.uid}` : r.via ? `, of re-created Sandbox ${r.via.name}` : ''})`;

function sparedVerdict(facts: Facts, window: StepWindow): Verdict {
  const info = IDENTITY_INVARIANTS.staleCallSparesReplacement;
  const { begin, end } = window;
  if (!end) return inconclusive(info, `step "${window.title}" had not ended when the recording did`, [begin]);
  const existing = replacements(facts).filter((r) => relativeToMark(r.object.seen, end) !== 'after');
  if (existing.length === 0) return inconclusive(info, `nothing had been re-created under a deleted object's name by the end of step "${window.title}"`, [begin, end]);
  const gap = gapVerdict(facts, info, ['pods', 'sandboxes', 'secrets'], begin.t, end.t, `step "${window.title}"`, [begin, end]);
  if (gap) return gap;
  const inside: { replacement: Replacement; entry: ObjectEntry; what: string }[] = [];
  const unsure: TimelineEntry[] = [];
  for (const replacement of existing) {
    for (const touch of touches(replacement.object)) {
      const [afterBegin, beforeEnd] = [relativeToMark(touch.entry, begin), relativeToMark(touch.entry, end)];
      if (afterBegin === 'before' || beforeEnd === 'after') continue;
      if (afterBegin === 'after' && beforeEnd === 'before') inside.push({ replacement, ...touch });
      else unsure.push(touch.entry);
    }
  }
  if (inside.length) {
    const listed = inside.map((t) => `${name(t.replacement)} ${t.what} (rv ${t.entry.resourceVersion})`).join('; ');
    const marks = new Map<number, string>([[begin.seq, markName(begin)], [end.seq, markName(end)], ...inside.map((t): [number, string] => [t.entry.seq, `replacement ${t.what}`])]);
    return violation(info, `inside step "${window.title}": ${listed}`, [begin, ...inside.map((t) => t.entry), end], { timeline: slice(facts, [begin, end], marks), pair: [inside[0].entry, end] });
  }
  if (unsure.length) return inconclusive(info, `${unsure.length} change(s) of a replacement arrived around step "${window.title}" and its marks carry no cluster revision to place them by`, [begin, ...unsure, end]);
  return pass(info, `no replacement touched inside step "${window.title}": ${existing.map(name).join(', ')}`, [begin, end]);
}

export const identityFamily = defineFamily<StepWindow>({
  prefix: 'identity/',
  episodes: (facts) => namedSteps(facts, STALE_CALL_STEP),
  noEpisode: `no "${STALE_CALL_STEP}" step was recorded`,
  rules: [rule(IDENTITY_INVARIANTS.staleCallSparesReplacement, (window, facts) => [sparedVerdict(facts, window)])],
});
