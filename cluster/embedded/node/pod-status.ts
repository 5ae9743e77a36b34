/**
 * The Pod status as the kubelet writes it: the phase from the containers and the restart policy,
 * conditions whose transition time moves only when their status does, container statuses.
 */
import { metaTime } from '../types.ts';
import type { ContainerRun } from './container-run.ts';

/** Pending until initialised and a container started; Succeeded or Failed once every container ended for good. */
export function podPhase(runs: ContainerRun[], initialized: boolean, restartPolicy: string): string {
  const main = runs.filter((r) => !r.init);
  if (!initialized) return 'Pending';
  const terminated = main.filter((r) => 'terminated' in r.state);
  if (terminated.length === main.length) {
    const willRestart = restartPolicy === 'Always' || (restartPolicy === 'OnFailure' && terminated.some((r) => 'terminated' in r.state && r.state.terminated.exitCode !== 0));
    if (!willRestart) return terminated.every((r) => 'terminated' in r.state && r.state.terminated.exitCode === 0) ? 'Succeeded' : 'Failed';
  }
  return main.some((r) => r.started) ? 'Running' : 'Pending';
}

export interface PodStatusInput {
  phase: string;
  initialized: boolean;
  /** A volume or config error while containers are being created: shown on their ContainerCreating state. */
  configError?: string;
  /** The status stored now: its PodScheduled condition (the scheduler's) is kept. */
  previous: { conditions?: { type: string }[] };
}

/** One Pod's status over its life: the start time and the conditions' transition times are remembered between writes. */
export class PodStatus {
  private readonly conditionTimes = new Map<string, { status: string; time: string }>();
  private readonly startTime = metaTime();

  constructor(
    private readonly hostIP: string,
    private readonly podIP: string,
  ) {}

  /** The status object for `runs` now. */
  compose(runs: ContainerRun[], input: PodStatusInput): Record<string, unknown> {
    const { phase } = input;
    const main = runs.filter((r) => !r.init);
    const containersReady = main.every((r) => r.ready) && phase === 'Running';
    const scheduled = input.previous.conditions?.find((c) => c.type === 'PodScheduled') ?? { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: this.startTime };
    return {
      phase,
      conditions: [
        this.condition('PodReadyToStartContainers', true),
        this.condition('Initialized', input.initialized, 'ContainersNotInitialized'),
        this.condition('Ready', containersReady, phase === 'Succeeded' || phase === 'Failed' ? 'PodCompleted' : 'ContainersNotReady'),
        this.condition('ContainersReady', containersReady, phase === 'Succeeded' || phase === 'Failed' ? 'PodCompleted' : 'ContainersNotReady'),
        scheduled,
      ],
      hostIP: this.hostIP,
      hostIPs: [{ ip: this.hostIP }],
      podIP: this.podIP,
      podIPs: [{ ip: this.podIP }],
      startTime: this.startTime,
      ...(runs.some((r) => r.init) ? { initContainerStatuses: runs.filter((r) => r.init).map(containerStatus) } : {}),
      containerStatuses: main.map((r) => {
        const s = containerStatus(r);
        if (input.configError && 'waiting' in r.state && r.state.waiting.reason === 'ContainerCreating') {
          s.state = { waiting: { reason: 'ContainerCreating', message: input.configError } };
        }
        return s;
      }),
      qosClass: 'BestEffort',
    };
  }

  private condition(type: string, status: boolean, reason?: string): Record<string, unknown> {
    const value = status ? 'True' : 'False';
    const known = this.conditionTimes.get(type);
    const time = known && known.status === value ? known.time : metaTime();
    this.conditionTimes.set(type, { status: value, time });
    return { type, status: value, lastProbeTime: null, lastTransitionTime: time, ...(reason && !status ? { reason } : {}) };
  }
}

function containerStatus(run: ContainerRun): Record<string, unknown> {
  return {
    name: run.spec.name,
    image: run.spec.image,
    imageID: `embedded://${run.spec.image}`,
    ...(run.containerID ? { containerID: run.containerID } : {}),
    ready: run.ready,
    restartCount: run.restartCount,
    started: 'running' in run.state,
    state: run.state,
    lastState: run.lastState ?? {},
  };
}
