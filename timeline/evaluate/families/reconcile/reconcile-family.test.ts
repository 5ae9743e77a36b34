import type { Timeline, TimelineEntry } from '../../../model.ts';
import { entry, goldenCases, withGap } from '../test-kit.ts';
import { RECONCILE_INVARIANTS as I, RECONCILE_WINDOW_STEP, reconcileFamily } from './reconcile-family.ts';

const id = I.noWrites.id;
const windowBegin = (t: Timeline) => entry(t, (e: TimelineEntry) => e.kind === 'step' && e.title === RECONCILE_WINDOW_STEP && e.status === 'begin', 'beginning the reconcile window');
const unstamped = (t: Timeline): Timeline => ({ ...t, entries: t.entries.map((e) => (e.kind === 'step' ? { ...e, clusterRevision: undefined } : e)) });

goldenCases(reconcileFamily, [
  { title: 'ten reconciliation passes of the reference driver over a stopped sandbox', recording: 'recorded-reference-reconcile', expect: { [id]: 'PASS' }, says: { [id]: ['nothing written inside step "reconcile-window"'] } },
  {
    title: 'ten passes of a driver that patches every settled Sandbox on every pass (#3525)',
    recording: 'recorded-defect-reconcile-writes',
    expect: { [id]: 'FAIL' },
    says: { [id]: ['10 write(s) inside step "reconcile-window"', 'Sandbox', 'MODIFIED'] },
  },
  { title: 'the writing passes with a watch gap on sandboxes inside the window', recording: 'recorded-defect-reconcile-writes', edit: (t) => withGap(t, 'sandboxes', windowBegin(t)), gap: true, expect: { [id]: 'INCONCLUSIVE' } },
  { title: 'the writing passes with the window marks unstamped: the late writes cannot be placed', recording: 'recorded-defect-reconcile-writes', edit: unstamped, expect: { [id]: 'INCONCLUSIVE' }, says: { [id]: ['carry no cluster revision'] } },
  { title: 'no reconcile window', recording: 'recorded-reference', expect: { [id]: 'INCONCLUSIVE' }, says: { [id]: ['no "reconcile-window" step was recorded'] } },
]);
