import { JSONPath } from 'jsonpath-plus';
import type { PrinterColumn, ResourceType, ResourceVersion } from '../registry/resource-type.ts';
import type { KubeObject } from '../types.ts';
import { age } from '../registry/builtin/printing.ts';

/** True when the client asked for `as=Table` (kubectl get does). */
export function wantsTable(accept: string | undefined): boolean {
  return !!accept && /as=Table/.test(accept);
}

/** Evaluates a CRD printer column's JSONPath (`.status.conditions[?(@.type=="Ready")].status`). */
function evaluate(object: KubeObject, jsonPath: string): unknown {
  const path = jsonPath.startsWith('.') ? `$${jsonPath}` : `$.${jsonPath}`;
  const found = JSONPath({ path, json: object, wrap: true }) as unknown[];
  return found.length ? found[0] : '';
}

function columnsFor(type: ResourceType, version: ResourceVersion): { columns: PrinterColumn[]; cells: (o: KubeObject) => unknown[] } {
  if (type.strategy.table) return type.strategy.table;
  const printer = (version.printerColumns ?? []).filter((c) => c.jsonPath !== '.metadata.creationTimestamp');
  return { columns: printer, cells: (o) => printer.map((c) => evaluate(o, c.jsonPath)) };
}

/** A meta.k8s.io/v1 Table for kubectl: Name, the kind's own columns, Age (wide columns have priority 1). */
export function toTable(type: ResourceType, version: ResourceVersion, objects: KubeObject[], listMeta: Record<string, unknown>): unknown {
  if (type.strategy.table?.complete) return completeTable(type.strategy.table, objects, listMeta);
  const { columns, cells } = columnsFor(type, version);
  const definitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    ...columns.filter((c) => (c.priority ?? 0) === 0).map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: 0 })),
    { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
    ...columns.filter((c) => (c.priority ?? 0) > 0).map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority })),
  ];
  const narrow = columns.map((c, i) => ({ c, i })).filter(({ c }) => (c.priority ?? 0) === 0);
  const wide = columns.map((c, i) => ({ c, i })).filter(({ c }) => (c.priority ?? 0) > 0);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: definitions,
    rows: objects.map((o) => {
      const values = cells(o);
      return {
        cells: [o.metadata.name, ...narrow.map(({ i }) => values[i]), age(o.metadata.creationTimestamp), ...wide.map(({ i }) => values[i])],
        object: partialObject(o),
      };
    }),
  };
}

function partialObject(o: KubeObject): unknown {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/** A kind whose printer gives the whole row itself. */
function completeTable(table: NonNullable<ResourceType['strategy']['table']>, objects: KubeObject[], listMeta: Record<string, unknown>): unknown {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: table.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
    rows: objects.map((o) => ({ cells: table.cells(o), object: partialObject(o) })),
  };
}
