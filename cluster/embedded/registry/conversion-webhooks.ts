import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import type { VersionConverter } from './resource-type.ts';

export interface WebhookService {
  namespace: string;
  name: string;
  path?: string;
}

/** Converts one object to `toVersion` (an apiVersion's version part), as a ConversionReview would. */
export type ConversionHook = (object: KubeObject, toVersion: string) => KubeObject;

function serviceKey(service: WebhookService): string {
  return `${service.namespace}/${service.name}${service.path ?? '/'}`;
}

/**
 * In-process stand-ins for conversion webhooks. A real cluster POSTs a ConversionReview to
 * the Service named in the CRD; here the same Service reference selects a registered hook.
 * A CRD whose webhook has no hook fails its conversions with a 500, as a real server does
 * when the webhook is unreachable.
 */
export class ConversionWebhooks {
  private readonly hooks = new Map<string, ConversionHook>();

  register(service: WebhookService, hook: ConversionHook): void {
    this.hooks.set(serviceKey(service), hook);
  }

  converterFor(service: WebhookService, group: string, kind: string): VersionConverter {
    return (object, toVersion) => {
      const hook = this.hooks.get(serviceKey(service));
      if (!hook) {
        throw errors.internal(
          `conversion webhook for ${group}/${toVersion}, Kind=${kind} failed: Post "https://${service.name}.${service.namespace}.svc:443${service.path ?? '/'}?timeout=30s": service "${service.name}" not found`,
        );
      }
      const converted = hook(object, toVersion);
      return { ...converted, apiVersion: `${group}/${toVersion}` };
    };
  }
}
