/**
 * `npm run bench -- stop`: how long the reference driver's stop takes beside the least any
 * correct stop can take, both measured in the same run on the same embedded cluster. It is a
 * measurement, not a test: a missed target is printed as MISSED and the exit code stays 0.
 *
 *   lower bound = supervisor termination + the controller's suspension + workload termination:
 *                 the Pods' terminations each read from the Pod's own changes on the timeline
 *                 (the change that set its deletionTimestamp to the one that removed it); the
 *                 controller's part from the suspension patch to the workload Pod's deletion. A
 *                 correct stop (OpenShell#3424) runs them one after the other (the supervisor must
 *                 be gone before the workload is suspended, and only the Agent Sandbox controller
 *                 deletes the workload Pod), so no driver can stop faster on this cluster; the
 *                 rest is the driver's API round trips and waits. The controller's part counts
 *                 because no driver can shorten it: the embedded one's realism makes it 20-300 ms
 *                 of cache lag plus reconcile latency, a real one its informer and work queue.
 *
 *   1. reference, fixture main command (`sleep`, ends at once on SIGTERM): stops, each followed
 *      by an untimed start so the next stop meets a fresh generation
 *   2. reference, a main command that needs ~1 s to end on SIGTERM (closer to a real workload)
 *   3. suspend-first (the #3421 defect, supervisor grace 3 s, API headroom 2 s): each stop fails;
 *      the supervisor has no boundary left, retries its cleanup and is SIGKILLed at its grace
 *
 * Everything runs in this process: the driver, the API server, the controllers and the node
 * agent, whose Pods are child processes. The changes come from the harness's own timeline
 * recorder (list + watch), which also marks the stop call and its return as steps, so every
 * figure is read off one clock: the recording's.
 */
import * as k8s from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { sandboxApiVersion } from '../driver/agent-sandbox-api.ts';
import { Gateway, type Sandbox } from '../driver/gateway/gateway.ts';
import { KubernetesDriver } from '../driver/kubernetes/kubernetes-driver.ts';
import { sandboxObjectNames } from '../driver/kubernetes/names.ts';
import { OPENSHELL_ROLES } from '../lanes/openshell-roles.ts';
import { TimelineRecorder } from '../timeline/collect/recorder.ts';
import { derive, type ObjectHistory } from '../timeline/derive/histories.ts';
import type { StepEntry } from '../timeline/model.ts';
import { summarize, type Summary } from './http-load.ts';
import { busyWarning, fmt, progressLog, reportBenchmark, startBenchCluster, type BenchOptions, type Row } from './common.ts';
import { countCreateConflicts, type CreateConflicts } from './create-conflicts.ts';
import type { Measurement } from './figures-table.ts';

const TARGETS = {
  /** Reference stop latency as a multiple of the lower bound (median over the rounds). */
  ratio: 1.3,
  failures: 0,
};

interface Sizes {
  /** Untimed stop/start cycles before the timed ones (JIT, connections). */
  warmup: number;
  /** Timed stops per reference profile. */
  rounds: number;
  /** suspend-first stops (each on a fresh sandbox; each takes the supervisor's grace). */
  defectRounds: number;
}

const FULL: Sizes = { warmup: 1, rounds: 10, defectRounds: 3 };
const QUICK: Sizes = { warmup: 0, rounds: 2, defectRounds: 1 };

const FAST_MAIN = ['sh', '-c', 'exec sleep 100000'];
/** Ends about 1 s after SIGTERM: the trap runs once the current `sleep 0.1` (also signalled) is gone. */
const SLOW_MAIN = ['sh', '-c', 'trap "sleep 1; exit 0" TERM; while :; do sleep 0.1; done'];

const DEFECT = { supervisorGraceSeconds: 3, apiHeadroomSeconds: 2 };

interface StopSample {
  outcome: 'stopped' | string;
  stopMs: number;
  supervisorMs: number;
  workloadMs: number;
  /** The Agent Sandbox controller's part: the suspension patch to the workload Pod's deletion. */
  controllerMs: number;
  lowerBoundMs: number;
  ratio: number;
  supervisorExit?: number;
  workloadExit?: number;
  /** Where the rest goes, each from the watched changes. */
  gaps: {
    callToStopBeginMs?: number;
    stopBeginToSupervisorDeleteMs?: number;
    supervisorGoneToSuspensionMs?: number;
    workloadGoneToReturnMs?: number;
  };
}

/** One timed stop; waits (untimed) until both Pods are gone so that their terminations are known. */
async function measureStop(recorder: TimelineRecorder, driver: Gateway, sandbox: Sandbox): Promise<StopSample> {
  // The reference driver's names: the Sandbox is named in its status, the workload Pod after it (Agent Sandbox's default).
  const cr = sandbox.snapshot.status!.name;
  const { supervisorPod } = sandboxObjectNames(sandbox.id, cr);
  const workloadPod = cr;
  const title = `stop ${cr}`;
  // This stop's stretch of the recording starts with its begin step.
  const from = recorder.snapshot().entries.length;
  recorder.step(title, 'begin');
  let outcome = 'stopped';
  try {
    await driver.stop(sandbox.id);
  } catch (error) {
    outcome = `failed: ${(error as Error).message}`;
  }
  recorder.step(title, 'end');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const window = recorder.snapshot().entries.slice(from);
    const facts = derive({ startedAt: '', entries: window });
    const pod = (name: string) => facts.objects.find((o) => o.resource === 'pods' && o.name === name && o.deleteRequested && o.gone);
    const supervisor = pod(supervisorPod);
    const workload = pod(workloadPod);
    if (supervisor && workload) {
      const [begin, end] = window.filter((e): e is StepEntry => e.kind === 'step' && e.title === title);
      const sandboxEntries = facts.objects.filter((o) => o.resource === 'sandboxes' && o.name === cr).flatMap((o) => o.entries);
      // The stop-begin patch is the first to put a bootstrap phase on the Sandbox; the suspension the first that suspends it.
      const stopBegin = sandboxEntries.find((e) => e.sandbox?.bootstrapPhase !== undefined);
      const suspension = sandboxEntries.find((e) => e.sandbox?.suspended);
      const stopMs = end.t - begin.t;
      // Suspend-first suspends before it deletes the supervisor; the controller's part is the same span.
      const controllerMs = suspension ? Math.max(0, workload.deleteRequested!.t - suspension.t) : 0;
      const lowerBoundMs = termination(supervisor) + controllerMs + termination(workload);
      return {
        outcome,
        stopMs,
        supervisorMs: termination(supervisor),
        workloadMs: termination(workload),
        controllerMs,
        lowerBoundMs,
        ratio: stopMs / lowerBoundMs,
        supervisorExit: exitCode(supervisor, 'supervisor'),
        workloadExit: exitCode(workload, 'agent'),
        gaps: {
          callToStopBeginMs: stopBegin ? stopBegin.t - begin.t : undefined,
          stopBeginToSupervisorDeleteMs: stopBegin ? supervisor.deleteRequested!.t - stopBegin.t : undefined,
          supervisorGoneToSuspensionMs: suspension && suspension.t > supervisor.gone!.t ? suspension.t - supervisor.gone!.t : undefined,
          workloadGoneToReturnMs: end.t - workload.gone!.t,
        },
      };
    }
    if (Date.now() > deadline) throw new Error(`the Pods of ${cr} were not gone 60 s after the stop`);
    await sleep(20);
  }
}

/** From the change that set the Pod's deletionTimestamp to the one that removed it. */
const termination = (pod: ObjectHistory) => pod.gone!.t - pod.deleteRequested!.t;

const exitCode = (pod: ObjectHistory, container: string) => pod.exits.find((x) => x.container === container)?.exitCode;

interface ProfileResult {
  label: string;
  samples: StopSample[];
  stop: Summary;
  lowerBound: Summary;
  supervisor: Summary;
  controller: Summary;
  workload: Summary;
  ratio: Summary;
  failures: number;
}

function profile(label: string, samples: StopSample[]): ProfileResult {
  const of = (pick: (s: StopSample) => number | undefined) => summarize(samples.map(pick).filter((v): v is number => v !== undefined));
  return {
    label,
    samples,
    stop: of((s) => s.stopMs),
    lowerBound: of((s) => s.lowerBoundMs),
    supervisor: of((s) => s.supervisorMs),
    controller: of((s) => s.controllerMs),
    workload: of((s) => s.workloadMs),
    ratio: of((s) => s.ratio),
    failures: samples.filter((s) => s.outcome !== 'stopped').length,
  };
}

async function referenceProfile(recorder: TimelineRecorder, driver: Gateway, label: string, name: string, command: string[], sizes: Sizes, progress: (line: string) => void): Promise<ProfileResult> {
  let sandbox = await driver.create({ name, command });
  const samples: StopSample[] = [];
  for (let i = 0; i < sizes.warmup + sizes.rounds; i++) {
    const sample = await measureStop(recorder, driver, sandbox);
    if (i >= sizes.warmup) samples.push(sample);
    progress(`${label} ${i < sizes.warmup ? 'warm-up' : `round ${i - sizes.warmup + 1}/${sizes.rounds}`}: stop ${fmt.ms(sample.stopMs)}, lower bound ${fmt.ms(sample.lowerBoundMs)} (supervisor ${fmt.ms(sample.supervisorMs)} + controller ${fmt.ms(sample.controllerMs)} + workload ${fmt.ms(sample.workloadMs)}), ratio ${sample.ratio.toFixed(2)}${sample.outcome === 'stopped' ? '' : `; ${sample.outcome}`}`);
    sandbox = await driver.start(sandbox.id);
  }
  await driver.delete(sandbox.id);
  return profile(label, samples);
}

async function defectProfile(recorder: TimelineRecorder, driver: Gateway, sizes: Sizes, progress: (line: string) => void): Promise<ProfileResult> {
  const samples: StopSample[] = [];
  for (let i = 0; i < sizes.defectRounds; i++) {
    const sandbox = await driver.create({ name: `suspend-first-${i}`, command: FAST_MAIN });
    const sample = await measureStop(recorder, driver, sandbox);
    samples.push(sample);
    progress(`suspend-first round ${i + 1}/${sizes.defectRounds}: ${sample.outcome} after ${fmt.ms(sample.stopMs)}; supervisor exit ${sample.supervisorExit} after ${fmt.ms(sample.supervisorMs)}`);
    await driver.delete(sandbox.id);
  }
  return profile('suspend-first', samples);
}

export async function runStopBenchmark(options: BenchOptions): Promise<void> {
  const sizes = options.quick ? QUICK : FULL;
  const progress = progressLog('stop');
  const busy = busyWarning();
  if (busy) progress(busy);
  progress(`${options.quick ? 'QUICK run (few rounds, not comparable with the targets); ' : ''}${sizes.rounds} timed stops per reference profile after ${sizes.warmup} warm-up, ${sizes.defectRounds} suspend-first stops`);

  let cluster: EmbeddedCluster | undefined;
  const drivers: KubernetesDriver[] = [];
  let recorder: TimelineRecorder | undefined;
  let fast: ProfileResult;
  let slow: ProfileResult;
  let defect: ProfileResult;
  try {
    progress('starting the embedded cluster (Agent Sandbox v0.5.0, fixture images)');
    cluster = await startBenchCluster('v0.5.0');
    const kubeconfig = new k8s.KubeConfig();
    kubeconfig.loadFromString(cluster.kubeconfig());
    // The drivers' default namespace, where both keep their sandboxes.
    recorder = new TimelineRecorder(kubeconfig, { namespace: 'openshell', roles: OPENSHELL_ROLES, sandboxApiVersion: sandboxApiVersion('v1beta1') });
    await recorder.start();
    // The reference driver with OpenShell's defaults (grace 30 s, headroom 30 s, its poll intervals).
    const reference = new KubernetesDriver({ kubeconfig, reconcileIntervalMs: 0 });
    const suspendFirst = new KubernetesDriver({ kubeconfig, reconcileIntervalMs: 0, variant: 'suspend-first', ...DEFECT });
    drivers.push(reference, suspendFirst);
    const [referenceGateway, suspendFirstGateway] = [new Gateway({ clients: [reference] }), new Gateway({ clients: [suspendFirst] })];
    fast = await referenceProfile(recorder, referenceGateway, 'reference, sleep main', 'reference', FAST_MAIN, sizes, progress);
    slow = await referenceProfile(recorder, referenceGateway, 'reference, 1 s main', 'reference-slow', SLOW_MAIN, sizes, progress);
    defect = await defectProfile(recorder, suspendFirstGateway, sizes, progress);
    await Promise.all([referenceGateway.close(), suspendFirstGateway.close()]);
  } finally {
    progress('stopping the drivers and the cluster');
    recorder?.stop();
    for (const driver of drivers) await driver.close();
    await cluster?.stop();
  }

  const median = (values: (number | undefined)[]) => summarize(values.filter((v): v is number => v !== undefined)).p50;
  const profileRows = (p: ProfileResult): Row[] => [
    { measure: `${p.label}: stop latency p50 / p95`, value: `${fmt.ms(p.stop.p50)} / ${fmt.ms(p.stop.p95)}` },
    { measure: `${p.label}: lower bound p50 (p50s of supervisor termination + the controller's suspension + workload termination)`, value: `${fmt.ms(p.lowerBound.p50)} (${fmt.ms(p.supervisor.p50)} + ${fmt.ms(p.controller.p50)} + ${fmt.ms(p.workload.p50)})` },
    { measure: `${p.label}: the driver's own share (stop - lower bound), p50`, value: fmt.ms(median(p.samples.map((s) => s.stopMs - s.lowerBoundMs))) },
    { measure: `${p.label}: stop / lower bound, median of ${p.samples.length}`, value: p.ratio.p50.toFixed(2), target: `<= ${TARGETS.ratio}`, pass: p.ratio.p50 <= TARGETS.ratio },
    { measure: `${p.label}: stop / lower bound per round`, value: p.samples.map((s) => s.ratio.toFixed(2)).join(' ') },
    { measure: `${p.label}: stop call -> stop-begin patch, p50`, value: fmt.ms(median(p.samples.map((s) => s.gaps.callToStopBeginMs))) },
    { measure: `${p.label}: stop-begin patch -> supervisor deletion, p50`, value: fmt.ms(median(p.samples.map((s) => s.gaps.stopBeginToSupervisorDeleteMs))) },
    { measure: `${p.label}: supervisor gone -> suspension patch, p50`, value: fmt.ms(median(p.samples.map((s) => s.gaps.supervisorGoneToSuspensionMs))) },
    { measure: `${p.label}: workload gone -> stop returns, p50`, value: fmt.ms(median(p.samples.map((s) => s.gaps.workloadGoneToReturnMs))) },
    { measure: `${p.label}: supervisor / workload exit codes`, value: `${[...new Set(p.samples.map((s) => s.supervisorExit))].join(',')} / ${[...new Set(p.samples.map((s) => s.workloadExit))].join(',')}`, target: '0 / 0', pass: p.samples.every((s) => s.supervisorExit === 0 && s.workloadExit === 0) },
    { measure: `${p.label}: failed stops`, value: `${p.failures}/${p.samples.length}`, target: String(TARGETS.failures), pass: p.failures <= TARGETS.failures },
  ];
  const outcomes = [...new Set(defect.samples.map((s) => s.outcome))];
  const rows: Row[] = [
    ...profileRows(fast),
    ...profileRows(slow),
    { measure: `suspend-first: failed stops (${outcomes.join(' | ')})`, value: `${defect.failures}/${defect.samples.length}` },
    { measure: 'suspend-first: stop latency until it returns, p50', value: fmt.ms(defect.stop.p50) },
    { measure: `suspend-first: supervisor termination p50 (grace ${DEFECT.supervisorGraceSeconds} s; reference: ${fmt.ms(fast.supervisor.p50)})`, value: fmt.ms(defect.supervisor.p50) },
    { measure: 'suspend-first: workload termination p50', value: fmt.ms(defect.workload.p50) },
    { measure: 'suspend-first: supervisor exit codes', value: [...new Set(defect.samples.map((s) => s.supervisorExit))].join(',') },
  ];
  await reportBenchmark({
    name: 'stop',
    options,
    quickNote: 'too few rounds to compare with the targets',
    busyAtStart: busy,
    rows,
    figures: {
      sizes,
      targets: TARGETS,
      drivers: { reference: 'defaults (supervisor/workload grace 30 s, API headroom 30 s)', suspendFirst: DEFECT },
      results: { reference: fast, referenceSlowMain: slow, suspendFirst: defect },
    },
  });
}

/**
 * Issue 15's stop figure for `npm run bench` (figures-table.ts): the p95 of stop / lower bound
 * over 20 stops of the reference driver (`sleep` main command, its defaults), and on the same
 * cluster how many 409 retries 10 creates at once cost the driver (create-conflicts.ts).
 */
export async function stopFigures(options: BenchOptions, progress: (line: string) => void): Promise<Measurement[]> {
  const sizes: Sizes = options.quick ? { warmup: 0, rounds: 3, defectRounds: 0 } : { warmup: 1, rounds: 20, defectRounds: 0 };
  const creates = options.quick ? 3 : 10;
  progress(`starting the embedded cluster (Agent Sandbox v0.5.0, realism on) for ${sizes.rounds} timed stops and ${creates} creates at once`);
  const cluster = await startBenchCluster('v0.5.0');
  const kubeconfig = new k8s.KubeConfig();
  kubeconfig.loadFromString(cluster.kubeconfig());
  const recorder = new TimelineRecorder(kubeconfig, { namespace: 'openshell', roles: OPENSHELL_ROLES, sandboxApiVersion: sandboxApiVersion('v1beta1') });
  const reference = new KubernetesDriver({ kubeconfig, reconcileIntervalMs: 0 });
  const gateway = new Gateway({ clients: [reference] });
  let stops: ProfileResult;
  let conflicts: CreateConflicts;
  try {
    await recorder.start();
    stops = await referenceProfile(recorder, gateway, 'reference, sleep main', 'reference', FAST_MAIN, sizes, progress);
    conflicts = await countCreateConflicts(cluster, gateway, creates, FAST_MAIN);
    progress(`create: ${conflicts.conflicts} conflicts in ${conflicts.patches + conflicts.conflicts} Sandbox patches of ${creates} creates at once ${JSON.stringify(conflicts.byWrite)}`);
  } finally {
    recorder.stop();
    await gateway.close();
    await reference.close();
    await cluster.stop();
  }
  const p95 = stops.ratio.p95;
  const perCreate = conflicts.conflicts / conflicts.creates;
  return [
    {
      id: 'stop-p95',
      measured: p95.toFixed(2),
      values: { p95, p50: stops.ratio.p50, stops: stops.samples.length, failures: stops.failures, stopP95Ms: stops.stop.p95, lowerBoundP95Ms: stops.lowerBound.p95 },
      ratio: p95,
      pass: p95 <= 1.1 && stops.failures === 0,
      note: `${stops.samples.length} stops, median ${stops.ratio.p50.toFixed(2)}${stops.failures ? `, ${stops.failures} FAILED` : ''}`,
    },
    {
      id: 'create-conflicts',
      measured: perCreate.toFixed(2),
      values: { perCreate, conflicts: conflicts.conflicts, patches: conflicts.patches, creates: conflicts.creates },
      // The running patch and the Pod UIDs follow a status write of the controller's for sure; a 409
      // there is avoidable. The release races the controller's reaction to the gates: a real race.
      pass: Object.keys(conflicts.byWrite).every((write) => !/spec\.|-uid/.test(write)),
      note: conflicts.conflicts ? `${conflicts.conflicts} of ${conflicts.patches + conflicts.conflicts} patches: ${Object.entries(conflicts.byWrite).map(([w, n]) => `${w} x${n}`).join('; ')}` : `${conflicts.patches} patches`,
    },
  ];
}
