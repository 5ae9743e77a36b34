import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { ContainerLog } from './container-logs.ts';

export interface ProcessSpec {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdin?: boolean;
}

export interface ProcessExit {
  exitCode: number;
  signal?: string;
}

/** A failure to start (command not found, not executable): the kubelet's StartError. */
export class StartError extends Error {}

/**
 * Container processes as host processes. Each runs in its own process group, so signals reach
 * a shell and everything it started, as they reach every process of a container.
 */
export class RunningProcess {
  readonly exited: Promise<ProcessExit>;
  private exitedWith?: ProcessExit;

  private constructor(private readonly child: ChildProcess, log: ContainerLog) {
    child.stdout?.on('data', (chunk: Buffer) => log.append(chunk));
    child.stderr?.on('data', (chunk: Buffer) => log.append(chunk));
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        log.end();
        // A signal death reads as 128 + signal number, as container runtimes report it (SIGKILL -> 137).
        this.exitedWith = signal ? { exitCode: 128 + (constants.signals[signal] ?? 0), signal } : { exitCode: code ?? 0 };
        resolve(this.exitedWith);
      });
    });
  }

  /** Starts the process; rejects with StartError when it cannot be executed at all. */
  static start(spec: ProcessSpec, log: ContainerLog): Promise<RunningProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(spec.argv[0], spec.argv.slice(1), {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        const reason = error.code === 'ENOENT' ? 'executable file not found in $PATH' : error.code === 'EACCES' ? 'permission denied' : error.message;
        reject(new StartError(`failed to create containerd task: exec: "${spec.argv[0]}": ${reason}`));
      });
      child.once('spawn', () => resolve(new RunningProcess(child, log)));
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitedWith === undefined;
  }

  get stdin(): Writable | null {
    return this.child.stdin;
  }

  /**
   * Signals the container's process group. SIGKILL also reaches every descendant that left the
   * group (a program may start its own children in a new process group or session, as the
   * workload fixture does): a runtime kills the whole container, and a descendant left alive
   * would keep the output pipes open, so the container would never be seen to exit.
   */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    const strays = signal === 'SIGKILL' ? descendants(this.child.pid!) : [];
    for (const target of [-this.child.pid!, ...strays]) {
      try {
        process.kill(target, signal);
      } catch {
        // Already gone.
      }
    }
  }
}

/** Every live descendant of `root`, from the parent links in /proc (Linux); empty where /proc cannot be read. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Runs a command to completion with a container's environment: exec and exec probes. */
export function runCommand(
  spec: ProcessSpec,
  io: { stdin?: Readable | null; stdout?: Writable | null; stderr?: Writable | null; signal?: AbortSignal },
): Promise<ProcessExit> {
  return new Promise((resolve) => {
    const child = spawn(spec.argv[0], spec.argv.slice(1), { cwd: spec.cwd, env: spec.env, detached: true, stdio: [io.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let settled = false;
    const done = (exit: ProcessExit) => {
      if (settled) return;
      settled = true;
      io.signal?.removeEventListener('abort', abort);
      resolve(exit);
    };
    const abort = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    io.signal?.addEventListener('abort', abort, { once: true });
    child.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'ENOENT' ? 'executable file not found in $PATH' : error.message;
      io.stderr?.write(`OCI runtime exec failed: exec failed: unable to start container process: exec: "${spec.argv[0]}": ${reason}: unknown\n`);
      done({ exitCode: 126 });
    });
    if (io.stdin && child.stdin) {
      io.stdin.pipe(child.stdin);
      child.stdin.on('error', () => undefined);
    }
    if (io.stdout) child.stdout?.pipe(io.stdout, { end: false });
    else child.stdout?.resume();
    if (io.stderr) child.stderr?.pipe(io.stderr, { end: false });
    else child.stderr?.resume();
    child.once('close', (code, signal) => done(signal ? { exitCode: 128 + (constants.signals[signal] ?? 0), signal } : { exitCode: code ?? 0 }));
  });
}
