import type { KubeObject } from '../types.ts';
import type { CrdSpec } from './builtin/custom-resource-definitions.ts';
import type { ConversionWebhooks } from './conversion-webhooks.ts';
import type { ResourceType } from './resource-type.ts';
import type { JSONSchemaProps } from '../schema/structural-schema.ts';

/** The served resource a CustomResourceDefinition describes. */
export function customResourceType(crd: KubeObject, webhooks: ConversionWebhooks): ResourceType {
  const spec = crd.spec as CrdSpec;
  const { names, group } = spec;
  const service = spec.conversion?.strategy === 'Webhook' ? spec.conversion.webhook?.clientConfig?.service : undefined;
  return {
    group,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    versions: spec.versions.map((v) => ({
      name: v.name,
      served: v.served,
      storage: v.storage,
      deprecationWarning: v.deprecated ? v.deprecationWarning ?? `${group}/${v.name} ${names.kind} is deprecated` : undefined,
      schema: v.schema?.openAPIV3Schema as JSONSchemaProps | undefined,
      status: !!v.subresources?.status,
      scale: v.subresources?.scale,
      printerColumns: v.additionalPrinterColumns,
    })),
    builtin: false,
    generation: true,
    extraSubresources: [],
    strategy: {},
    converter: service ? webhooks.converterFor(service, group, names.kind) : undefined,
    crdName: crd.metadata.name,
  };
}
