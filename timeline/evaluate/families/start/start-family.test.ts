import type { ObjectEntry, Timeline, TimelineEntry } from '../../../model.ts';
import { entry, goldenCases, withGap, without } from '../test-kit.ts';
import { REPEATED_START as R } from './repeated-start.ts';
import { START_INVARIANTS as I, startFamily } from './start-family.ts';

const ALL = Object.values(I).map((i) => i.id);
const every = (status: 'PASS' | 'INCONCLUSIVE') => Object.fromEntries(ALL.map((id) => [id, status]));
const isObject = (e: TimelineEntry): e is ObjectEntry => e.kind === 'object';
const released = (t: Timeline, role: string) => entry(t, (e) => isObject(e) && e.role === role && e.schedulingGates?.length === 0, `releasing the ${role} Pod`);
const ready = (t: Timeline, role: string) => entry(t, (e) => isObject(e) && e.role === role && e.ready === true, `of the ${role} Pod Ready`);
const running = (t: Timeline, role: string) => entry(t, (e) => isObject(e) && e.role === role && !!e.containers?.some((c) => c.state === 'running'), `of the ${role} Pod running`);
const unstamped = (t: Timeline): Timeline => ({ ...t, entries: t.entries.map((e) => (e.kind === 'step' ? { ...e, clusterRevision: undefined } : e)) });

/** A step's mark in a recording. */
const mark = (t: Timeline, title: string, status: 'begin' | 'end' | 'failed') => entry(t, (e) => e.kind === 'step' && e.title === title && e.status === status, `marking step "${title}" ${status}`);

goldenCases(startFamily, [
  { title: 'the reference driver: create, stop', recording: 'recorded-reference', expect: every('PASS') },
  { title: 'the reference driver: create, stop, start (two generations)', recording: 'recorded-reference-restart', expect: every('PASS') },
  { title: 'the reference driver on v1alpha1: create, stop, start', recording: 'recorded-reference-v1alpha1-restart', expect: every('PASS') },
  {
    title: '(a) the workload Pod released before the supervisor on create (gates removed in the wrong order)',
    recording: 'recorded-defect-a-workload-released-first',
    expect: { [I.supervisorReleasedFirst.id]: 'FAIL', [I.readyAfterSupervisorReady.id]: 'PASS' },
    says: { [I.supervisorReleasedFirst.id]: ['violated: workload Pod', 'came BEFORE supervisor Pod'] },
  },
  {
    title: 'create reports Ready before the supervisor Pod is Ready (completion not waiting for the supervisor, which connects 2.5 s late)',
    recording: 'recorded-defect-ready-before-supervisor',
    expect: { [I.readyAfterSupervisorReady.id]: 'FAIL', [I.supervisorReleasedFirst.id]: 'PASS' },
    says: { [I.readyAfterSupervisorReady.id]: ['the create call returned (step "create" end) before supervisor Pod', 'was committed after it (cluster revision'] },
  },
  {
    title: "the generation's workload installed twice: its main process runs in two workload Pods",
    recording: 'recorded-defect-main-runs-twice',
    expect: { [I.mainRunsOnce.id]: 'FAIL' },
    says: { [I.mainRunsOnce.id]: ['the main process ran 2 times in one generation'] },
  },
  {
    title: 'a watch gap on pods over the two releases (reference driver)',
    recording: 'recorded-reference',
    edit: (t) => withGap(t, 'pods', released(t, 'supervisor'), released(t, 'workload')),
    gap: true,
    expect: { [I.supervisorReleasedFirst.id]: 'INCONCLUSIVE' },
  },
  { title: 'the early Ready report with a watch gap on pods over the supervisor turning Ready', recording: 'recorded-defect-ready-before-supervisor', edit: (t) => withGap(t, 'pods', ready(t, 'supervisor')), gap: true, expect: { [I.readyAfterSupervisorReady.id]: 'INCONCLUSIVE' } },
  { title: 'a watch gap on pods while the workload runs (reference driver)', recording: 'recorded-reference', edit: (t) => withGap(t, 'pods', running(t, 'workload')), gap: true, expect: { [I.mainRunsOnce.id]: 'INCONCLUSIVE' } },
  {
    title: 'the early Ready report with its step marks unstamped: the late supervisor Ready cannot be placed',
    recording: 'recorded-defect-ready-before-supervisor',
    edit: unstamped,
    expect: { [I.readyAfterSupervisorReady.id]: 'INCONCLUSIVE' },
    says: { [I.readyAfterSupervisorReady.id]: ['carries no cluster revision'] },
  },
  {
    title: 'a recording without scheduling gates and readiness (made before the recorder kept them)',
    recording: 'recorded-reference',
    edit: (t) => ({ ...t, entries: t.entries.map((e) => (isObject(e) ? { ...e, schedulingGates: undefined, ready: undefined } : e)) }),
    expect: { [I.supervisorReleasedFirst.id]: 'INCONCLUSIVE', [I.readyAfterSupervisorReady.id]: 'INCONCLUSIVE', [I.mainRunsOnce.id]: 'PASS' },
    says: { [I.supervisorReleasedFirst.id]: ['carries no scheduling gates'], [I.readyAfterSupervisorReady.id]: ['carries no Pod readiness'] },
  },
  { title: 'no start at all (no running Sandbox spec)', recording: 'recorded-reference', edit: (t) => without(t, (e) => isObject(e) && e.resource === 'sandboxes' && !e.sandbox?.suspended), expect: every('INCONCLUSIVE') },
  { title: 'the reference driver: create, stop, start, start again (refused: FAILED_PRECONDITION, nothing installed)', recording: 'recorded-reference-start-twice', expect: { ...every('PASS'), [R.id]: 'PASS' }, says: { [R.id]: ['answered FAILED_PRECONDITION; no creation, deletion or suspension of its objects inside it'] } },
  {
    title: 'a start of a running sandbox that rotates it: stops it in order and installs a new generation',
    recording: 'recorded-defect-start-rotates-running',
    expect: { [R.id]: 'FAIL' },
    says: { [R.id]: ['answered OK but Pod os-supervisor-', 'Sandbox w7d9a3e--starttwice suspended'] },
  },
  { title: 'start again with a watch gap on pods over it', recording: 'recorded-reference-start-twice', edit: (t) => withGap(t, 'pods', mark(t, 'start again', 'begin'), mark(t, 'start again', 'failed')), gap: true, expect: { [R.id]: 'INCONCLUSIVE' }, says: { [R.id]: ['a watch gap on pods'] } },
  { title: 'the rotating start with its marks unstamped: the changes after its begin cannot be placed', recording: 'recorded-defect-start-rotates-running', edit: unstamped, expect: { [R.id]: 'INCONCLUSIVE' }, says: { [R.id]: ['cannot be placed against its marks'] } },
  {
    title: 'two starts of a stopped sandbox at once (the reference driver: one installs, the other FAILED_PRECONDITION): the racing one is NOT SEEN',
    recording: 'recorded-reference-racing-starts',
    expect: { [I.mainRunsOnce.id]: 'PASS', [I.supervisorReleasedFirst.id]: 'PASS', [R.id]: 'INCONCLUSIVE' },
    says: { [R.id]: ['step "start racing it": it races step "start", a start of the same sandbox'] },
  },
]);
