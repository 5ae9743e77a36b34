/**
 * A delete of a deleted sandbox changes nothing: it answers OK (`deleted=false`) or NOT_FOUND,
 * and creates nothing of the sandbox. A delete call is a repeated one when the last lifecycle
 * call about its sandbox before it was a delete that returned. Deletions are not judged: what
 * the first delete left to garbage collection may still go while the second runs.
 */
import { defineFamily, rule } from '../../family.ts';
import { creations, judgedRepeated, objectsOf, repeatedCalls, unchangedVerdict, type RepeatedCall } from '../../repeated-call.ts';
import type { InvariantInfo } from '../../verdict.ts';

export const REPEATED_DELETE = {
  id: 'delete/repeated-delete-changes-nothing',
  title: 'a delete of a deleted sandbox answers OK (deleted=false) or NOT_FOUND and creates nothing of it',
  source: "OpenShell's Kubernetes driver: DeleteSandbox that finds no Sandbox answers deleted=false (DeleteSandboxResponse.deleted); OpenShell's gateway reads NOT_FOUND as gone",
} satisfies InvariantInfo;

export const repeatedDeleteFamily = defineFamily<RepeatedCall>({
  prefix: 'delete/',
  episodes: (facts) => repeatedCalls(facts, 'delete', ['delete'], 'two deletes at once are not a repeated call'),
  noEpisode: 'no delete of a deleted sandbox was called',
  rules: [
    rule(
      REPEATED_DELETE,
      judgedRepeated(REPEATED_DELETE, ({ step, previous }, facts) =>
        unchangedVerdict(facts, REPEATED_DELETE, step, `a delete of sandbox ${step.sandboxId}, deleted since step "${previous.window.title}" returned`, ['OK', 'NOT_FOUND'], creations(objectsOf(facts, step.sandboxId!)), 'creation of its objects'),
      ),
    ),
  ],
});
