/**
 * The model of create / stop / start / delete that says what a driver must answer: each sandbox
 * is in one of a set of states (one when every call so far answered; more once a call failed
 * under a fault, since it may have taken effect or not). Answers follow
 * scenarios/sandbox-lifecycle/README.md: a repeated stop answers Stopped, a start of a running
 * sandbox answers Ready or FAILED_PRECONDITION, a delete of a deleted one false or NOT_FOUND, a
 * stop or start of a missing one NOT_FOUND.
 */
import type { Operation } from './program.ts';

export type ModelState = 'absent' | 'Ready' | 'Stopped';

/** What a call answered, as the gateway returned it. */
export type Answer = { ok: true; phase?: string; deleted?: boolean } | { ok: false; code?: string; message: string };

/** The model's judgement of one answer: the states after it, and the reason when the answer is one the model forbids. */
export interface Judged {
  next: Set<ModelState>;
  violation?: string;
}

const PHASE_OF: Record<Exclude<ModelState, 'absent'>, string> = { Ready: 'Ready', Stopped: 'Stopped' };

/** The state a successful call leaves a sandbox in, from `from`; undefined when success is not an answer the call may give. */
function successFrom(op: Operation, from: ModelState): ModelState | undefined {
  switch (op) {
    case 'create':
      return from === 'absent' ? 'Ready' : undefined;
    case 'stop':
      return from === 'absent' ? undefined : 'Stopped';
    case 'start':
      return from === 'absent' ? undefined : 'Ready';
    case 'delete':
      return 'absent';
    default:
      return from;
  }
}

/** Whether a failure with `code` is the answer the contract gives for `op` from `from` (a refusal that changes nothing). */
function refusalFrom(op: Operation, from: ModelState, code: string | undefined): boolean {
  if (from === 'absent') return (op === 'stop' || op === 'start' || op === 'get' || op === 'delete') && code === 'NOT_FOUND';
  if (op === 'create') return code === 'ALREADY_EXISTS';
  if (op === 'start' && from === 'Ready') return code === 'FAILED_PRECONDITION';
  return false;
}

/**
 * Judges one lifecycle call's answer against the states the sandbox may be in. `faulted`: the run
 * has a fault schedule, so a call may fail for the fault's sake (an error the API server sent, a
 * crash): the sandbox may then be where the call would have taken it, or where it was. A call
 * that ran out of its deadline is never excused: it names the stage it was stuck in. `racing`:
 * another call of the same kind on the same sandbox ran at once.
 */
export function judgeCall(op: Operation, states: ReadonlySet<ModelState>, answer: Answer, faulted: boolean, racing = false): Judged {
  const from = [...states];
  // Two of the same call at once: the one that loses the race may find the other's work under way or done.
  // (Not under faults: the other start may have failed as well, as a fault-free race never lets it.)
  if (racing && !faulted && op === 'start' && !answer.ok && answer.code === 'FAILED_PRECONDITION') return { next: new Set(from.map((s) => (s === 'absent' ? s : 'Ready'))) };
  if (racing && op === 'delete' && (answer.ok ? answer.deleted === false : answer.code === 'NOT_FOUND')) return { next: new Set<ModelState>(['absent']) };
  // Under faults, a read while a call the faults cut short is still settling may show the sandbox between phases.
  if (op === 'get' && answer.ok && faulted && states.size > 1) return { next: new Set(states) };
  // Under faults a delete may stop the sandbox and then fail, or find it changed by another writer and leave it (`deleted=false`): it stops first (driver/kubernetes/delete.ts).
  const partlyDeleted = (): Set<ModelState> => new Set<ModelState>([...states, ...from.flatMap((s): ModelState[] => (s === 'absent' ? [] : ['Stopped', 'absent']))]);
  if (op === 'delete' && faulted && (answer.ok ? answer.deleted === false : answer.code !== 'DEADLINE_EXCEEDED')) return { next: partlyDeleted() };
  if (answer.ok) {
    const next = new Set<ModelState>();
    for (const s of from) {
      const to = successFrom(op, s);
      if (to === undefined) continue;
      if (op === 'delete' && (s === 'absent') === answer.deleted) continue;
      if (op === 'get' && answer.phase !== undefined && (s === 'absent' || PHASE_OF[s] !== answer.phase)) continue;
      next.add(to);
    }
    if (next.size) return { next };
    return { next: new Set(states), violation: `${op} answered ${describe(answer)}, where the calls before imply ${describeStates(states)}` };
  }
  if (answer.code === 'DEADLINE_EXCEEDED') return { next: new Set(states), violation: `${op} did not return within its deadline: ${answer.message}` };
  const refused = from.filter((s) => refusalFrom(op, s, answer.code));
  if (refused.length && !faulted) return { next: new Set(refused) };
  if (faulted) {
    // Under faults a refusal's code is no proof of the refusal: a start that first finishes an
    // interrupted stop fails FAILED_PRECONDITION when the stop's own write is denied, as a start
    // of a running sandbox would. So the sandbox may be anywhere a refusal or a failure leaves it.
    const next = new Set<ModelState>(states);
    for (const s of from) {
      const to = successFrom(op, s);
      if (to !== undefined) next.add(to);
    }
    return { next };
  }
  return { next: new Set(states), violation: `${op} failed (${answer.code ?? 'no code'}: ${answer.message}), where the calls before imply ${describeStates(states)} and no fault was scheduled` };
}

/** Whether what `get` answers after the convergence window (a phase, or NOT_FOUND as `absent`) is one the calls imply. */
export function settledAs(states: ReadonlySet<ModelState>, answered: ModelState | string): boolean {
  return [...states].some((s) => s === answered);
}

export function describeStates(states: ReadonlySet<ModelState>): string {
  return [...states].join(' or ');
}

function describe(answer: Answer): string {
  if (!answer.ok) return `${answer.code}`;
  if (answer.deleted !== undefined) return `deleted=${answer.deleted}`;
  return answer.phase ?? 'OK';
}
