/**
 * An invariant family as a plug-in: an id prefix, the episodes it derives from the facts (each
 * stop, say), and its rules over one episode. The engine runs every rule over every episode;
 * with no episode at all, each rule is INCONCLUSIVE (never a pass on nothing seen). A family
 * lives in its own folder under families/ and registers with one line in families/index.ts.
 */
import type { Facts } from '../derive/histories.ts';
import type { EvaluationSettings, InvariantInfo, Verdict } from './verdict.ts';

export interface Rule<Episode> extends InvariantInfo {
  judge(episode: Episode, facts: Facts, settings: EvaluationSettings): Verdict[];
}

interface FamilyDefinition<Episode> {
  /** The id prefix every rule of the family carries: `stop/`. */
  prefix: string;
  episodes(facts: Facts): Episode[];
  /** Why every rule is INCONCLUSIVE when no episode was observed. */
  noEpisode: string;
  rules: Rule<Episode>[];
}

/** A family as the registry holds it: its rules' names and one evaluation over the facts. */
export interface InvariantFamily {
  prefix: string;
  invariants: InvariantInfo[];
  evaluate(facts: Facts, settings: EvaluationSettings): Verdict[];
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
      if (episodes.length === 0) return rules.map(({ id, title, source }) => ({ id, title, source, status: 'INCONCLUSIVE' as const, message: `INCONCLUSIVE: ${definition.noEpisode}`, evidence: [] }));
      return episodes.flatMap((episode) => rules.flatMap((rule) => rule.judge(episode, facts, settings)));
    },
  };
}
