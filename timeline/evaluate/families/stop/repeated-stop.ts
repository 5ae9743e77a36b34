/**
 * A stop of a stopped sandbox changes nothing: it answers OK, as the first did, and creates,
 * deletes and resumes nothing of the sandbox. A stop call is a repeated one when the last
 * lifecycle call about its sandbox before it was a stop that returned OK; the stop episodes
 * (stop-episodes.ts) never see it, since the Sandbox does not turn suspended again.
 */
import { histories, type Facts } from '../../../derive/histories.ts';
import { stateAt } from '../../../derive/steps.ts';
import type { ObjectEntry } from '../../../model.ts';
import { defineFamily, rule } from '../../family.ts';
import { callsOfSandbox, callSteps, creations, deletions, notJudged, objectsOf, unchangedVerdict, type CallStep, type Change } from '../../repeated-call.ts';
import type { InvariantInfo } from '../../verdict.ts';

export const REPEATED_STOP = {
  id: 'stop/repeated-stop-changes-nothing',
  title: 'a stop of a stopped sandbox answers OK and creates, deletes and resumes nothing of it',
  source:
    "OpenShell's compute-driver contract: the gateway answers a stop of a Stopped sandbox OK at once; OpenShell's Kubernetes driver finds every step of a finished stop done (the supervisor Pod and the generation Secrets already gone: a 404 is done) and answers OK",
} satisfies InvariantInfo;

/** A stop call step about a stopped sandbox (`previous`: the stop that stopped it), or one whose sandbox the recording cannot tell (`unknown`). */
interface RepeatedStop {
  step: CallStep;
  previous?: CallStep;
  unknown?: string;
}

function repeatedStops(facts: Facts): RepeatedStop[] {
  return callSteps(facts, 'stop').flatMap((step): RepeatedStop[] => {
    if (!step.sandboxId) return [{ step, unknown: 'cannot tell which sandbox its stop call was about (its end mark records no calls, and the recording has several sandboxes)' }];
    const begin = step.window.begin;
    const before = callsOfSandbox(facts, ['create', 'start', 'stop', 'delete'], step.sandboxId).filter((c) => c.window.begin.seq < begin.seq);
    const previous = before.at(-1);
    const returned = previous?.window.end && previous.window.end.status === 'end' && previous.window.end.seq < begin.seq;
    return previous?.verb === 'stop' && returned ? [{ step, previous }] : [];
  });
}

/** The Sandbox's spec turning running again. */
function resumptions(facts: Facts, sandboxId: string): Change[] {
  return histories(facts, { resource: 'sandboxes', sandboxId }).flatMap((h) =>
    h.entries.flatMap((e, i): Change[] => (e.sandbox && !e.sandbox.suspended && h.entries[i - 1]?.sandbox?.suspended ? [{ entry: e, what: `Sandbox ${h.name} resumed (running in spec)` }] : [])),
  );
}

export const repeatedStopFamily = defineFamily<RepeatedStop>({
  prefix: 'stop/',
  episodes: repeatedStops,
  noEpisode: 'no stop of a stopped sandbox was called',
  rules: [
    rule(REPEATED_STOP, (e, facts) => {
      if (e.unknown || !e.previous) return [notJudged(REPEATED_STOP, e.step, e.unknown ?? 'not a repeated stop')];
      const sandboxId = e.step.sandboxId!;
      const sandbox = histories(facts, { resource: 'sandboxes', sandboxId })[0];
      const state: ObjectEntry | undefined = sandbox && stateAt(sandbox, e.step.window.begin);
      if (!state?.sandbox?.suspended) return [notJudged(REPEATED_STOP, e.step, `sandbox ${sandboxId} was not recorded stopped (suspended in spec) when it began, though step "${e.previous.window.title}" had returned`)];
      const objects = objectsOf(facts, sandboxId);
      // Secrets aside: a stop deletes its generation's Secrets by name every time, so a second one retries a clean-up the first could not finish.
      const changes = [...creations(objects), ...deletions(objects.filter((o) => o.resource !== 'secrets')), ...resumptions(facts, sandboxId)];
      return [unchangedVerdict(facts, REPEATED_STOP, e.step, `a stop of sandbox ${sandboxId}, stopped since step "${e.previous.window.title}" returned`, ['OK'], changes, 'creation, deletion or resumption of its objects')];
    }),
  ],
});
