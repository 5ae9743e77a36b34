import { resourceKey, servedVersion, type ResourceType, type ResourceVersion } from './resource-type.ts';

/**
 * The set of resources the server serves right now. Built-in types are added at start;
 * CRD-backed types come and go as the CRD controller establishes and removes them.
 * Listeners hear every change, so discovery and OpenAPI can rebuild their documents.
 */
export class ResourceRegistry {
  private readonly types = new Map<string, ResourceType>();
  private readonly listeners = new Set<() => void>();

  add(type: ResourceType): void {
    this.types.set(resourceKey(type.group, type.plural), type);
    this.changed();
  }

  remove(group: string, plural: string): void {
    if (this.types.delete(resourceKey(group, plural))) this.changed();
  }

  get(group: string, plural: string): ResourceType | undefined {
    return this.types.get(resourceKey(group, plural));
  }

  byResourceKey(key: string): ResourceType | undefined {
    return this.types.get(key);
  }

  /** The type and version a URL names, or undefined when that version is not served. */
  lookup(group: string, version: string, plural: string): { type: ResourceType; version: ResourceVersion } | undefined {
    const type = this.get(group, plural);
    const served = type && servedVersion(type, version);
    return type && served ? { type, version: served } : undefined;
  }

  byKind(group: string, kind: string): ResourceType | undefined {
    for (const type of this.types.values()) if (type.group === group && type.kind === kind) return type;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Group -> served versions, the first being the preferred one (the storage version when served). */
  groups(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    for (const type of this.types.values()) {
      const versions = result.get(type.group) ?? [];
      const ordered = [...type.versions].filter((v) => v.served).sort((a, b) => Number(b.storage) - Number(a.storage));
      for (const v of ordered) if (!versions.includes(v.name)) versions.push(v.name);
      result.set(type.group, versions);
    }
    return result;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
