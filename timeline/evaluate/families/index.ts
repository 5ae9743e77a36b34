import type { InvariantFamily } from '../family.ts';
import { deleteFamily } from './delete/delete-family.ts';
import { identityFamily } from './identity/identity-family.ts';
import { reconcileFamily } from './reconcile/reconcile-family.ts';
import { startFamily } from './start/start-family.ts';
import { stopFamily } from './stop/stop-family.ts';

/** Every invariant family, in the order reports list them: the one place a family registers. */
export const FAMILIES: readonly InvariantFamily[] = [startFamily, stopFamily, deleteFamily, reconcileFamily, identityFamily];
