/**
 * A delete of a deleted sandbox changes nothing: it answers OK (`deleted=false`) or NOT_FOUND,
 * and creates nothing of the sandbox. A delete call is a repeated one when the last lifecycle
 * call about its sandbox before it was a delete that returned OK. Deletions are not judged: what
 * the first delete left to garbage collection may still go while the second runs.
 */
import type { Facts } from '../../../derive/histories.ts';
import { defineFamily, rule } from '../../family.ts';
import { callsOfSandbox, callSteps, creations, notJudged, objectsOf, unchangedVerdict, type CallStep } from '../../repeated-call.ts';
import type { InvariantInfo } from '../../verdict.ts';

export const REPEATED_DELETE = {
  id: 'delete/repeated-delete-changes-nothing',
  title: 'a delete of a deleted sandbox answers OK (deleted=false) or NOT_FOUND and creates nothing of it',
  source: "OpenShell's Kubernetes driver: DeleteSandbox that finds no Sandbox answers deleted=false (DeleteSandboxResponse.deleted); OpenShell's gateway reads NOT_FOUND as gone",
} satisfies InvariantInfo;

/** A delete call step about a deleted sandbox (`previous`: the delete that deleted it), or one whose sandbox the recording cannot tell (`unknown`). */
interface RepeatedDelete {
  step: CallStep;
  previous?: CallStep;
  unknown?: string;
}

function repeatedDeletes(facts: Facts): RepeatedDelete[] {
  return callSteps(facts, 'delete').flatMap((step): RepeatedDelete[] => {
    if (!step.sandboxId) return [{ step, unknown: 'cannot tell which sandbox its delete call was about (its end mark records no calls, and the recording has several sandboxes)' }];
    const begin = step.window.begin;
    const previous = callsOfSandbox(facts, ['create', 'start', 'stop', 'delete'], step.sandboxId)
      .filter((c) => c.window.begin.seq < begin.seq)
      .at(-1);
    const returned = previous?.window.end && previous.window.end.status === 'end' && previous.window.end.seq < begin.seq;
    return previous?.verb === 'delete' && returned ? [{ step, previous }] : [];
  });
}

export const repeatedDeleteFamily = defineFamily<RepeatedDelete>({
  prefix: 'delete/',
  episodes: repeatedDeletes,
  noEpisode: 'no delete of a deleted sandbox was called',
  rules: [
    rule(REPEATED_DELETE, (e, facts) => {
      if (e.unknown || !e.previous) return [notJudged(REPEATED_DELETE, e.step, e.unknown ?? 'not a repeated delete')];
      const sandboxId = e.step.sandboxId!;
      return [unchangedVerdict(facts, REPEATED_DELETE, e.step, `a delete of sandbox ${sandboxId}, deleted since step "${e.previous.window.title}" returned`, ['OK', 'NOT_FOUND'], creations(objectsOf(facts, sandboxId)), 'creation of its objects')];
    }),
  ],
});
