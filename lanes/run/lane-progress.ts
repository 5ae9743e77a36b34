/**
 * One progress line per lane while lanes run side by side: on a terminal the block of lines is
 * redrawn in place (log-update, which handles the cursor and lines wider than the terminal);
 * anywhere else (CI logs, a pipe) one plain line is printed each time a lane's state changes,
 * so a log reads as a history and never holds control characters.
 */
import { createLogUpdate } from 'log-update';

export type LanePhase = 'waiting' | 'cluster' | 'setup' | 'scenarios' | 'teardown' | 'passed' | 'failed';

export interface LaneState {
  phase: LanePhase;
  /** Scenarios: how many tests Playwright announced, and how each finished so far. */
  tests?: { total?: number; passed: number; failed: number; skipped: number };
}

const PHASE_TEXT: Record<LanePhase, string> = {
  waiting: 'waiting',
  cluster: 'bringing the cluster up',
  setup: 'setting the lane up',
  scenarios: 'running scenarios',
  teardown: 'tearing down',
  passed: 'passed',
  failed: 'FAILED',
};

/** `running scenarios 3/8 (1 failed)`: what a lane's line says, without its clock. */
export function describeLaneState(state: LaneState): string {
  const t = state.tests;
  if (!t) return PHASE_TEXT[state.phase];
  const done = t.passed + t.failed + t.skipped;
  const counts = [t.failed ? `${t.failed} failed` : '', t.skipped ? `${t.skipped} skipped` : ''].filter(Boolean).join(', ');
  return `${PHASE_TEXT[state.phase]} ${done}/${t.total ?? '?'}${counts ? ` (${counts})` : ''}`;
}

/**
 * Reads a lane's Playwright output (the `list` reporter without a terminal: one line per
 * finished test) into test counts. Returns true when the line changed them.
 */
export function countTestLine(line: string, tests: NonNullable<LaneState['tests']>): boolean {
  const running = /^Running (\d+) tests? using/.exec(line);
  if (running) {
    tests.total = Number(running[1]);
    return true;
  }
  const finished = /^\s+(✓|✘|-|ok|x)\s+\d+ \[/.exec(line);
  if (!finished) return false;
  if (finished[1] === '✓' || finished[1] === 'ok') tests.passed++;
  else if (finished[1] === '-') tests.skipped++;
  else tests.failed++;
  return true;
}

export class LaneProgress {
  private readonly states = new Map<string, { state: LaneState; since: number; printed?: string }>();
  private readonly started = Date.now();
  private readonly width: number;
  private readonly draw?: ReturnType<typeof createLogUpdate>;
  private readonly ticker?: NodeJS.Timeout;

  constructor(
    lanes: readonly string[],
    private readonly stream: NodeJS.WriteStream = process.stdout,
  ) {
    this.width = Math.max(...lanes.map((l) => l.length));
    for (const lane of lanes) this.states.set(lane, { state: { phase: 'waiting' }, since: Date.now() });
    if (stream.isTTY) {
      this.draw = createLogUpdate(stream);
      // The clocks move while nothing else does.
      this.ticker = setInterval(() => this.redraw(), 1000);
      this.ticker.unref();
      this.redraw();
    }
  }

  update(lane: string, state: LaneState): void {
    const entry = this.states.get(lane)!;
    if (entry.state.phase !== state.phase) entry.since = Date.now();
    entry.state = { ...state, tests: state.tests && { ...state.tests } };
    if (this.draw) return this.redraw();
    const text = describeLaneState(state);
    if (text === entry.printed) return;
    entry.printed = text;
    this.stream.write(`[${lane}] ${text} (+${((Date.now() - this.started) / 1000).toFixed(1)}s)\n`);
  }

  /** Leaves the last drawing on screen; later output goes below it. */
  done(): void {
    if (this.ticker) clearInterval(this.ticker);
    if (this.draw) {
      this.redraw();
      this.draw.done();
    }
  }

  private redraw(): void {
    const lines = [...this.states].map(([lane, { state, since }]) => {
      const finished = state.phase === 'passed' || state.phase === 'failed';
      return `${lane.padEnd(this.width)}  ${describeLaneState(state)}${finished ? '' : `  ${seconds(Date.now() - since)}`}`;
    });
    this.draw?.([`lanes (+${seconds(Date.now() - this.started)})`, ...lines].join('\n'));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(0)}s`;
