import { expect, test } from '@playwright/test';
import { created, deleteRequested, gone, started, written } from '../derive/facts.ts';
import { derive } from '../derive/histories.ts';
import type { ObjectEntry, Timeline, TimelineEntry } from '../model.ts';
import { verdictsAsText } from '../render/text.ts';
import { happens, happensBefore, happensTimes, neverHappens } from './assertions.ts';
import { entry, recording, SETTINGS, withGap } from './families/test-kit.ts';

/** The recording as the fixture leaves it: brought up to date with the cluster after its last entry. */
const complete = (t: Timeline): Timeline => ({ ...t, caughtUp: { afterSeq: Math.max(...t.entries.map((e) => e.seq)) + 1, revision: 'end' } });
const isObject = (e: TimelineEntry): e is ObjectEntry => e.kind === 'object';
const judge = (t: Timeline, assertion: ReturnType<typeof happensTimes>) => assertion.evaluate(derive(t), SETTINGS);
/** create, stop, start (the reference driver): one supervisor Pod per generation. */
const restart = () => complete(recording('recorded-reference-restart'));

test('order: a pair in commit order; the violated pair reported', () => {
  const order = happensBefore(gone({ role: 'supervisor' }), deleteRequested({ role: 'workload' }));
  expect(judge(recording('recorded-reference'), order).map((v) => v.status)).toEqual(['PASS']);
  const [violated] = judge(recording('recorded-suspend-first'), order);
  expect(violated.status).toBe('FAIL');
  expect(violated.pair).toHaveLength(2);
  expect(violated.message).toContain('violated: workload Pod deletion requested');
});

test('a count during a step: the objects created inside that step only', () => {
  const [during] = judge(restart(), happensTimes(created({ role: 'supervisor' }), 1, { during: 'start' }));
  expect(during.status).toBe('PASS');
  expect(during.message).toMatch(/^supervisor Pod created during step "start": 1 time\(s\), at rv \d+$/);
  expect(judge(restart(), happensTimes(created({ role: 'supervisor' }), 0, { during: 'stop' }))[0].status).toBe('PASS');
  expect(judge(restart(), happensTimes(created({ role: 'supervisor' }), 2))[0].status, 'the whole recording: create and start').toBe('PASS');
});

test('a count that comes up short with a complete recording is a FAIL: what was asserted, the step, one word, the timeline', () => {
  const verdicts = judge(restart(), happensTimes(created({ role: 'supervisor' }), 2, { during: 'start' }));
  expect(verdicts.map((v) => v.status)).toEqual(['FAIL']);
  const text = verdictsAsText(verdicts);
  expect(text.split('\n')[0]).toBe('FAIL count/supervisor Pod created during "start": supervisor Pod created happens 2 time(s) during step "start"');
  expect(text).toMatch(/\n  violated: supervisor Pod created happened 1 time\(s\) during step "start", expected 2: at rv \d+\n  timeline:\n/);
  expect(text).toMatch(/Step +start +BEGIN/);
  expect(text).toMatch(/Step +start +END/);
  expect(text).toContain('<- supervisor Pod created');
  expect(text.match(/INCONCLUSIVE|FAIL/g), 'one word per verdict').toEqual(['FAIL']);
  expect(text).not.toContain('why it matters');
});

test('a count in excess is a FAIL with the timeline, whatever the recording may have missed', () => {
  const [excess] = judge(recording('recorded-reference-restart'), happensTimes(created({ role: 'supervisor' }), 0, { during: 'start' }));
  expect(excess.status).toBe('FAIL');
  expect(excess.message).toContain('violated: supervisor Pod created happened 1 time(s) during step "start", expected 0');
  expect(excess.message).toContain('  timeline:\n');
  expect(excess.evidence).toHaveLength(1);
});

test('a short count the recording cannot vouch for is INCONCLUSIVE, saying why: a watch gap, or not brought up to date', () => {
  const t = restart();
  const start = entry(t, (e) => e.kind === 'step' && e.title === 'start' && e.status === 'begin', 'beginning the start');
  const [gap] = judge(withGap(t, 'pods', start), happensTimes(created({ role: 'supervisor' }), 2, { during: 'start' }));
  expect(gap.status).toBe('INCONCLUSIVE');
  expect(gap.message).toMatch(/^count\/supervisor Pod created during "start": supervisor Pod created happens 2 time\(s\) during step "start"\n  cannot tell: seen 1 time\(s\), at rv \d+, and a watch gap on pods/);
  const [stale] = judge(recording('recorded-reference-restart'), happensTimes(created({ role: 'supervisor' }), 2, { during: 'start' }));
  expect(stale.status).toBe('INCONCLUSIVE');
  expect(stale.message).toContain('the recording was not brought up to date with the cluster after it');
  expect(verdictsAsText([stale]).match(/INCONCLUSIVE/g), 'one word per verdict').toHaveLength(1);
});

test('a change the step marks cannot place (no cluster revision, arrived after the mark) makes a count INCONCLUSIVE', () => {
  const t = restart();
  const unstamped = { ...t, entries: t.entries.map((e) => (e.kind === 'step' ? { ...e, clusterRevision: undefined } : e)) };
  // The supervisor Pod's creation received only after the start's begin mark: nothing can tell which side it lies.
  const [verdict] = judge(unstamped, happensTimes(created({ role: 'supervisor' }), 1, { during: 'start' }));
  expect(verdict.status).toBe('INCONCLUSIVE');
  expect(verdict.message).toContain('cannot be placed against the step\'s marks');
});

test('never during a step, and happens during a step', () => {
  expect(judge(restart(), neverHappens(created({ role: 'supervisor' }), { during: 'stop' }))[0].status).toBe('PASS');
  const [created_] = judge(restart(), neverHappens(created({ role: 'workload' }), { during: 'start' }));
  expect(created_.status).toBe('FAIL');
  expect(created_.message).toMatch(/^never\/workload Pod created during "start": workload Pod created never happens during step "start"\n  violated: workload Pod created happened 1 time\(s\) during step "start"/);
  expect(judge(restart(), happens(deleteRequested({ role: 'supervisor' }), { during: 'stop' }))[0].status).toBe('PASS');
  const [absent] = judge(restart(), happens(deleteRequested({ role: 'supervisor' }), { during: 'start' }));
  expect(absent.status).toBe('FAIL');
  expect(absent.message).toContain('violated: supervisor Pod deletion requested did not happen during step "start"');
  expect(neverHappens(gone({ role: 'supervisor' })).settles).toBe(false);
});

test('nothing of a sandbox written during a step: every change that gave its objects a new resourceVersion counts', () => {
  const t = restart();
  const id = t.entries.find((e): e is ObjectEntry => isObject(e) && e.resource === 'sandboxes')!.sandboxId!;
  const [writes] = judge(t, neverHappens(written({ sandbox: id }), { during: 'stop' }));
  expect(writes.status).toBe('FAIL');
  expect(writes.message).toContain(`never/object of sandbox ${id} written during "stop"`);
  expect(judge(t, neverHappens(written({ sandbox: { id: 'another' } }), { during: 'stop' }))[0].status, 'another sandbox\'s objects').toBe('PASS');
});

test('a step that is not in the recording: INCONCLUSIVE, naming the steps there are', () => {
  const [verdict] = judge(restart(), happensTimes(started({ role: 'workload' }), 1, { during: 'stop again' }));
  expect(verdict.status).toBe('INCONCLUSIVE');
  expect(verdict.message).toContain('cannot tell: no step is titled "stop again" in the recording (its steps: "create the sandbox", "write a sentinel into the workspace", "stop", "exec fails while stopped", "start", "read the sentinel and the run record back")');
});
