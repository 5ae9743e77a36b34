import type { ObjectEntry, Timeline, TimelineEntry } from '../../../model.ts';
import { entry, goldenCases, withGap, without } from '../test-kit.ts';
import { REPEATED_DELETE as R } from './repeated-delete.ts';
import { DELETE_INVARIANTS as I, deleteFamily } from './delete-family.ts';

const ALL = Object.values(I).map((i) => i.id);
const every = (status: 'PASS' | 'INCONCLUSIVE') => Object.fromEntries(ALL.map((id) => [id, status]));
const isObject = (e: TimelineEntry): e is ObjectEntry => e.kind === 'object';
const supervisorGone = (t: Timeline) => entry(t, (e) => isObject(e) && e.role === 'supervisor' && e.type === 'DELETED', 'of the supervisor Pod going');
const supervisorDeleting = (t: Timeline) => entry(t, (e) => isObject(e) && e.role === 'supervisor' && !!e.deletionTimestamp, 'of the supervisor deletion');
const sandboxDeleting = (t: Timeline) => entry(t, (e) => isObject(e) && e.resource === 'sandboxes' && (!!e.deletionTimestamp || e.type === 'DELETED'), 'of the Sandbox deletion');

/** A step's mark in a recording. */
const mark = (t: Timeline, title: string, status: 'begin' | 'end' | 'failed') => entry(t, (e) => e.kind === 'step' && e.title === title && e.status === status, `marking step "${title}" ${status}`);

goldenCases(deleteFamily, [
  {
    title: 'a running sandbox deleted through the ordered stop first (the reference stop inside delete; a 2 s supervisor clean-up)',
    recording: 'recorded-reference-delete-ordered',
    expect: every('PASS'),
    says: { [I.supervisorExitsClean.id]: ['exited 0'] },
  },
  {
    title: '(f) a running sandbox deleted with background propagation: supervisor and workload go together, the supervisor SIGKILLed',
    recording: 'recorded-defect-f-delete-background',
    expect: { [I.supervisorExitsClean.id]: 'FAIL', [I.supervisorBeforeWorkload.id]: 'FAIL', [I.ownedGone.id]: 'PASS' },
    says: { [I.supervisorExitsClean.id]: ['exited 137'], [I.supervisorBeforeWorkload.id]: ['violated: workload Pod', 'came BEFORE supervisor Pod'] },
  },
  {
    title: 'a delete that leaves the generation Secrets behind (nobody owns them and the driver does not delete them)',
    recording: 'recorded-defect-delete-leaves-secrets',
    expect: { [I.ownedGone.id]: 'FAIL', [I.supervisorExitsClean.id]: 'PASS', [I.supervisorBeforeWorkload.id]: 'PASS' },
    says: { [I.ownedGone.id]: ['past its grace period plus 5 s API headroom', '(deadline 5 s)'] },
  },
  {
    title: 'the leaking delete with the recording cut right after the deletion: inside the deadlines, nothing to say yet',
    recording: 'recorded-defect-delete-leaves-secrets',
    edit: (t) => without(t, (e) => e.t > sandboxDeleting(t).t + 2000),
    expect: { [I.ownedGone.id]: 'INCONCLUSIVE' },
    says: { [I.ownedGone.id]: ['inside their deadlines'] },
  },
  { title: '(f) with a watch gap on pods over the supervisor going', recording: 'recorded-defect-f-delete-background', edit: (t) => withGap(t, 'pods', supervisorGone(t)), gap: true, expect: { [I.supervisorBeforeWorkload.id]: 'INCONCLUSIVE' } },
  {
    title: 'the ordered delete with a watch gap on pods where the supervisor exit would be (its exit entries taken out)',
    recording: 'recorded-reference-delete-ordered',
    edit: (t) => withGap(without(t, (e) => isObject(e) && e.role === 'supervisor' && !!e.containers?.some((c) => c.state === 'terminated')), 'pods', supervisorDeleting(t)),
    gap: true,
    expect: { [I.supervisorExitsClean.id]: 'INCONCLUSIVE' },
  },
  { title: 'the leaking delete with a watch gap on secrets after the deletion', recording: 'recorded-defect-delete-leaves-secrets', edit: (t) => withGap(t, 'secrets', sandboxDeleting(t)), gap: true, expect: { [I.ownedGone.id]: 'INCONCLUSIVE' } },
  { title: 'deleting a stopped sandbox: no supervisor to spare, not an episode', recording: 'recorded-reference-delete-stopped', expect: every('INCONCLUSIVE') },
  { title: 'no delete at all', recording: 'recorded-reference', expect: every('INCONCLUSIVE') },
  { title: 'the reference driver: create, stop, delete, delete again (deleted=false, nothing created)', recording: 'recorded-reference-delete-twice', expect: { [R.id]: 'PASS' }, says: { [R.id]: ['step "delete again" (a delete of sandbox', 'answered OK; no creation of its objects inside it'] } },
  {
    title: 'a delete of a deleted sandbox that fails with INTERNAL (the contract: deleted=false or NOT_FOUND)',
    recording: 'recorded-defect-delete-deleted-fails',
    expect: { [R.id]: 'FAIL' },
    says: { [R.id]: ['answered INTERNAL (delete sandbox failed: no Sandbox to delete); the contract\'s answers: OK or NOT_FOUND'] },
  },
  { title: 'delete again with a watch gap on sandboxes over it', recording: 'recorded-reference-delete-twice', edit: (t) => withGap(t, 'sandboxes', mark(t, 'delete again', 'begin'), mark(t, 'delete again', 'end')), gap: true, expect: { [R.id]: 'INCONCLUSIVE' }, says: { [R.id]: ['a watch gap on sandboxes'] } },
]);
