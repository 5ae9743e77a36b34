/**
 * The Sandbox one reconcile works on, kept current: each metadata patch replaces it with the
 * API server's answer (as controller-runtime's client writes the response back into the object),
 * so a later status Update carries that resourceVersion. Also the error texts the reconciler
 * builds, in upstream's shape (names quoted, owners as Kind/Name with their UID).
 */
import { ApiError } from '../errors.ts';
import type { Target } from '../registry/object-api.ts';
import type { KubeObject } from '../types.ts';
import { controllerRef } from './children.ts';
import type { ControllerClient } from './controller-client.ts';
import { ADOPTABLE_LABEL, NAME_HASH_LABEL, POD_NAME_ANNOTATION } from './agent-sandbox-names.ts';

export function isCode(error: unknown, code: number): boolean {
  return error instanceof ApiError && error.code === code;
}

/** What Go's error wrapping prints: the prefix, then the API server's message. */
export function wrapped(prefix: string, error: unknown): string {
  return `${prefix}: ${(error as Error).message}`;
}

/** `pod "x" is owned by ConfigMap/y (UID: …), not by sandbox "s"` (also for service and PVC). */
export function ownedElsewhere(kind: string, object: KubeObject, sandbox: string): string {
  const ref = controllerRef(object)!;
  return `${kind} ${JSON.stringify(object.metadata.name)} is owned by ${ref.kind}/${ref.name} (UID: ${ref.uid}), not by sandbox ${JSON.stringify(sandbox)}`;
}

/** v0.5.0+: an unowned object without the adoptable or tracking label. */
export function notAdoptable(kind: string, name: string): string {
  return `cannot adopt unowned ${kind} ${JSON.stringify(name)}: missing required pool authorization label (${JSON.stringify(ADOPTABLE_LABEL)}) or sandbox tracking label (${JSON.stringify(NAME_HASH_LABEL)})`;
}

export class SandboxHandle {
  constructor(
    private readonly client: ControllerClient,
    readonly target: Target,
    public object: KubeObject,
  ) {}

  get name(): string {
    return this.object.metadata.name!;
  }

  get namespace(): string {
    return this.object.metadata.namespace!;
  }

  get uid(): string {
    return this.object.metadata.uid!;
  }

  podNameAnnotation(): string | undefined {
    return this.object.metadata.annotations?.[POD_NAME_ANNOTATION];
  }

  /** resolvePodName: the annotation when set, else the Sandbox's own name. */
  trackedPodName(): string {
    return this.podNameAnnotation() || this.name;
  }

  /** clearPodNameAnnotation; the error text on failure. */
  clearPodName(): string | undefined {
    if (this.podNameAnnotation() === undefined) return undefined;
    return this.writePodName(null, 'failed to clear pod name annotation');
  }

  /** ensurePodNameAnnotation: set only when unset; a different tracked name is left alone. */
  ensurePodName(name: string): string | undefined {
    if (this.podNameAnnotation()) return undefined;
    return this.writePodName(name, 'failed to set pod name annotation');
  }

  private writePodName(value: string | null, failure: string): string | undefined {
    try {
      this.object = this.client.patch(this.target, this.name, { metadata: { annotations: { [POD_NAME_ANNOTATION]: value } } });
      return undefined;
    } catch (error) {
      return wrapped(failure, error);
    }
  }
}
