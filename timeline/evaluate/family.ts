/**
 * An invariant family as a plug-in: an id prefix, the episodes it derives from the facts (each
 * stop, say), and its rules over one episode. The engine runs every rule over every episode;
 * with no episode at all, each rule is NOT SEEN (never a pass on nothing seen). A family whose
 * rules read different kinds of episode (the stops, and the repeated stop calls) is joined from
 * one definition per kind (`joinFamilies`). A family lives in its own folder under families/
 * and registers with one line in families/index.ts. Every FAIL and INCONCLUSIVE message starts
 * with the rule's id, whoever wrote it.
 */
import type { Facts } from '../derive/histories.ts';
import { notSeen, type EvaluationSettings, type InvariantInfo, type Verdict } from './verdict.ts';

export interface Rule<Episode> extends InvariantInfo {
  judge(episode: Episode, facts: Facts, settings: EvaluationSettings): Verdict[];
}

interface FamilyDefinition<Episode> {
  /** The id prefix every rule of the family carries: `stop/`. */
  prefix: string;
  episodes(facts: Facts): Episode[];
  /** Why every rule is NOT SEEN when no episode was observed. */
  noEpisode: string;
  rules: Rule<Episode>[];
}

/** A family as the registry holds it: its rules' names and one evaluation over the facts. */
export interface InvariantFamily {
  prefix: string;
  invariants: InvariantInfo[];
  evaluate(facts: Facts, settings: EvaluationSettings): Verdict[];
}

/** A rule: its names and its judgement of one episode. */
export function rule<Episode>(info: InvariantInfo, judge: Rule<Episode>['judge']): Rule<Episode> {
  return { ...info, judge };
}

export function defineFamily<Episode>(definition: FamilyDefinition<Episode>): InvariantFamily {
  const { prefix, rules } = definition;
  const stray = rules.filter((r) => !r.id.startsWith(prefix)).map((r) => r.id);
  if (stray.length) throw new Error(`family ${prefix}: rule ids must start with "${prefix}": ${stray.join(', ')}`);
  return {
    prefix,
    invariants: rules.map(({ id, title, source }) => ({ id, title, source })),
    evaluate(facts, settings) {
      const episodes = definition.episodes(facts);
      if (episodes.length === 0) return rules.map(({ id, title, source }) => notSeen({ id, title, source }, definition.noEpisode));
      return episodes.flatMap((episode) => rules.flatMap((r) => r.judge(episode, facts, settings).map((v) => namedById(r, v))));
    },
  };
}

/** One family of several definitions with one prefix, each over its own kind of episode; the rules in the order given. */
export function joinFamilies(...parts: InvariantFamily[]): InvariantFamily {
  const [{ prefix }] = parts;
  const other = parts.find((p) => p.prefix !== prefix);
  if (other) throw new Error(`joined families must share a prefix: ${prefix} and ${other.prefix}`);
  return { prefix, invariants: parts.flatMap((p) => p.invariants), evaluate: (facts, settings) => parts.flatMap((p) => p.evaluate(facts, settings)) };
}

/** A rule's verdict carries the rule's names, and a FAIL or INCONCLUSIVE message starts with its id. */
function namedById(info: InvariantInfo, v: Verdict): Verdict {
  const named = { ...v, id: info.id, title: info.title, source: info.source };
  if (v.status === 'PASS' || v.message.startsWith(`${info.id}: `)) return named;
  return { ...named, message: `${info.id}: ${v.message}` };
}
