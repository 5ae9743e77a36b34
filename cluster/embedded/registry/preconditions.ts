/** Optimistic concurrency: the uid and resourceVersion a write or delete names must be the object's, else 409 Conflict. */
import { errors } from '../errors.ts';
import type { DeleteOptions } from './object-api-options.ts';
import type { ResourceType } from './resource-type.ts';

/** A uid in the body (or a precondition) that is not the object's. */
export function assertUid(type: ResourceType, name: string, sent: string | undefined, actual: string | undefined): void {
  if (sent && sent !== actual) throw errors.conflict(type.group, type.plural, name, `Precondition failed: UID in precondition: ${sent}, UID in object meta: ${actual}`);
}

/** A resourceVersion in the body that is not the object's: it was read before the last write. */
export function assertResourceVersion(type: ResourceType, name: string, sent: unknown, actual: string | undefined): void {
  if (sent && sent !== actual) throw errors.staleResourceVersion(type.group, type.plural, name);
}

/** DeleteOptions.preconditions, checked uid first, each answered in its own words. */
export function assertDeletePreconditions(type: ResourceType, name: string, preconditions: DeleteOptions['preconditions'], uid: string | undefined, resourceVersion: string | undefined): void {
  assertUid(type, name, preconditions?.uid, uid);
  if (preconditions?.resourceVersion && preconditions.resourceVersion !== resourceVersion) {
    throw errors.conflict(type.group, type.plural, name, `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${resourceVersion}`);
  }
}
