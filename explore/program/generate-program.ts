/**
 * Seeded call programs: one to three sandboxes (one most often: the cheap runs), each created
 * first, then a few steps of stop / start / delete / get / list, some of them two calls at once.
 * A third of the programs are the lifecycles the scripted scenarios walk (create-stop,
 * stop-start, a repeated stop, a delete of a stopped sandbox, racing starts, a repeated delete),
 * so the search begins where the suite does and goes on from there.
 */
import type { Call, Operation, Program, SandboxSpec, Step } from './program.ts';
import { seededRandom, type Random } from './seeded-random.ts';

const NAMES = ['xa', 'xb', 'xc'];

/** The scenarios' lifecycles, on sandbox 0. `‖` in the comments: calls at once. */
const SCENARIO_LIFECYCLES: readonly Operation[][][] = [
  [['create'], ['stop']], // stop-ordering
  [['create'], ['stop'], ['start']], // restart-persistence
  [['create'], ['stop'], ['stop']], // stop-is-idempotent
  [['create'], ['stop'], ['delete']], // stopped-can-be-deleted
  [['create'], ['delete']], // delete-ready-sandbox
  [['create'], ['stop'], ['start', 'start']], // racing starts
  [['create'], ['delete'], ['delete']], // a repeated delete
];

export interface ProgramOptions {
  /** The lane's driver replicas: with two, some calls are sent to one by index. */
  replicas: number;
  /** The lane's API headroom: a supervisor clean-up longer than it is one of the environments drawn. */
  apiHeadroomSeconds: number;
}

export function generateProgram(seed: number, options: ProgramOptions): Program {
  const random = seededRandom(seed);
  const program = random.chance(1 / 3) ? scenarioLifecycle(random, options) : randomProgram(random, options);
  if (options.replicas > 1) for (const step of program.steps) for (const call of step.calls) if (random.chance(0.3)) call.replica = random.int(0, options.replicas - 1);
  return program;
}

function sandboxSpec(random: Random, index: number, options: ProgramOptions): SandboxSpec {
  const slowCleanupMs = (options.apiHeadroomSeconds + 2) * 1000;
  return {
    name: NAMES[index],
    cleanupMs: random.weighted([
      [0, 6],
      [1_500, 3],
      [slowCleanupMs, 1.5],
    ]),
    slowMainStopMs: random.chance(0.1) ? 3_000 : 0,
  };
}

function scenarioLifecycle(random: Random, options: ProgramOptions): Program {
  const lifecycle = random.pick(SCENARIO_LIFECYCLES);
  return { sandboxes: [sandboxSpec(random, 0, options)], steps: lifecycle.map((ops) => ({ calls: ops.map((op) => ({ op, sandbox: 0 })) })) };
}

function randomProgram(random: Random, options: ProgramOptions): Program {
  const count = random.weighted([
    [1, 6],
    [2, 3],
    [3, 1],
  ]);
  const sandboxes = Array.from({ length: count }, (_, i) => sandboxSpec(random, i, options));
  const all = sandboxes.map((_, i) => i);
  // Created first, together or one after the other.
  const steps: Step[] = random.chance(0.5) ? [{ calls: all.map((sandbox) => ({ op: 'create', sandbox })) }] : all.map((sandbox) => ({ calls: [{ op: 'create', sandbox }] }));
  const length = random.int(1, 5);
  for (let i = 0; i < length; i++) {
    if (random.chance(0.25)) steps.push({ calls: concurrentCalls(random, all) });
    else steps.push({ calls: [singleCall(random, all)] });
  }
  return { sandboxes, steps };
}

function singleCall(random: Random, sandboxes: number[]): Call {
  const op = random.weighted<Operation>([
    ['stop', 4],
    ['start', 3],
    ['delete', 1],
    ['get', 1.5],
    ['list', 0.5],
  ]);
  return op === 'list' ? { op } : { op, sandbox: random.pick(sandboxes) };
}

/**
 * Two calls at once: on two sandboxes (each its own lifecycle call), or the same call twice on
 * one (a racing repeat, whose answer the model knows). Reads stay sequential: what they may
 * answer while another call moves the sandbox is no fixed phase.
 */
function concurrentCalls(random: Random, sandboxes: number[]): Call[] {
  const lifecycle = (): Operation => random.weighted<Operation>([
    ['stop', 3],
    ['start', 2],
    ['delete', 1],
  ]);
  if (sandboxes.length > 1 && random.chance(0.6)) {
    const a = random.pick(sandboxes);
    const b = random.pick(sandboxes.filter((s) => s !== a));
    return [
      { op: lifecycle(), sandbox: a },
      { op: lifecycle(), sandbox: b },
    ];
  }
  const op = lifecycle();
  const sandbox = random.pick(sandboxes);
  return [
    { op, sandbox },
    { op, sandbox },
  ];
}
