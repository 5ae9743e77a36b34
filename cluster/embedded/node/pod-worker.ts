import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';
import { type KubeObject, metaTime } from '../types.ts';
import { containerEnvironment, ContainerConfigError, expand, type DataSource } from './container-env.ts';
import { ContainerLog } from './container-logs.ts';
import { fieldPathOf, freshRun, type ContainerRun, type ContainerSpec, type ContainerState } from './container-run.ts';
import type { EventRecorder } from './event-recorder.ts';
import { resolveCommand, type ImageCatalog } from './images.ts';
import type { NodeFaults } from './node-faults.ts';
import { oncePerTurn } from './once-per-turn.ts';
import { podPhase, PodStatus } from './pod-status.ts';
import { RunningProcess, StartError, type ProcessSpec } from './process-runtime.ts';
import { probeReadiness } from './readiness-probe.ts';
import type { PodFilesystem } from './volumes.ts';

export interface PodWorkerContext {
  api: ObjectApi;
  events: EventRecorder;
  images: ImageCatalog;
  data: DataSource;
  nodeName: string;
  hostIP: string;
  /** First restart back-off; doubles per restart up to maxBackoffMs (kubelet: 10 s to 5 min). */
  backoffMs: number;
  maxBackoffMs: number;
  /** Containers slow to stop (the admin endpoint's node faults): they decide when a SIGTERM arrives. */
  faults: NodeFaults;
  /** When the node's relist ticker started: it sees started containers running (readiness-probe.ts). */
  relistStart: number;
}

/**
 * Runs one Pod as the kubelet would: volumes, init containers in order, containers as
 * processes with restart policy and back-off, readiness probes, status as the kubelet
 * writes it, and graceful termination (SIGTERM, grace period, SIGKILL) before the Pod
 * object is released.
 */
export class PodWorker {
  private readonly runs: ContainerRun[];
  private readonly status: PodStatus;
  private readonly target: Target;
  private terminating = false;
  private killed = false;
  private phaseOverride?: 'Failed' | 'Succeeded';
  private initialized = false;
  private configError?: string;
  private readonly stopped = new AbortController();
  /** Aborted once every container has stopped: a SIGTERM a node fault still holds is dropped. */
  private readonly finished = new AbortController();
  /** Writes the status on a later turn, once for every change made before then. */
  private readonly queueStatus = oncePerTurn(() => this.writeStatus(), () => this.killed);
  private killTimer?: NodeJS.Timeout;
  private killAt = Infinity;
  /** When this worker took the Pod: the kubelet starts its probe workers' tickers then (readiness-probe.ts). */
  private readonly syncedAt = Date.now();
  readonly done: Promise<void>;

  constructor(
    private pod: KubeObject,
    readonly podIP: string,
    readonly fs: PodFilesystem,
    private readonly ctx: PodWorkerContext,
  ) {
    this.target = ctx.api.target('v1', 'pods', pod.metadata.namespace);
    this.status = new PodStatus(ctx.hostIP, podIP);
    const spec = pod.spec as { containers: ContainerSpec[]; initContainers?: ContainerSpec[] };
    this.runs = [...(spec.initContainers ?? []).map((c) => freshRun(c, true)), ...spec.containers.map((c) => freshRun(c, false))];
    this.done = this.run();
  }

  get uid(): string {
    return this.pod.metadata.uid!;
  }

  /** The latest object from the API (the worker reads env and downward API from it). */
  observe(pod: KubeObject): void {
    this.pod = pod;
    const grace = pod.metadata.deletionGracePeriodSeconds;
    if (pod.metadata.deletionTimestamp && grace !== undefined) this.terminate(grace);
  }

  /** Graceful stop: SIGTERM now (or when a node fault lets it arrive), SIGKILL when the grace period runs out (sooner if it is shortened). */
  terminate(graceSeconds: number): void {
    const killAt = Date.now() + graceSeconds * 1000;
    if (!this.terminating) {
      this.terminating = true;
      this.stopped.abort();
      for (const run of this.runs) {
        const running = run.process;
        if (running?.running) {
          this.ctx.events.record(this.pod, 'Normal', 'Killing', `Stopping container ${run.spec.name}`, fieldPathOf(run));
          this.ctx.faults.sigterm(this.pod.metadata.namespace!, this.pod.metadata.name!, () => running.signal('SIGTERM'), this.finished.signal);
        }
      }
    }
    if (killAt < this.killAt) {
      this.killAt = killAt;
      clearTimeout(this.killTimer);
      this.killTimer = setTimeout(() => this.killAll(), Math.max(0, killAt - Date.now()));
    }
  }

  /** Immediate stop without status writes: the Pod object is already gone, or the node is shutting down. */
  kill(): void {
    this.killed = true;
    this.terminating = true;
    this.stopped.abort();
    this.killAll();
  }

  logs(container: string, previous: boolean): ContainerLog | undefined {
    const run = this.runs.find((r) => r.spec.name === container);
    if (!run) return undefined;
    return previous ? run.logs[run.logs.length - 2] : run.logs[run.logs.length - 1];
  }

  /** Environment and working directory of a running container, for exec. */
  execSpec(container: string): ProcessSpec | undefined {
    const run = this.runs.find((r) => r.spec.name === container && !r.init);
    return run?.process?.running ? run.processSpec : undefined;
  }

  private killAll(): void {
    for (const run of this.runs) run.process?.signal('SIGKILL');
  }

  private async run(): Promise<void> {
    this.queueStatus();
    if (!(await this.prepareVolumes())) return this.finish();
    for (const run of this.runs.filter((r) => r.init)) {
      const ok = await this.runInit(run);
      if (!ok) return this.finish();
    }
    this.initialized = true;
    this.queueStatus();
    await Promise.all(this.runs.filter((r) => !r.init).map((r) => this.runContainer(r)));
    return this.finish();
  }

  private async prepareVolumes(): Promise<boolean> {
    for (;;) {
      try {
        await this.fs.prepare(this.pod, this.ctx.data);
        this.configError = undefined;
        return true;
      } catch (error) {
        if (!(error instanceof ContainerConfigError)) throw error;
        if (this.configError !== error.message) this.ctx.events.record(this.pod, 'Warning', 'FailedMount', `MountVolume.SetUp failed: ${error.message}`);
        this.configError = error.message;
        this.queueStatus();
        if (!(await this.wait(1000))) return false;
      }
    }
  }

  private async runInit(run: ContainerRun): Promise<boolean> {
    for (;;) {
      const exit = await this.startOnce(run);
      if (this.terminating) return false;
      if (exit === undefined) continue; // not started (config error): the kubelet keeps retrying
      if (exit === 0) return true;
      if (this.restartPolicy() === 'Never') {
        this.phaseOverride = 'Failed';
        return false;
      }
      if (!(await this.backOff(run))) return false;
    }
  }

  private async runContainer(run: ContainerRun): Promise<void> {
    for (;;) {
      const exit = await this.startOnce(run);
      if (this.terminating) return;
      if (exit === undefined) continue; // not started (config error): the kubelet keeps retrying
      const policy = this.restartPolicy();
      const restart = policy === 'Always' || (policy === 'OnFailure' && exit !== 0);
      if (!restart) return;
      if (!(await this.backOff(run))) return;
    }
  }

  /** One attempt to run the container; resolves with its exit code (undefined when it never started). */
  private async startOnce(run: ContainerRun): Promise<number | undefined> {
    const c = run.spec;
    const fieldPath = fieldPathOf(run);
    const resolved = resolveCommand(this.ctx.images, c.image, c.command, c.args);
    if ('pullError' in resolved) {
      this.ctx.events.record(this.pod, 'Warning', 'Failed', `Failed to pull image "${c.image}": ${resolved.pullError}`, fieldPath);
      this.setState(run, { waiting: { reason: 'ErrImagePull', message: resolved.pullError } });
      if (!(await this.wait(500))) return undefined;
      this.ctx.events.record(this.pod, 'Normal', 'BackOff', `Back-off pulling image "${c.image}"`, fieldPath);
      this.setState(run, { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${c.image}": ErrImagePull: ${resolved.pullError}` } });
      // The image will never appear: stay in ImagePullBackOff until the Pod is deleted.
      await this.wait(2 ** 31 - 1);
      return undefined;
    }
    let spec: ProcessSpec;
    try {
      const env = containerEnvironment(this.pod, c, this.ctx.data);
      await this.fs.mount(this.pod, c.volumeMounts ?? []);
      spec = {
        argv: resolved.argv.map((a) => expand(a, env)),
        env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOSTNAME: this.pod.metadata.name!, ...env, POD_ROOT: this.fs.root },
        cwd: join(this.fs.root, c.workingDir ?? ''),
        stdin: c.stdin,
      };
    } catch (error) {
      if (!(error instanceof ContainerConfigError)) throw error;
      this.ctx.events.record(this.pod, 'Warning', 'Failed', `Error: ${error.message}`, fieldPath);
      this.setState(run, { waiting: { reason: 'CreateContainerConfigError', message: error.message } });
      await this.wait(1000);
      return undefined;
    }
    this.ctx.events.record(this.pod, 'Normal', 'Pulled', `Container image "${c.image}" already present on machine`, fieldPath);
    this.ctx.events.record(this.pod, 'Normal', 'Created', `Created container: ${c.name}`, fieldPath);
    const log = new ContainerLog();
    run.logs.push(log);
    run.processSpec = spec;
    const startedAt = metaTime();
    try {
      run.process = await RunningProcess.start(spec, log);
      // Killed while it was starting (the node stopping on Ctrl-C, the Pod force-deleted): killAll()
      // found no process then, so this one must not outlive the kill.
      if (this.killed) run.process.signal('SIGKILL');
    } catch (error) {
      if (!(error instanceof StartError)) throw error;
      log.end();
      this.ctx.events.record(this.pod, 'Warning', 'Failed', `Error: ${error.message}`, fieldPath);
      this.setState(run, { terminated: { exitCode: 128, reason: 'StartError', message: error.message, startedAt: '1970-01-01T00:00:00Z', finishedAt: metaTime() } });
      return 128;
    }
    run.containerID = `embedded://${run.process.pid}`;
    run.started = true;
    this.ctx.events.record(this.pod, 'Normal', 'Started', `Started container ${c.name}`, fieldPath);
    this.setState(run, { running: { startedAt } });
    const probing = run.init
      ? undefined
      : probeReadiness(run, this.podIP, { tickerStart: this.syncedAt, relistStart: this.ctx.relistStart }, {
          terminating: () => this.terminating,
          readinessChanged: () => this.queueStatus(),
          probeFailed: () => this.ctx.events.record(this.pod, 'Warning', 'Unhealthy', `Readiness probe failed`, fieldPathOf(run)),
        });
    const exit = await run.process.exited;
    run.ready = false;
    await probing;
    this.setState(run, {
      terminated: {
        exitCode: exit.exitCode,
        reason: exit.exitCode === 0 ? 'Completed' : 'Error',
        ...(exit.signal ? { signal: exit.exitCode - 128 } : {}),
        startedAt,
        finishedAt: metaTime(),
        containerID: run.containerID,
      },
    });
    return exit.exitCode;
  }

  private async backOff(run: ContainerRun): Promise<boolean> {
    const delay = Math.min(this.ctx.backoffMs * 2 ** run.restartCount, this.ctx.maxBackoffMs);
    run.lastState = run.state;
    run.restartCount++;
    this.ctx.events.record(this.pod, 'Warning', 'BackOff', `Back-off restarting failed container ${run.spec.name} in pod ${this.pod.metadata.name}`, fieldPathOf(run));
    this.setState(run, { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${run.spec.name} pod=${this.pod.metadata.name}_${this.pod.metadata.namespace}(${this.uid})` } }, true);
    return this.wait(delay);
  }

  /** Sleeps unless the Pod starts terminating; false when it did. */
  private async wait(ms: number): Promise<boolean> {
    if (this.terminating) return false;
    try {
      await sleep(Math.min(ms, 2 ** 31 - 1), undefined, { signal: this.stopped.signal });
      return !this.terminating;
    } catch {
      return false;
    }
  }

  private async finish(): Promise<void> {
    clearTimeout(this.killTimer);
    this.finished.abort();
    if (this.killed) return;
    if (this.terminating) {
      // Every container has stopped: record the terminal status, then let the API server release the object.
      const failed = this.runs.some((r) => 'terminated' in r.state && r.state.terminated.exitCode !== 0);
      this.phaseOverride = failed || !this.runs.some((r) => r.started) ? 'Failed' : 'Succeeded';
      this.writeStatus();
      this.ctx.api.finalizeGracefulDeletion(this.target, this.pod.metadata.name!, this.uid);
      return;
    }
    this.writeStatus();
  }

  private restartPolicy(): string {
    return ((this.pod.spec as { restartPolicy?: string }).restartPolicy ?? 'Always');
  }

  private setState(run: ContainerRun, state: ContainerState, keepLast = false): void {
    if (!keepLast && 'running' in state && 'terminated' in run.state) run.lastState = run.state;
    run.state = state;
    this.queueStatus();
  }

  private phase(): string {
    return this.phaseOverride ?? podPhase(this.runs, this.initialized, this.restartPolicy());
  }

  /** Writes the status as the kubelet would see it now, through the status subresource. */
  private writeStatus(): void {
    const current = this.ctx.api.store.get('pods', this.pod.metadata.namespace, this.pod.metadata.name!);
    if (!current || current.metadata.uid !== this.uid) return;
    const status = this.status.compose(this.runs, {
      phase: this.phase(),
      initialized: this.initialized,
      configError: this.configError,
      previous: (current.status ?? {}) as { conditions?: { type: string }[] },
    });
    try {
      this.ctx.api.update(this.target, current.metadata.name!, { ...current, status }, { subresource: 'status', fieldManager: 'kubelet' });
    } catch (error) {
      if (error instanceof ApiError && (error.code === 404 || error.code === 409)) return;
      throw error;
    }
  }
}
