/** One container of a Pod across its restarts, as the pod worker tracks it: its spec, state, readiness, process and logs. */
import type { EnvFromSource, EnvVar } from './container-env.ts';
import type { ContainerLog } from './container-logs.ts';
import type { Probe } from './probes.ts';
import type { ProcessSpec, RunningProcess } from './process-runtime.ts';
import type { VolumeMount } from './volumes.ts';

export interface ContainerSpec {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: VolumeMount[];
  readinessProbe?: Probe;
  stdin?: boolean;
}

/** core/v1 ContainerState: exactly one of waiting, running, terminated. */
export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; message?: string; signal?: number; startedAt?: string; finishedAt: string; containerID?: string } };

export interface ContainerRun {
  spec: ContainerSpec;
  init: boolean;
  restartCount: number;
  state: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  started: boolean;
  process?: RunningProcess;
  logs: ContainerLog[];
  processSpec?: ProcessSpec;
  containerID?: string;
}

/** A container not started yet: waiting as PodInitializing (init containers) or ContainerCreating. */
export function freshRun(spec: ContainerSpec, init: boolean): ContainerRun {
  return {
    spec,
    init,
    restartCount: 0,
    state: { waiting: { reason: init ? 'PodInitializing' : 'ContainerCreating' } },
    ready: false,
    started: false,
    logs: [],
  };
}

/** The container as Events name it: `spec.containers{name}` or `spec.initContainers{name}`. */
export function fieldPathOf(run: ContainerRun): string {
  return `spec.${run.init ? 'initContainers' : 'containers'}{${run.spec.name}}`;
}
