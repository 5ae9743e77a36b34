/**
 * The Agent Sandbox controller's fault hooks, reached through the admin endpoint
 * `/embedded.admin/v1/controller-faults`: things a real controller meets that only the embedded
 * cluster can make happen on demand.
 *
 * - `statusConflicts: N`: its next N status writes (Update up to v0.5.3, merge patch at v0.5.4)
 *   fail with 409 Conflict, as when another writer got there first (a patch meets one when
 *   kube-apiserver's own retries lose the race). The reconcile fails and is requeued with
 *   controller-runtime's backoff, reading the Sandbox afresh from its cache.
 * - `cacheLagMs: M`: its informer cache lags M ms more than realism's own lag, for changes
 *   waiting now and arriving later, so it acts on state older than usual; healing it applies at
 *   once whatever is past its usual lag. With several in force the largest counts.
 *
 * A status-conflict fault stays listed once used up (`applied` = N) until healed, so a caller can
 * tell its conflicts were all met.
 */
import { randomUUID } from 'node:crypto';
import { FaultBody, MAX_FAULT_MS } from '../api/fault-hook-spec.ts';
import type { FaultHooks } from '../api/fault-hooks-admin.ts';
import type { FaultInjector } from './controller-request-faults.ts';
import { GROUP } from './agent-sandbox-names.ts';
import type { InformerCache } from './informer-cache.ts';

export type ControllerFaultSpec = { statusConflicts: number } | { cacheLagMs: number };

export type ControllerFault =
  /** `applied`: how many of its conflicts the controller has met so far. */
  | { id: string; statusConflicts: number; applied: number }
  /** `heldChanges`: changes the cache would show by now without this spike (0 once they are due anyway). */
  | { id: string; cacheLagMs: number; heldChanges: number };

const BODY = new FaultBody(
  'controller fault',
  '{"statusConflicts": N} (the controller\'s next N status writes fail with 409 Conflict) or {"cacheLagMs": M} (its cache lags M ms more until healed)',
);

/** The most conflicts one fault holds: far more than a controller's retries ever meet in a test. */
const MAX_CONFLICTS = 10_000;

type Entry = { id: string } & ({ statusConflicts: number; injected: string } | { cacheLagMs: number });

export class ControllerFaults implements FaultHooks {
  private readonly entries = new Map<string, Entry>();

  constructor(
    /** The controller's own request faults, which its client consults before every request. */
    private readonly injector: FaultInjector,
    private readonly cache: InformerCache,
  ) {}

  add(body: unknown): ControllerFault {
    const spec = BODY.object(body, ['statusConflicts', 'cacheLagMs']);
    const id = randomUUID();
    if (BODY.oneOf(spec, ['statusConflicts', 'cacheLagMs']) === 'statusConflicts') {
      const statusConflicts = BODY.whole(spec.statusConflicts, 'statusConflicts', 1, MAX_CONFLICTS);
      const injected = this.injector.add({
        resource: `sandboxes.${GROUP}`,
        subresource: 'status',
        status: 409,
        reason: 'Conflict',
        message: `Operation cannot be fulfilled on sandboxes.${GROUP}: the object has been modified; please apply your changes to the latest version and try again`,
        times: statusConflicts,
      }).id;
      this.entries.set(id, { id, statusConflicts, injected });
    } else {
      this.entries.set(id, { id, cacheLagMs: BODY.whole(spec.cacheLagMs, 'cacheLagMs', 0, MAX_FAULT_MS) });
      this.applySpike();
    }
    return this.describe(this.entries.get(id)!);
  }

  remove(id: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    if ('injected' in entry) this.injector.remove(entry.injected);
    else this.applySpike();
    return true;
  }

  list(): ControllerFault[] {
    return [...this.entries.values()].map((entry) => this.describe(entry));
  }

  private applySpike(): void {
    const spikes = [...this.entries.values()].map((entry) => ('cacheLagMs' in entry ? entry.cacheLagMs : 0));
    this.cache.setLagSpike(Math.max(0, ...spikes));
  }

  private describe(entry: Entry): ControllerFault {
    if ('cacheLagMs' in entry) return { id: entry.id, cacheLagMs: entry.cacheLagMs, heldChanges: this.cache.heldBySpike() };
    // The injector drops a fault once used up: gone means every conflict was met.
    const hits = this.injector.list().find((fault) => fault.id === entry.injected)?.hits ?? entry.statusConflicts;
    return { id: entry.id, statusConflicts: entry.statusConflicts, applied: hits };
  }
}
