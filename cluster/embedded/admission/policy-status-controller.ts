import { Controller } from '../controllers/controller-base.ts';
import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { resourceKey } from '../registry/resource-type.ts';
import { isPlainObject } from '../types.ts';
import { ADMISSION_GROUP, POLICIES } from './policy-types.ts';

const POLICY_KEY = resourceKey(ADMISSION_GROUP, POLICIES);

/**
 * Writes a ValidatingAdmissionPolicy's `status.observedGeneration` once its generation is in
 * force, as the real type-checking controller does. `status.typeChecking` (warnings from checking
 * expressions against the matched kinds' schemas) is not produced: there is no type checker.
 */
export class PolicyStatusController extends Controller {
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi) {
    super('validating-admission-policy-status');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => {
      if (event.resource === POLICY_KEY && event.type !== 'DELETED') this.enqueue(event.object.metadata.name!);
    });
    for (const policy of api.store.list(POLICY_KEY)) this.enqueue(policy.metadata.name!);
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  protected override reconcile(name: string): void {
    const policy = this.api.store.get(POLICY_KEY, undefined, name);
    if (!policy || policy.metadata.deletionTimestamp) return;
    const status = isPlainObject(policy.status) ? policy.status : {};
    if (status.observedGeneration === policy.metadata.generation) return;
    const target = this.api.target(`${ADMISSION_GROUP}/v1`, POLICIES);
    try {
      this.api.update(target, name, { ...policy, status: { ...status, observedGeneration: policy.metadata.generation } }, { subresource: 'status' });
    } catch (error) {
      // A newer write got in first (409) or the policy is gone (404): its own event brings us back.
      if (!(error instanceof ApiError && (error.code === 409 || error.code === 404))) throw error;
    }
  }
}
