import type { InvariantFamily } from '../family.ts';
import { stopFamily } from './stop/stop-family.ts';

/** Every invariant family, in the order reports list them: the one place a family registers. */
export const FAMILIES: readonly InvariantFamily[] = [stopFamily];
