/**
 * The search's one line of progress: runs done, failures by signature, what the shrinker is
 * doing. On a terminal the line is redrawn in place; anywhere else (CI logs, a pipe) a plain
 * line is printed each time it changes, so a log reads as a history.
 */
import { createLogUpdate } from 'log-update';

export interface SearchState {
  /** Fault runs judged, and fault-free reference runs. */
  runsDone: number;
  references: number;
  runsPlanned?: number;
  /** Failing runs so far, by signature. */
  failures: Map<string, number>;
  /** What runs now: `reference runs 2/4`, `shrinking stop/x: ddmin over 4 items 3/8`. */
  activity: string;
}

export function describeSearch(state: SearchState, elapsedMs: number): string {
  const failures = state.failures.size ? [...state.failures].map(([s, n]) => `${s} ×${n}`).join(', ') : 'none';
  return `[${Math.round(elapsedMs / 1000)} s] fault runs ${state.runsDone}${state.runsPlanned ? `/${state.runsPlanned}` : ''} (+${state.references} reference) · failures: ${failures} · ${state.activity}`;
}

export class SearchProgress {
  private readonly started = Date.now();
  private readonly draw?: ReturnType<typeof createLogUpdate>;
  private printed = '';

  constructor(
    readonly state: SearchState,
    private readonly stream: NodeJS.WriteStream = process.stdout,
  ) {
    if (stream.isTTY) this.draw = createLogUpdate(stream);
  }

  update(change: Partial<SearchState> = {}): void {
    Object.assign(this.state, change);
    const line = describeSearch(this.state, Date.now() - this.started);
    if (this.draw) return this.draw(line);
    // Without a terminal: a line only when something but the clock changed.
    const key = line.replace(/^\[\d+ s\] /, '');
    if (key !== this.printed) this.stream.write(`${line}\n`);
    this.printed = key;
  }

  done(): void {
    this.draw?.done();
  }
}
