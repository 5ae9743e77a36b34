/** What the object API's calls take and give back: the options and results of reads, writes, deletes and watches. */
import type { UserInfo } from '../admission/attributes.ts';
import type { WatchEventType } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** '' for the main resource, 'status' or 'scale'. */
  subresource?: string;
  /** Server-side apply: take over conflicting fields. */
  force?: boolean;
  /** Who writes, as admission's `request.userInfo` shows it (the HTTP layer's authenticated user); absent: the administrator. */
  userInfo?: UserInfo;
}

export interface WriteResult {
  object: KubeObject;
  warnings: string[];
  created: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Who deletes, as admission's `request.userInfo` shows it; absent: the administrator. */
  userInfo?: UserInfo;
}

export interface DeleteResult {
  /** The object as it stands after the call: still present (finalizers, graceful Pod) or its last state. */
  object: KubeObject;
  removed: boolean;
  /** From validating admission (a ValidatingAdmissionPolicy binding with the Warn action). */
  warnings: string[];
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
}

export type WatchEmitter = (type: WatchEventType, object: KubeObject) => void;

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';
