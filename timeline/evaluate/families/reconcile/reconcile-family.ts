/**
 * The reconcile family (OpenShell#3525): reconciliation over settled sandboxes converges —
 * passes over stopped or settled sandboxes write nothing. A scenario marks the stretch to judge
 * with a harness step named `reconcile-window` (or `reconcile-window <detail>`), begun once every
 * sandbox of the test is settled, running its reconciliation passes inside:
 *
 *   await timeline.step('reconcile-window', async () => { ...many passes... });
 *
 * No Sandbox, Pod or Secret of the test's sandboxes may get a new resourceVersion between the
 * step's begin and end marks (ordered by the marks' cluster revisions).
 */
import { KIND } from '../../../derive/format.ts';
import type { Facts } from '../../../derive/histories.ts';
import { markName, namedSteps, relativeToMark, type StepWindow } from '../../../derive/steps.ts';
import type { ObjectEntry } from '../../../model.ts';
import { defineFamily, rule } from '../../family.ts';
import { gapVerdict, slice } from '../../order.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from '../../verdict.ts';

/** The step that marks a stretch of reconciliation over settled sandboxes. */
export const RECONCILE_WINDOW_STEP = 'reconcile-window';

export const RECONCILE_INVARIANTS = {
  noWrites: {
    id: 'reconcile/settled-sandboxes-unwritten',
    title: `reconciliation over settled sandboxes writes nothing: no Sandbox, Pod or Secret gets a new resourceVersion inside a "${RECONCILE_WINDOW_STEP}" step`,
    source: 'OpenShell#3525: reconciling already-suspended sandboxes must converge — no repeated PATCH, no warning storm',
  },
} satisfies Record<string, InvariantInfo>;

function noWritesVerdict(facts: Facts, window: StepWindow): Verdict {
  const info = RECONCILE_INVARIANTS.noWrites;
  const { begin, end } = window;
  if (!end) return inconclusive(info, `step "${window.title}" had not ended when the recording did`, [begin]);
  const gap = gapVerdict(facts, info, ['pods', 'sandboxes', 'secrets'], begin.t, end.t, `step "${window.title}"`, [begin, end]);
  if (gap) return gap;
  const changes = facts.timeline.entries.filter((e): e is ObjectEntry => e.kind === 'object' && e.type !== 'LISTED');
  const writes: ObjectEntry[] = [];
  const unsure: ObjectEntry[] = [];
  for (const e of changes) {
    const [afterBegin, beforeEnd] = [relativeToMark(e, begin), relativeToMark(e, end)];
    if (afterBegin === 'before' || beforeEnd === 'after') continue;
    (afterBegin === 'after' && beforeEnd === 'before' ? writes : unsure).push(e);
  }
  if (writes.length) {
    const listed = writes.slice(0, 8).map((e) => `${KIND[e.resource]} ${e.name} ${e.type} (rv ${e.resourceVersion})`).join(', ');
    return violation(info, `${writes.length} write(s) inside step "${window.title}" (cluster revisions ${begin.clusterRevision}..${end.clusterRevision}): ${listed}${writes.length > 8 ? ', …' : ''}`, [begin, ...writes, end], {
      timeline: slice(facts, [begin, end], new Map([[begin.seq, markName(begin)], [end.seq, markName(end)], ...writes.map((w): [number, string] => [w.seq, 'written'])])),
    });
  }
  if (unsure.length) return inconclusive(info, `${unsure.length} change(s) arrived around step "${window.title}" and its marks carry no cluster revision to place them by`, [begin, ...unsure, end]);
  return pass(info, `nothing written inside step "${window.title}" (cluster revisions ${begin.clusterRevision}..${end.clusterRevision})`, [begin, end]);
}

export const reconcileFamily = defineFamily<StepWindow>({
  prefix: 'reconcile/',
  episodes: (facts) => namedSteps(facts, RECONCILE_WINDOW_STEP),
  noEpisode: `no "${RECONCILE_WINDOW_STEP}" step was recorded`,
  rules: [rule(RECONCILE_INVARIANTS.noWrites, (window, facts) => [noWritesVerdict(facts, window)])],
});
