/** A running container's readiness, as the kubelet's prober decides it: without a probe it is ready; with one, its thresholds decide. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerRun } from './container-run.ts';
import { runProbe } from './probes.ts';

export interface ReadinessHooks {
  /** True once the Pod is stopping: probing ends. */
  terminating(): boolean;
  /** `run.ready` changed: the status is due for a write. */
  readinessChanged(): void;
  /** A probe failed (the first time, then every tenth): the worker records an Unhealthy event. */
  probeFailed(): void;
}

/** Probes `run` until its process exits or the Pod terminates, keeping `run.ready` current. */
export async function probeReadiness(run: ContainerRun, podIP: string, hooks: ReadinessHooks): Promise<void> {
  const probe = run.spec.readinessProbe;
  const proc = run.process!;
  if (!probe) {
    run.ready = true;
    hooks.readinessChanged();
    return;
  }
  let successes = 0;
  let failures = 0;
  const exited = proc.exited.then(() => false);
  const pause = (ms: number) => Promise.race([sleep(ms).then(() => true), exited]);
  if (!(await pause((probe.initialDelaySeconds ?? 0) * 1000))) return;
  while (proc.running && !hooks.terminating()) {
    let ok = false;
    try {
      ok = await runProbe(probe, { podIP, ports: run.spec.ports ?? [], exec: { env: run.processSpec!.env, cwd: run.processSpec!.cwd } });
    } catch {
      ok = false;
    }
    if (ok) {
      failures = 0;
      successes++;
      if (!run.ready && successes >= (probe.successThreshold ?? 1)) {
        run.ready = true;
        hooks.readinessChanged();
      }
    } else {
      successes = 0;
      failures++;
      if (failures === 1 || failures % 10 === 0) hooks.probeFailed();
      if (run.ready && failures >= (probe.failureThreshold ?? 3)) {
        run.ready = false;
        hooks.readinessChanged();
      }
    }
    if (!(await pause((probe.periodSeconds ?? 10) * 1000))) return;
  }
}
