/**
 * Every external command of the kind provider goes through here: a deadline per kind of step,
 * the environment the provider was given, and one error shape that names the step and the
 * command. Single commands run with execa; the one shell pipeline (`docker save | kind load
 * image-archive`) runs with zx, which quotes the interpolated values and kills the whole
 * pipeline, not only its shell.
 */
import { execa } from 'execa';
import { $ } from 'zx';

/** Deadlines by kind of step (the issue's budget: probes 10 s, build 10 min, load 5 min, install 5 min). */
export const COMMAND_TIMEOUTS_MS = {
  probe: 10_000,
  create: 10 * 60_000,
  build: 10 * 60_000,
  load: 5 * 60_000,
  install: 5 * 60_000,
  delete: 5 * 60_000,
  logs: 5 * 60_000,
} as const;

export type TimeoutKind = keyof typeof COMMAND_TIMEOUTS_MS;
export type Timeouts = Record<TimeoutKind, number>;

/** A failed, missing, stopped or overdue command, with what the user needs to see. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    message: string,
    readonly notFound: boolean,
    /** The command's output (stdout and stderr, interleaved). */
    readonly output = '',
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export interface CommandSpec {
  /** What this command is for, in words: the first thing a failure names. */
  step: string;
  limit: TimeoutKind;
  /** The message when the program is not on PATH. */
  notFound: string;
  /** Each output line (stdout and stderr) as it arrives, e.g. kind's own progress. */
  onLine?: (line: string) => void;
}

/** The last lines of a failed command's output, enough to see why without flooding the report. */
function tail(text: string, lines = 20): string {
  const all = text.trim().split('\n').filter((l) => l.trim() !== '');
  return (all.length > lines ? ['…', ...all.slice(-lines)] : all).join('\n');
}

function duration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

function failure(spec: CommandSpec, shown: string, why: string, output: string, timedOut = false): CommandError {
  return new CommandError(`${spec.step}: \`${shown}\` ${why}${output.trim() ? `:\n${tail(output)}` : ''}`, false, output, timedOut);
}

export class Commands {
  constructor(
    private readonly env: Record<string, string | undefined>,
    readonly timeouts: Timeouts,
    /** Stops the command in flight (Ctrl-C); commands started for clean-up run without it. */
    private readonly signal?: AbortSignal,
  ) {}

  /** The same commands, stopped by `signal`. */
  stoppedBy(signal: AbortSignal | undefined): Commands {
    return new Commands(this.env, this.timeouts, signal);
  }

  /** Runs `file args` to completion and returns its stdout; any failure is a CommandError naming the step. */
  async run(file: string, args: string[], spec: CommandSpec): Promise<string> {
    const shown = [file, ...args].join(' ');
    const ms = this.timeouts[spec.limit];
    const child = execa(file, args, {
      reject: false,
      all: true,
      env: this.env,
      extendEnv: false,
      stdin: 'ignore',
      timeout: ms,
      cancelSignal: this.signal,
    });
    const onLine = spec.onLine;
    if (onLine) {
      let partial = '';
      child.all?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) onLine(line.trimEnd());
      });
    }
    const result = await child;
    if ((result as { code?: string }).code === 'ENOENT') throw new CommandError(spec.notFound, true);
    const output = String(result.all ?? '');
    if (result.timedOut) throw failure(spec, shown, `did not finish within ${duration(ms)} and was stopped`, output, true);
    if (result.isCanceled) throw failure(spec, shown, 'was stopped (interrupted)', output);
    if (result.failed) throw failure(spec, shown, `failed (${result.exitCode === undefined ? result.shortMessage : `exit code ${result.exitCode}`})`, output);
    return String(result.stdout);
  }

  /**
   * Runs a shell pipeline with zx, e.g. pipeline(spec)`docker save ${image} | kind load image-archive /dev/stdin`.
   * pipefail is on (zx's bash prefix), so a failure anywhere in it fails the step.
   */
  pipeline(spec: CommandSpec): (pieces: TemplateStringsArray, ...values: string[]) => Promise<string> {
    return async (pieces, ...values) => {
      const ms = this.timeouts[spec.limit];
      // Our own deadline rather than zx's: zx kills the pipeline's processes children first, so
      // the shell may exit on its own (143) before its kill, and the result cannot tell why.
      let ended: 'deadline' | 'interrupted' | undefined;
      const running = $({ env: this.env, nothrow: true, quiet: true, verbose: false })(pieces, ...values);
      const end = (why: 'deadline' | 'interrupted') => {
        ended ??= why;
        void running.kill();
      };
      const timer = setTimeout(() => end('deadline'), ms);
      const interrupt = () => end('interrupted');
      this.signal?.addEventListener('abort', interrupt, { once: true });
      try {
        const result = await running;
        const shown = running.cmd;
        const output = `${result.stdout}${result.stderr}`;
        if (ended === 'deadline') throw failure(spec, shown, `did not finish within ${duration(ms)} and was stopped`, output, true);
        if (ended === 'interrupted') throw failure(spec, shown, 'was stopped (interrupted)', output);
        if (result.exitCode === 0) return result.stdout;
        // bash reports a program it cannot find as exit code 127.
        if (result.exitCode === 127) throw new CommandError(`${spec.notFound} (in \`${shown}\`)`, true, output);
        throw failure(spec, shown, `failed (exit code ${result.exitCode})`, output);
      } finally {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', interrupt);
      }
    };
  }
}
