/**
 * Harness steps as the rules read them: a step's window (its begin mark and the mark that ended
 * it), the lifecycle call a step stands for, and where an object change lies relative to a mark.
 */
import type { ObjectEntry, StepEntry } from '../model.ts';
import type { Facts, ObjectHistory } from './histories.ts';

/** One harness step: its begin mark, and its end (`end` or `failed`) once it ended. */
export interface StepWindow {
  title: string;
  begin: StepEntry;
  end?: StepEntry;
}

/** The driver calls a step can stand for. */
export type LifecycleVerb = 'create' | 'start' | 'stop' | 'delete';

/** Every step, each begin paired with the next end or failure of the same title, in begin order. */
export function stepWindows(facts: Facts): StepWindow[] {
  const windows: StepWindow[] = [];
  const open = new Map<string, StepWindow[]>();
  for (const step of facts.steps) {
    if (step.status === 'begin') {
      const window: StepWindow = { title: step.title, begin: step };
      windows.push(window);
      open.set(step.title, [...(open.get(step.title) ?? []), window]);
      continue;
    }
    const pending = open.get(step.title);
    const window = pending?.pop();
    if (window) window.end = step;
  }
  return windows;
}

/**
 * The steps that stand for a lifecycle call: the verb is a word of the title (`stop`, `stop the
 * sandbox`, `resumed stop`, `create with supervisor grace 7 s`) — `stops` or `stopped` are not.
 */
export function lifecycleSteps(facts: Facts, verb: LifecycleVerb): StepWindow[] {
  const word = new RegExp(`(^|[^\\w-])${verb}([^\\w-]|$)`, 'i');
  return stepWindows(facts).filter((w) => word.test(w.title));
}

/** Steps whose title is `name` or starts with `name ` (a detail after the name). */
export function namedSteps(facts: Facts, name: string): StepWindow[] {
  return stepWindows(facts).filter((w) => w.title === name || w.title.startsWith(`${name} `));
}

/** Where an object change lies relative to a step mark, in commit order; `unknown` when the recording cannot tell. */
export type MarkOrder = 'before' | 'after' | 'unknown';

/**
 * Received before the mark: committed before it. Received after it: judged by the mark's
 * cluster revision — a higher resourceVersion was committed after the mark; a lower or equal one
 * before it, or in the few milliseconds between the mark and the revision read (the only place
 * this errs, and towards "before"). Without a revision, or with resourceVersions that are not
 * numbers, `unknown`.
 */
export function relativeToMark(entry: ObjectEntry, mark: StepEntry): MarkOrder {
  if (entry.seq < mark.seq) return 'before';
  const rv = Number(entry.resourceVersion);
  const revision = Number(mark.clusterRevision);
  if (mark.clusterRevision === undefined || !Number.isSafeInteger(rv) || !Number.isSafeInteger(revision)) return 'unknown';
  return rv > revision ? 'after' : 'before';
}

/** `step "stop the sandbox" end`, as messages name a mark. */
export function markName(mark: StepEntry): string {
  return `step "${mark.title}" ${mark.status}`;
}

/** The steps titled exactly `title`, in begin order. */
export function stepsTitled(facts: Facts, title: string): StepWindow[] {
  return stepWindows(facts).filter((w) => w.title === title);
}

/** Where an object change lies relative to a step: inside it (committed after its begin mark and, once it ended, before its end), outside, or `unknown`. */
export type WindowPlace = 'inside' | 'outside' | 'unknown';

export function placeInStep(entry: ObjectEntry, window: StepWindow): WindowPlace {
  const afterBegin = relativeToMark(entry, window.begin);
  if (afterBegin === 'before') return 'outside';
  const beforeEnd = window.end ? relativeToMark(entry, window.end) : 'before';
  if (beforeEnd === 'after') return 'outside';
  return afterBegin === 'unknown' || beforeEnd === 'unknown' ? 'unknown' : 'inside';
}

/**
 * The sandboxes a step's `verb` calls named, as its end mark records them (the gateway's
 * routing); undefined when the mark records no calls at all (a recording made before marks
 * carried them, or a step that has not ended).
 */
export function sandboxesCalled(window: StepWindow, verb: LifecycleVerb): string[] | undefined {
  const calls = window.end?.calls;
  if (!calls) return undefined;
  return [...new Set(calls.filter((c) => c.operation === verb && c.sandboxId !== undefined).map((c) => c.sandboxId!))];
}

/** An object's last recorded state committed before a mark (undefined when none is, or none can be placed). */
export function stateAt(history: ObjectHistory, mark: StepEntry): ObjectEntry | undefined {
  return history.entries.filter((e) => relativeToMark(e, mark) === 'before').at(-1);
}
