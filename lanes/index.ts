import { external } from './external.ts';
import { ha } from './ha.ts';
import type { Lane } from './lane-declaration.ts';
import { managed } from './managed.ts';
import { operator } from './operator.ts';
import { sharedV1alpha1 } from './shared-v1alpha1.ts';
import { sharedV1beta1 } from './shared-v1beta1.ts';

/** The lane matrix, in the order runs and reports list it. */
export const LANES: readonly Lane[] = [sharedV1alpha1, sharedV1beta1, managed, operator, external, ha];

/** A lane by name or alias; a clear error listing the choices otherwise. */
export function findLane(nameOrAlias: string): Lane {
  const lane = LANES.find((l) => l.name === nameOrAlias || l.aliases.includes(nameOrAlias));
  if (!lane) {
    const choices = LANES.map((l) => (l.aliases.length ? `${l.name} (${l.aliases.join(', ')})` : l.name)).join(', ');
    throw new Error(`unknown lane "${nameOrAlias}"; lanes: ${choices}`);
  }
  return lane;
}

export type { Lane } from './lane-declaration.ts';
