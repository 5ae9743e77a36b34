/**
 * The node agent's fault hooks, reached through the admin endpoint `/embedded.admin/v1/node-faults`:
 * containers of one Pod (namespace and name; it need not exist yet) that are slow to stop.
 *
 * - `stop: {delayMs: D}`: each container takes the kubelet's SIGTERM D ms late, as a program
 *   busy with its clean-up would; healing the fault delivers every SIGTERM it still holds at once.
 * - `stop: {ignoreSigterm: true}`: each container ignores SIGTERM, so the kubelet SIGKILLs it
 *   when the grace period runs out (exit 137). A SIGTERM it ignored stays ignored after healing.
 *
 * Either applies to the containers that stop while the fault is in force; the SIGKILL at the
 * end of the grace period is never held back. A Pod has at most one node fault at a time.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { FaultBody, MAX_FAULT_MS } from '../api/fault-hook-spec.ts';
import type { FaultHooks } from '../api/fault-hooks-admin.ts';

export type StopFault = { delayMs: number } | { ignoreSigterm: true };

export interface NodeFaultSpec {
  namespace: string;
  pod: string;
  stop: StopFault;
}

export interface NodeFault extends NodeFaultSpec {
  id: string;
  /** How many containers' SIGTERM it has delayed or swallowed so far. */
  applied: number;
}

const BODY = new FaultBody(
  'node fault',
  '{"namespace": "ns", "pod": "name", "stop": {"delayMs": D}} (its containers take SIGTERM D ms late) or {"namespace": "ns", "pod": "name", "stop": {"ignoreSigterm": true}} (they are SIGKILLed at the end of the grace period)',
);

interface Entry extends NodeFault {
  /** SIGTERMs waiting out `delayMs`, each with its timer. */
  held: Map<() => void, NodeJS.Timeout>;
}

export class NodeFaults implements FaultHooks {
  private readonly entries = new Map<string, Entry>();

  add(body: unknown): NodeFault {
    const spec = BODY.object(body, ['namespace', 'pod', 'stop']);
    const namespace = BODY.name(spec.namespace, 'namespace');
    const pod = BODY.name(spec.pod, 'pod');
    const stopSpec = BODY.object(spec.stop, ['delayMs', 'ignoreSigterm'], 'stop');
    const stop: StopFault =
      BODY.oneOf(stopSpec, ['delayMs', 'ignoreSigterm'], 'stop') === 'delayMs'
        ? { delayMs: BODY.whole(stopSpec.delayMs, 'stop.delayMs', 0, MAX_FAULT_MS) }
        : { ignoreSigterm: BODY.isTrue(stopSpec.ignoreSigterm, 'stop.ignoreSigterm') };
    const existing = this.find(namespace, pod);
    if (existing) throw new ApiError(409, 'AlreadyExists', `node fault: Pod ${namespace}/${pod} already has node fault "${existing.id}"; heal it first (DELETE /embedded.admin/v1/node-faults/${existing.id})`);
    const entry: Entry = { id: randomUUID(), namespace, pod, stop, applied: 0, held: new Map() };
    this.entries.set(entry.id, entry);
    return describe(entry);
  }

  remove(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    for (const [deliver, timer] of entry.held) {
      clearTimeout(timer);
      deliver();
    }
    entry.held.clear();
    return true;
  }

  list(): NodeFault[] {
    return [...this.entries.values()].map(describe);
  }

  /**
   * The kubelet's SIGTERM to one container of a Pod, as the fault in force lets it arrive: now,
   * `delayMs` later (or when healed), or never. `until` aborts once the container has exited
   * (SIGKILLed at the end of its grace period): a held SIGTERM is then dropped.
   */
  sigterm(namespace: string, pod: string, deliver: () => void, until: AbortSignal): void {
    const entry = this.find(namespace, pod);
    if (!entry) return deliver();
    entry.applied++;
    if ('ignoreSigterm' in entry.stop) return;
    const timer = setTimeout(() => {
      entry.held.delete(deliver);
      until.removeEventListener('abort', drop);
      deliver();
    }, entry.stop.delayMs);
    const drop = () => {
      clearTimeout(timer);
      entry.held.delete(deliver);
    };
    entry.held.set(deliver, timer);
    until.addEventListener('abort', drop, { once: true });
  }

  private find(namespace: string, pod: string): Entry | undefined {
    return [...this.entries.values()].find((entry) => entry.namespace === namespace && entry.pod === pod);
  }
}

function describe({ id, namespace, pod, stop, applied }: Entry): NodeFault {
  return { id, namespace, pod, stop: { ...stop }, applied };
}
