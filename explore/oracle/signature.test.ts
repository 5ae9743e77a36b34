import { expect, test } from '@playwright/test';
import type { RunResult } from '../run/run-batch.ts';
import type { Verdict } from '../../timeline/evaluate/verdict.ts';
import type { Timeline } from '../../timeline/model.ts';
import { objectChurn } from './object-churn.ts';
import { differential, signatureOf } from './signature.ts';

const verdict = (id: string, status: Verdict['status'], extra: Partial<Verdict> = {}): Verdict => ({ id, title: id, source: 'test', status, message: '', evidence: [], ...extra }) as Verdict;
const timeline = (...entries: [string, string, string?][]): Timeline => ({
  startedAt: '',
  entries: entries.map(([resource, type, role], seq) => ({ kind: 'object', seq, t: seq, resource, type, role, namespace: 'n', name: `o${seq}`, uid: `u${seq}`, resourceVersion: `${seq}` }) as Timeline['entries'][number]),
});
const calls = [{ step: 0, op: 'create' as const, sandbox: 'xa', ok: true, answer: 'Ready', ms: 1 }];
const run = (extra: Partial<RunResult> = {}): RunResult => ({ id: 'r', status: 'passed', errors: [], verdicts: [], durationMs: 1, outcome: { calls, findings: [], endStates: { xa: 'Ready' } }, timeline: timeline(['sandboxes', 'ADDED'], ['pods', 'ADDED', 'supervisor']), ...extra });

test('the failed invariants first, sorted, a declared violation left out; a pass has no signature', () => {
  expect(signatureOf(run())).toBeUndefined();
  const failed = run({ status: 'failed', verdicts: [verdict('stop/b', 'FAIL'), verdict('stop/a', 'FAIL'), verdict('stop/a', 'FAIL'), verdict('start/x', 'PASS'), verdict('delete/y', 'FAIL', { expectedByTest: true })], outcome: { calls, findings: [{ id: 'model/stop-answer', message: '' }], endStates: {} } });
  expect(signatureOf(failed)).toBe('stop/a+stop/b');
});

test('where every invariant held: the run\'s own findings, then what failed outside them', () => {
  expect(signatureOf(run({ status: 'failed', outcome: { calls, findings: [{ id: 'model/settled-state', message: '' }, { id: 'liveness/convergence', message: '' }], endStates: {} } }))).toBe('liveness/convergence+model/settled-state');
  expect(signatureOf(run({ status: 'failed', outcome: undefined, errors: ['after the fault schedule healed, sandbox xa did not settle within 60 s'] }))).toBe('liveness/convergence');
  expect(signatureOf(run({ status: 'timedOut', outcome: undefined }))).toBe('liveness/test-timeout');
  expect(signatureOf(run({ status: 'skipped' }))).toBeUndefined();
});

test('the differential check: only where every call answered as in the reference; then the end state and the objects made and removed per role', () => {
  const reference = run();
  expect(differential(run(), reference)).toEqual([]);
  const churned = run({ timeline: timeline(['sandboxes', 'ADDED'], ['pods', 'ADDED', 'supervisor'], ['pods', 'DELETED', 'supervisor'], ['pods', 'ADDED', 'supervisor']) });
  expect(differential(churned, reference)).toEqual(['differential/supervisorPod-created', 'differential/supervisorPod-deleted']);
  expect(signatureOf(churned, reference)).toBe('differential/supervisorPod-created+differential/supervisorPod-deleted');
  expect(differential(run({ outcome: { calls, findings: [], endStates: { xa: 'Stopped' } } }), reference)).toEqual(['differential/end-state']);
  // A call answered otherwise than in the reference (a fault made it fail): the histories differ, nothing to compare.
  expect(differential(run({ outcome: { calls: [{ ...calls[0], ok: false, answer: 'UNAVAILABLE' }], findings: [], endStates: { xa: 'absent' } } }), reference)).toEqual([]);
});

test('object churn counts additions and deletions per role, not modifications or what was listed', () => {
  expect(objectChurn(timeline(['sandboxes', 'ADDED'], ['sandboxes', 'MODIFIED'], ['secrets', 'ADDED'], ['secrets', 'DELETED'], ['pods', 'LISTED', 'workload'], ['pods', 'ADDED', 'workload']))).toEqual({
    sandbox: { created: 1, deleted: 0 },
    generationSecrets: { created: 1, deleted: 1 },
    workloadPod: { created: 1, deleted: 0 },
  });
});
