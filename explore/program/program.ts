/**
 * A call program: what one exploration run asks of the driver, as data (JSON in a batch file and
 * in a finding's original.json), so the same program replays in any run and shrinks by editing.
 * Sandboxes are named by the program (`xa`, `xb`, `xc`), never by ids the driver mints.
 */

/** The lifecycle calls a program makes, one per gateway method. */
export type Operation = 'create' | 'stop' | 'start' | 'delete' | 'get' | 'list';

/** One call: the operation, the sandbox it names (an index into `sandboxes`; none for `list`), and the replica it goes to where the lane runs several. */
export interface Call {
  op: Operation;
  sandbox?: number;
  replica?: number;
}

/** A step: its calls run at once (one call: sequential); the next step begins when every call of this one has returned or failed. */
export interface Step {
  calls: Call[];
}

/**
 * How a sandbox behaves while it runs: how long its supervisor's clean-up takes after the Pod's
 * deletion (0: at once) and whether its main command ignores SIGTERM for a while (the workload
 * Pod then lingers terminating). Both are switches of the fixture programs.
 */
export interface SandboxSpec {
  name: string;
  cleanupMs: number;
  slowMainStopMs: number;
}

export interface Program {
  sandboxes: SandboxSpec[];
  steps: Step[];
}

/** The text form of a program, for progress lines and summaries: `xa:create; xa:stop ‖ xb:stop; list`. */
export function describeProgram(program: Program): string {
  const call = (c: Call) => `${c.sandbox === undefined ? '' : `${program.sandboxes[c.sandbox]?.name ?? `#${c.sandbox}`}:`}${c.op}${c.replica === undefined ? '' : `@r${c.replica}`}`;
  return program.steps.map((s) => s.calls.map(call).join(' ‖ ')).join('; ');
}

/** How many calls a program makes (the size the shrinker reports). */
export function callCount(program: Program): number {
  return program.steps.reduce((n, s) => n + s.calls.length, 0);
}
