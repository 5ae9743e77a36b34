/**
 * A start of a running sandbox installs nothing: it answers FAILED_PRECONDITION (or OK, having
 * done nothing) and creates, deletes and suspends nothing of the sandbox. A start call is one
 * when the last lifecycle call about its sandbox before it was a create or start that returned
 * Ready and the sandbox still ran when it began: spec running, its workload Pod there and not
 * finished (a finished main process is the gateway's Error, from which a start installs a new
 * generation). A start racing another create or start of the sandbox is NOT SEEN: the contract
 * lets it install a generation of its own.
 */
import { histories, type Facts } from '../../../derive/histories.ts';
import { relativeToMark, stateAt } from '../../../derive/steps.ts';
import { defineFamily, rule } from '../../family.ts';
import { creations, deletions, judgedRepeated, objectsOf, repeatedCalls, unchangedVerdict, type CallStep, type RepeatedCall } from '../../repeated-call.ts';
import type { InvariantInfo } from '../../verdict.ts';

export const REPEATED_START = {
  id: 'start/repeated-start-changes-nothing',
  title: 'a start of a running sandbox answers FAILED_PRECONDITION or OK and creates, deletes and suspends nothing of it',
  source:
    "OpenShell's Kubernetes driver: a start that finds the workload Pod running answers FAILED_PRECONDITION (cannot rotate a running workload Pod; stop the sandbox first); OpenShell's gateway answers a start of a Ready sandbox at once",
} satisfies InvariantInfo;

const FINISHED = new Set(['Succeeded', 'Failed']);
const RACING =
  "the contract lets a start that finds another under way install a generation of its own (OpenShell's driver stops and starts again unless the other's generation is ready to complete)";

/** The sandbox ran when the step began: spec running, a workload Pod there that had not finished. */
function runningAt(facts: Facts, step: CallStep): boolean {
  const begin = step.window.begin;
  const [sandbox] = histories(facts, { resource: 'sandboxes', sandboxId: step.sandboxId });
  if (!sandbox || stateAt(sandbox, begin)?.sandbox?.suspended !== false) return false;
  return histories(facts, { resource: 'pods', role: 'workload', sandboxId: step.sandboxId }).some((pod) => {
    const state = stateAt(pod, begin);
    return state !== undefined && !(pod.gone && relativeToMark(pod.gone, begin) === 'before') && !FINISHED.has(state.phase ?? '');
  });
}

export const repeatedStartFamily = defineFamily<RepeatedCall>({
  prefix: 'start/',
  episodes: (facts) => repeatedCalls(facts, 'start', ['create', 'start'], RACING).filter((call) => 'unjudged' in call || runningAt(facts, call.step)),
  noEpisode: 'no start of a running sandbox was called',
  rules: [
    rule(
      REPEATED_START,
      judgedRepeated(REPEATED_START, ({ step, previous }, facts) => {
        const objects = objectsOf(facts, step.sandboxId!);
        const suspensions = objects.flatMap((o) => o.suspensions.map((entry) => ({ entry, what: `Sandbox ${o.name} suspended` })));
        const changes = [...creations(objects), ...deletions(objects), ...suspensions];
        return unchangedVerdict(facts, REPEATED_START, step, `a start of sandbox ${step.sandboxId}, running since step "${previous.window.title}" returned Ready`, ['FAILED_PRECONDITION', 'OK'], changes, 'creation, deletion or suspension of its objects');
      }),
    ),
  ],
});
