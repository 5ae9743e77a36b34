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

/**
 * How often the kubelet lists its containers and so notices one has started (the PLEG relist,
 * pkg/kubelet: kubelet.go genericPlegRelistPeriod, 1 s). The node's relist ticker runs from the
 * node's start.
 */
export const RELIST_PERIOD_MS = 1000;

/** When a ticker fires (probeReadiness steps 1.–3.): its first tick at or after `at` (the start itself is no tick: the prober's first pass there finds no container). */
export function probeTick(tickerStart: number, periodMs: number, at: number): number {
  return tickerStart + Math.max(1, Math.ceil((at - tickerStart) / periodMs)) * periodMs;
}

/** The two tickers that time a container's probes. */
export interface ProbeClocks {
  /** When the Pod's probe workers started (its sync): their ticks fall every `periodSeconds` from here. */
  tickerStart: number;
  /** When the node's relist ticker started: a container is seen running at its first tick after the start. */
  relistStart: number;
}

/** probeReadiness step 2.: when the relist of a node whose ticker started at `relistStart` sees a container started at `startedAt` running. */
export function seenRunningAt(relistStart: number, startedAt: number): number {
  return probeTick(relistStart, RELIST_PERIOD_MS, startedAt);
}

/** probeReadiness step 2.: when a container started at `startedAt` is first probed. */
export function firstProbeAt(clocks: ProbeClocks, periodMs: number, startedAt: number, initialDelayMs: number): number {
  const seenAt = seenRunningAt(clocks.relistStart, startedAt);
  const probesFrom = startedAt + initialDelayMs;
  return probesFrom > seenAt ? probeTick(clocks.tickerStart, periodMs, probesFrom) : seenAt;
}

/**
 * Probes `run` until its process exits or the Pod terminates, keeping `run.ready` current.
 *
 * When, as the kubelet's prober does it (pkg/kubelet/prober: prober_manager.go, worker.go):
 * 1. The probe worker and its ticker start with the Pod's sync (`AddPod`), before any container
 *    runs: the ticks fall every `periodSeconds` from `tickerStart`, not from the container's start.
 * 2. The kubelet sees a started container running at its next relist (up to a second later: before
 *    it, the worker finds no running container to probe); not yet ready, it is probed at once then
 *    (`UpdatePodStatus` triggers the worker), unless `initialDelaySeconds` has not passed since it
 *    started. A program that listens within that second is ready at its first probe.
 * 3. Then on every tick; a tick inside the initial delay probes nothing.
 */
export async function probeReadiness(run: ContainerRun, podIP: string, clocks: ProbeClocks, hooks: ReadinessHooks): Promise<void> {
  const probe = run.spec.readinessProbe;
  const proc = run.process!;
  if (!probe) {
    run.ready = true;
    hooks.readinessChanged();
    return;
  }
  const periodMs = (probe.periodSeconds ?? 10) * 1000;
  let successes = 0;
  let failures = 0;
  const exited = proc.exited.then(() => false);
  const pause = (ms: number) => Promise.race([sleep(ms).then(() => true), exited]);
  const nextTick = (at: number) => probeTick(clocks.tickerStart, periodMs, at);
  // 2.: at the relist that sees it running, or from the first tick after the initial delay.
  const firstProbe = firstProbeAt(clocks, periodMs, Date.now(), (probe.initialDelaySeconds ?? 0) * 1000);
  if (!(await pause(Math.max(0, firstProbe - Date.now())))) return;
  while (proc.running && !hooks.terminating()) {
    const probedAt = Date.now();
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
    // 3.: the next tick after this probe began; one that passed while it ran is taken at once (a Go
    // ticker holds one tick for a slow receiver and drops the rest).
    if (!(await pause(Math.max(0, nextTick(probedAt + 1) - Date.now())))) return;
  }
}
