/**
 * A stop of a stopped sandbox changes nothing: it answers OK, as the first did, and creates,
 * deletes and resumes nothing of the sandbox. A stop call is a repeated one when the last
 * lifecycle call about its sandbox before it was a stop that returned; the stop episodes
 * (stop-episodes.ts) never see it, since the Sandbox does not turn suspended again.
 */
import { histories, type Facts } from '../../../derive/histories.ts';
import { stateAt } from '../../../derive/steps.ts';
import { defineFamily, rule } from '../../family.ts';
import { creations, deletions, judgedRepeated, notJudged, objectsOf, repeatedCalls, unchangedVerdict, type Change, type RepeatedCall } from '../../repeated-call.ts';
import type { InvariantInfo } from '../../verdict.ts';

export const REPEATED_STOP = {
  id: 'stop/repeated-stop-changes-nothing',
  title: 'a stop of a stopped sandbox answers OK and creates, deletes and resumes nothing of it',
  source:
    "OpenShell's compute-driver contract: the gateway answers a stop of a Stopped sandbox OK at once; OpenShell's Kubernetes driver finds every step of a finished stop done (the supervisor Pod and the generation Secrets already gone: a 404 is done) and answers OK",
} satisfies InvariantInfo;

/** The Sandbox's spec turning running again. */
function resumptions(facts: Facts, sandboxId: string): Change[] {
  return histories(facts, { resource: 'sandboxes', sandboxId }).flatMap((h) =>
    h.entries.flatMap((e, i): Change[] => (e.sandbox && !e.sandbox.suspended && h.entries[i - 1]?.sandbox?.suspended ? [{ entry: e, what: `Sandbox ${h.name} resumed (running in spec)` }] : [])),
  );
}

export const repeatedStopFamily = defineFamily<RepeatedCall>({
  prefix: 'stop/',
  episodes: (facts) => repeatedCalls(facts, 'stop', ['stop'], 'two stops at once are not a repeated call'),
  noEpisode: 'no stop of a stopped sandbox was called',
  rules: [
    rule(
      REPEATED_STOP,
      judgedRepeated(REPEATED_STOP, ({ step, previous }, facts) => {
        const sandboxId = step.sandboxId!;
        const [sandbox] = histories(facts, { resource: 'sandboxes', sandboxId });
        if (!(sandbox && stateAt(sandbox, step.window.begin)?.sandbox?.suspended)) {
          return notJudged(REPEATED_STOP, step, `sandbox ${sandboxId} was not recorded stopped (suspended in spec) when it began, though step "${previous.window.title}" had returned`);
        }
        const objects = objectsOf(facts, sandboxId);
        // Secrets aside: a stop deletes its generation's Secrets by name every time, so a second one retries a clean-up the first could not finish.
        const changes = [...creations(objects), ...deletions(objects.filter((o) => o.resource !== 'secrets')), ...resumptions(facts, sandboxId)];
        return unchangedVerdict(facts, REPEATED_STOP, step, `a stop of sandbox ${sandboxId}, stopped since step "${previous.window.title}" returned`, ['OK'], changes, 'creation, deletion or resumption of its objects');
      }),
    ),
  ],
});
