import type { Timeline, TimelineEntry } from '../../../model.ts';
import { entry, goldenCases, withGap } from '../test-kit.ts';
import { IDENTITY_INVARIANTS as I, identityFamily, STALE_CALL_STEP } from './identity-family.ts';

const id = I.staleCallSparesReplacement.id;
const staleBegin = (t: Timeline) => entry(t, (e: TimelineEntry) => e.kind === 'step' && e.title.startsWith(STALE_CALL_STEP) && e.status === 'begin', 'beginning the stale call');
const staleEnd = (t: Timeline) => entry(t, (e: TimelineEntry) => e.kind === 'step' && e.title.startsWith(STALE_CALL_STEP) && e.status !== 'begin', 'ending the stale call');

goldenCases(identityFamily, [
  {
    title: 'the reference driver: the supervisor Pod replaced under its name (and a start begun) while a stop held its delete; the UID precondition spares the replacement',
    recording: 'recorded-reference-stale-call',
    expect: { [id]: 'PASS' },
    says: { [id]: ['replacing uid'] },
  },
  {
    title: '(c) the supervisor deleted without its UID precondition: the held delete kills the replacement Pod',
    recording: 'recorded-defect-c-no-uid-precondition',
    expect: { [id]: 'FAIL' },
    says: { [id]: ['inside step "stale-call stop"', 'deletion requested'] },
  },
  { title: '(c) with a watch gap on pods inside the stale call', recording: 'recorded-defect-c-no-uid-precondition', edit: (t) => withGap(t, 'pods', staleBegin(t), staleEnd(t)), gap: true, expect: { [id]: 'INCONCLUSIVE' } },
  {
    title: 'a stale call with nothing re-created (the stale-call step moved before the replacement)',
    recording: 'recorded-reference-stale-call',
    edit: (t) => ({ ...t, entries: t.entries.filter((e) => !(e.kind === 'step' && e.title.startsWith(STALE_CALL_STEP))).map((e) => (e.kind === 'step' && e.title === 'create' ? { ...e, title: `${STALE_CALL_STEP} create` } : e)) }),
    expect: { [id]: 'INCONCLUSIVE' },
    says: { [id]: ["nothing had been re-created under a deleted object's name"] },
  },
  { title: 'no stale call', recording: 'recorded-reference', expect: { [id]: 'INCONCLUSIVE' }, says: { [id]: ['no "stale-call" step was recorded'] } },
]);
