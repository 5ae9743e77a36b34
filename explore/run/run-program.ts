/**
 * Runs a call program through the fixtures a scenario uses — the sandboxes fixture creates,
 * the driver (or one replica) serves, the timeline records a step per program step — and checks
 * it as it goes against the lifecycle model. After the last step the fault phase ends, and the
 * sandboxes must settle within the convergence window (one reconciliation pass asked of the
 * driver, as the schedule fixture does) in a state the calls imply.
 */
import type { DriverControl, HarnessDriver, Sandboxes, ScheduleControl, TestTimeline } from '../../fixtures/conformance.ts';
import { bootstrapsCutByFaults } from '../../fixtures/fault-schedule.ts';
import { describeStates, judgeCall, settledAs, type Answer, type ModelState } from '../program/lifecycle-model.ts';
import type { Call, Program, SandboxSpec } from '../program/program.ts';
import type { CallRecord, Finding, RunOutcome } from './run-outcome.ts';

/** Each call's deadline: far beyond any fault's delay, so running out is a liveness failure, not a slow cluster. */
const CALL_DEADLINE_MS = 45_000;
/**
 * The convergence window after a fault schedule (the schedule fixture's): the driver may need
 * its reconciliation to finish what the faults cut short. Without faults there is nothing to
 * finish — every call answered — so a sandbox still moving after a short wait is already wrong,
 * and a failing fault-free run (a defect every reference run shows) does not sit out a minute.
 */
const CONVERGENCE_MS = { faulted: 60_000, faultFree: 10_000 };
/** A main command that keeps running, and one that ignores SIGTERM (its Pod lingers terminating until the workload kills it). */
const MAIN_COMMAND = ['sh', '-c', 'exec sleep 100000'];
const SLOW_TO_STOP_COMMAND = ['sh', '-c', 'trap "" TERM; exec sleep 100000'];
/** A supervisor grace with room for the longest clean-up the generator draws, plus the supervisor's own request timeout. */
const SUPERVISOR_GRACE_SECONDS = 15;

export interface ProgramFixtures {
  sandboxes: Sandboxes;
  driverControl: DriverControl;
  timeline: TestTimeline;
  schedule: ScheduleControl;
}

export async function runProgram(program: Program, { sandboxes, driverControl, timeline, schedule }: ProgramFixtures): Promise<RunOutcome> {
  const faulted = schedule.running;
  const ids = new Map<number, string>();
  const states = program.sandboxes.map(() => new Set<ModelState>(['absent']));
  const calls: CallRecord[] = [];
  const findings: Finding[] = [];
  const nameOf = (i: number | undefined) => (i === undefined ? undefined : program.sandboxes[i].name);

  const driverFor = async (call: Call): Promise<HarnessDriver> => (call.replica === undefined || call.replica >= driverControl.replicas ? driverControl.current() : driverControl.replica(call.replica));
  const perform = async (call: Call): Promise<Answer> => {
    const deadline = Date.now() + CALL_DEADLINE_MS;
    try {
      if (call.op === 'create') {
        // Through the sandboxes fixture (it keeps what the test made, for the recording and the
        // clean-up), under the call's deadline, so running out names the stage the create was at.
        const sandbox = await sandboxes.create(request(program.sandboxes[call.sandbox!]), { deadline });
        ids.set(call.sandbox!, sandbox.id);
        return { ok: true, phase: sandbox.phase };
      }
      const driver = await driverFor(call);
      if (call.op === 'list') return { ok: true, phase: (await driver.list({ deadline })).length.toString() };
      const id = await idOf(call.sandbox!);
      switch (call.op) {
        case 'delete':
          return { ok: true, deleted: await driver.delete(id, { deadline }) };
        case 'get':
          return { ok: true, phase: (await driver.get(id, { deadline })).phase };
        default:
          return { ok: true, phase: (await driver[call.op](id, { deadline })).phase };
      }
    } catch (error) {
      const { code, message } = error as Error & { code?: string };
      return { ok: false, code, message };
    }
  };
  // A create that failed under a fault may still have made the sandbox: found by name, as the sandboxes fixture finds it for clean-up.
  const idOf = async (index: number): Promise<string> => {
    const known = ids.get(index);
    if (known) return known;
    const listed = (await (await driverControl.current()).list()).find((s) => s.name === program.sandboxes[index].name);
    if (listed) ids.set(index, listed.id);
    return listed?.id ?? `never-created-${program.sandboxes[index].name}`;
  };

  // The sandboxes (by name) whose create or start a fault cut short, in flight since: they may
  // stay Provisioning until the driver's bootstrap grace (the schedule fixture's rule, fixtures/fault-schedule.ts).
  const inFlight = () => {
    const cut = bootstrapsCutByFaults(timeline.snapshot().entries);
    return new Set(driverControl.routes().flatMap((r) => (r.operation === 'create' && r.sandboxId && cut.has(r.sandboxId) && r.sandboxName ? [r.sandboxName] : [])));
  };

  for (const [index, step] of program.steps.entries()) {
    // A call stuck past its deadline decided the run; what follows would only wait on it.
    if (findings.some((f) => f.id.endsWith('-deadline'))) break;
    const title = step.calls.map((c) => `${c.sandbox === undefined ? '' : `${nameOf(c.sandbox)}:`}${c.op}`).join(' ‖ ');
    const before = states.map((s) => new Set(s));
    // The step fails when a call of it failed, with that call's code: the rules judge a call that returned apart from one that did not.
    let answers: { call: Call; answer: Answer; ms: number }[] = [];
    await timeline
      .step(`step ${index + 1}: ${title}`, async () => {
        answers = await Promise.all(
          step.calls.map(async (call) => {
            const begun = Date.now();
            const answer = await perform(call);
            return { call, answer, ms: Date.now() - begun };
          }),
        );
        const failed = answers.find((a) => !a.answer.ok)?.answer;
        if (failed && !failed.ok) throw Object.assign(new Error(failed.message), { code: failed.code });
      })
      .catch(() => undefined);
    const after = new Map<number, Set<ModelState>>();
    const provisioning = inFlight();
    for (const { call, answer, ms } of answers) {
      calls.push({ step: index, op: call.op, sandbox: nameOf(call.sandbox), ok: answer.ok, answer: answer.ok ? (answer.deleted !== undefined ? `deleted=${answer.deleted}` : (answer.phase ?? 'OK')) : (answer.code ?? 'error'), ms });
      if (call.op === 'list') {
        if (!answer.ok && answer.code === 'DEADLINE_EXCEEDED') findings.push({ id: 'liveness/list-deadline', message: answer.message });
        continue;
      }
      // A create or start the driver's death cut short is in flight until its bootstrap grace: `get` may show it so.
      if (call.op === 'get' && answer.ok && answer.phase === 'Provisioning' && provisioning.has(nameOf(call.sandbox)!)) {
        after.set(call.sandbox!, new Set([...(after.get(call.sandbox!) ?? []), ...before[call.sandbox!]]));
        continue;
      }
      const racing = step.calls.filter((c) => c.sandbox === call.sandbox && c.op === call.op).length > 1;
      const judged = judgeCall(call.op, before[call.sandbox!], answer, faulted, racing);
      if (judged.violation) findings.push({ id: !answer.ok && answer.code === 'DEADLINE_EXCEEDED' ? `liveness/${call.op}-deadline` : `model/${call.op}-answer`, message: `${nameOf(call.sandbox)}, step ${index + 1}: ${judged.violation}` });
      // Calls at once on one sandbox: it may be where any of them left it.
      after.set(call.sandbox!, new Set([...(after.get(call.sandbox!) ?? []), ...judged.next]));
    }
    for (const [sandbox, next] of after) states[sandbox] = next;
  }

  await schedule.end();
  if (findings.some((f) => f.id.endsWith('-deadline'))) return { calls, findings, endStates: {} };
  const provisioning = inFlight();
  const endStates = await settle(program, ids, driverControl, findings, faulted ? CONVERGENCE_MS.faulted : CONVERGENCE_MS.faultFree, provisioning);
  for (const [i, sandbox] of program.sandboxes.entries()) {
    const ended = endStates[sandbox.name];
    if (ended === 'Provisioning' && provisioning.has(sandbox.name)) continue;
    if (ended !== undefined && !settledAs(states[i], ended)) findings.push({ id: 'model/settled-state', message: `${sandbox.name}: after the convergence window get answers ${ended}, where the calls imply ${describeStates(states[i])}` });
  }
  return { calls, findings, endStates };
}

function request(spec: SandboxSpec) {
  const environment: Record<string, string> = {};
  if (spec.cleanupMs) environment.CLEANUP_DURATION_MS = String(spec.cleanupMs);
  if (spec.slowMainStopMs) environment.MAIN_STOP_GRACE_MS = String(spec.slowMainStopMs);
  return { name: spec.name, command: spec.slowMainStopMs ? SLOW_TO_STOP_COMMAND : MAIN_COMMAND, environment, supervisorGraceSeconds: SUPERVISOR_GRACE_SECONDS };
}

/**
 * The convergence window: every sandbox the program made settles (Ready, Stopped, Error, or
 * gone) within the window with no new call but one reconciliation pass; then what `get` answers of
 * each. A sandbox still moving at the end is `liveness/convergence` — but for one whose create or
 * start the driver's death cut short, which may stay Provisioning until the driver's bootstrap grace.
 */
async function settle(program: Program, ids: Map<number, string>, driverControl: DriverControl, findings: Finding[], windowMs: number, inFlight: ReadonlySet<string>): Promise<Record<string, string>> {
  const deadline = Date.now() + windowMs;
  let reconciled = false;
  for (;;) {
    const listed = await (await driverControl.current()).list({ deadline: Math.min(deadline, Date.now() + 10_000) }).catch(() => undefined);
    const mine = listed?.filter((s) => program.sandboxes.some((p) => p.name === s.name)) ?? [];
    const unsettled = mine.filter((s) => (!['Ready', 'Stopped', 'Error'].includes(s.phase) && !(inFlight.has(s.name) && s.phase === 'Provisioning')) || s.deleting);
    if (listed && !unsettled.length) break;
    if (Date.now() > deadline) {
      findings.push({ id: 'liveness/convergence', message: `after the faults healed, ${unsettled.map((s) => `${s.name} (${s.phase}${s.deleting ? ', deleting' : ''})`).join(', ') || 'the driver'} did not settle within ${windowMs / 1000} s` });
      break;
    }
    if (!reconciled) {
      reconciled = true;
      await driverControl.reconcile().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const ended: Record<string, string> = {};
  const driver = await driverControl.current();
  for (const [i, spec] of program.sandboxes.entries()) {
    const id = ids.get(i) ?? (await driver.list().catch(() => [])).find((s) => s.name === spec.name)?.id;
    if (id === undefined) {
      ended[spec.name] = 'absent';
      continue;
    }
    ended[spec.name] = await driver.get(id, { deadline: Date.now() + 10_000 }).then(
      (s) => s.phase,
      (error: Error & { code?: string }) => (error.code === 'NOT_FOUND' ? 'absent' : `unanswered (${error.code ?? error.message})`),
    );
  }
  return ended;
}
