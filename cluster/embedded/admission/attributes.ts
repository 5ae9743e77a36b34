import type { Target } from '../registry/resource-type.ts';
import type { KubeObject } from '../types.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Who made the request, as `request.userInfo` shows it. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * What validating admission sees of a write (kube-apiserver's admission.Attributes). The object
 * API fills it at its one write path; objects are in the storage version.
 */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The resource and version the request addressed. */
  target: Target;
  /** '' for the resource itself, else `status`, `scale`, `finalize`, ... */
  subresource?: string;
  /** The name on the request: '' for a create by generateName and for each object of a deletecollection. */
  name: string;
  namespace?: string;
  /** The new object; absent on DELETE. */
  object?: KubeObject;
  /** The stored object; absent on CREATE. */
  oldObject?: KubeObject;
  /** The write's options as given (dryRun, fieldManager, gracePeriodSeconds, ...). */
  options?: object;
  /** Absent: the cluster's administrator (the kubeconfig's token and the in-process controllers). */
  userInfo?: UserInfo;
}

/** A validating admission plugin: returns warnings, throws an ApiError to refuse. */
export interface ValidatingAdmission {
  validate(attributes: AdmissionAttributes): string[];
}
