/**
 * The start family: how a generation comes up, on create and on every start. The supervisor must
 * be connected to the workload's boundary before the workload runs, so its scheduling gate goes
 * first; the caller is told the sandbox is Ready only once the supervisor Pod is Ready; and the
 * main process runs exactly once per generation.
 *
 * "Reported Ready" is the end of the harness step that made the create or start call (a step
 * with `create` or `start` as a word of its title): the gateway returns from those calls once the
 * driver reports the sandbox Ready, so the step's end is the report as a client receives it. The
 * Sandbox's own Ready condition is not it: the Agent Sandbox controller sets that from the
 * workload Pod alone, knows nothing of the supervisor, and no driver can order it.
 */
import { objectLabel } from '../../../derive/format.ts';
import { containerRuns, type Facts } from '../../../derive/histories.ts';
import { returnedAfterVerdict } from '../../call-return.ts';
import { defineFamily, joinFamilies, rule } from '../../family.ts';
import { gapVerdict, orderVerdict, slice } from '../../order.ts';
import { inconclusive, pass, violation, type InvariantInfo, type Verdict } from '../../verdict.ts';
import { startEpisodes, type StartEpisode } from './start-episodes.ts';
import { repeatedStartFamily } from './repeated-start.ts';

export const START_INVARIANTS = {
  supervisorReleasedFirst: {
    id: 'start/supervisor-released-before-workload',
    title: "the supervisor Pod's scheduling gate is removed before the workload Pod's",
    source: 'OpenShell create/start flow: remove scheduling gates, supervisor first, then workload — the supervisor connects to the boundary before the workload runs',
  },
  readyAfterSupervisorReady: {
    id: 'start/ready-after-supervisor-ready',
    title: 'the create or start call reports the sandbox Ready only after the supervisor Pod is Ready',
    source: 'OpenShell driver: Ready is forced False (DependenciesNotReady) while the supervisor Pod is not Ready; completion requires it',
  },
  mainRunsOnce: {
    id: 'start/main-process-runs-once',
    title: "a start's main process runs exactly once per generation: not restarted, not run again in another workload Pod",
    source: 'OpenShell sandbox-lifecycle conformance: the main process runs once per start (restartPolicy Never)',
  },
} satisfies Record<string, InvariantInfo>;

const I = START_INVARIANTS;

function releaseOrderVerdict(facts: Facts, e: StartEpisode): Verdict {
  const workload = e.workloads[0];
  if (!workload) return inconclusive(I.supervisorReleasedFirst, `no workload Pod of Sandbox ${e.sandbox.name} appeared in this start`, [e.running]);
  const gatesRecorded = [e.supervisor, workload].every((h) => !h || h.entries.some((x) => x.schedulingGates !== undefined));
  if (!gatesRecorded) return inconclusive(I.supervisorReleasedFirst, 'the recording carries no scheduling gates of these Pods', [e.running]);
  const released = (h: typeof workload | undefined, fallback: string) => ({ entry: h?.released, what: `${objectLabel(h, fallback)} released (no scheduling gate left)` });
  return orderVerdict(facts, I.supervisorReleasedFirst, released(e.supervisor, 'the supervisor Pod'), released(workload, 'the workload Pod'), ['pods']);
}

function readyVerdict(facts: Facts, e: StartEpisode): Verdict {
  const info = I.readyAfterSupervisorReady;
  if (!e.supervisor) return inconclusive(info, `did not observe the supervisor Pod of this start of Sandbox ${e.sandbox.name}`, [e.running]);
  if (!e.supervisor.entries.some((x) => x.ready !== undefined)) return inconclusive(info, 'the recording carries no Pod readiness', [e.running]);
  const verb = e.call && /(^|[^\w-])start([^\w-]|$)/i.test(e.call.title) ? 'start' : e.call ? 'create' : 'create or start';
  return returnedAfterVerdict(facts, info, e.call, verb, [{ entry: e.supervisor.readyAt, what: `${objectLabel(e.supervisor, 'the supervisor Pod')} Ready` }], ['pods'], e.running);
}

function runsOnceVerdict(facts: Facts, e: StartEpisode): Verdict {
  const info = I.mainRunsOnce;
  const end = e.until?.t ?? facts.timeline.entries.at(-1)?.t ?? e.running.t;
  const gap = gapVerdict(facts, info, ['pods'], e.running.t, end, 'this start: a workload Pod may have come and gone unseen', [e.running]);
  if (e.workloads.length === 0) return gap ?? inconclusive(info, `no workload Pod of Sandbox ${e.sandbox.name} appeared in this start`, [e.running]);
  // The main process's runs in this generation: each workload Pod's most-run container, summed.
  const perPod = e.workloads.map((w) => {
    const runs = containerRuns(w);
    const most = runs.reduce((a, b) => (b.runs > a.runs ? b : a), { container: '', runs: 0, restarts: 0 });
    return { pod: w, ...most };
  });
  const total = perPod.reduce((n, p) => n + p.runs, 0);
  const ran = perPod.filter((p) => p.runs > 0);
  const described = ran.map((p) => `container ${p.container} of ${objectLabel(p.pod, 'the workload Pod')} (uid ${p.pod.uid}) ran ${p.runs} time(s)${p.restarts ? ` (restartCount ${p.restarts})` : ''}`).join('; ');
  if (total > 1) {
    const evidence = ran.flatMap((p) => p.pod.entries.filter((x) => x.containers?.some((c) => c.name === p.container && c.state === 'running')).slice(0, 1));
    return violation(info, `the main process ran ${total} times in one generation of Sandbox ${e.sandbox.name}: ${described}`, evidence, { timeline: slice(facts, [e.running, ...evidence], new Map(evidence.map((x): [number, string] => [x.seq, 'running']))) });
  }
  if (total === 0) return inconclusive(info, `the main process of Sandbox ${e.sandbox.name} was not seen running in this start`, [e.running]);
  return gap ?? pass(info, described, [ran[0].pod.seen]);
}

const startRules = defineFamily<StartEpisode>({
  prefix: 'start/',
  episodes: startEpisodes,
  noEpisode: 'no start was observed (no Sandbox spec was running while recording)',
  rules: [
    rule(I.supervisorReleasedFirst, (e, facts) => [releaseOrderVerdict(facts, e)]),
    rule(I.readyAfterSupervisorReady, (e, facts) => [readyVerdict(facts, e)]),
    rule(I.mainRunsOnce, (e, facts) => [runsOnceVerdict(facts, e)]),
  ],
});

/** The family as registered: the rules over its episodes, and the rule over its repeated calls (repeated-start.ts). */
export const startFamily = joinFamilies(startRules, repeatedStartFamily);
