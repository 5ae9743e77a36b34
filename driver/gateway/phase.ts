/**
 * The phase a sandbox is in, derived the way OpenShell's gateway derives it: drivers report no
 * phase, only conditions and `deleting`, and the gateway overlays the transition it is itself
 * carrying out (OpenShell stores Stopping / Starting / Deleting before calling the driver).
 *
 * From the driver's snapshot, first match wins:
 *   deleting                      -> Deleting
 *   Ready=True                    -> Ready
 *   Bootstrapping=True            -> Provisioning  (a generation, or a stop, is in flight)
 *   Suspended=True                -> Stopped
 *   Finished=True                 -> Error         (the main process ended before it was stopped)
 *   anything else                 -> Provisioning
 * Then the gateway's own transition, while it runs:
 *   a stop   -> Stopping until the snapshot is Stopped, Deleting or Error;
 *   a start  -> Starting until it is Ready, Deleting or Error;
 *   a delete -> Deleting.
 * Readiness is the backend's: this gateway has no supervisor session to wait for, so a driver
 * with `driver_reports_runtime_readiness=false` is Ready when it reports Ready=True.
 */
import type { DriverCondition, DriverSandbox } from '../compute-driver.ts';

export type SandboxPhase = 'Provisioning' | 'Ready' | 'Stopping' | 'Stopped' | 'Starting' | 'Deleting' | 'Error';

/** A transition the gateway is carrying out on a sandbox. */
export type Transition = 'create' | 'stop' | 'start' | 'delete';

export function conditionOf(sandbox: DriverSandbox, type: string): DriverCondition | undefined {
  return sandbox.status?.conditions.find((c) => c.type === type);
}

/** The phase the driver's snapshot alone shows. */
export function observedPhase(sandbox: DriverSandbox): SandboxPhase {
  const is = (type: string) => conditionOf(sandbox, type)?.status === 'True';
  if (sandbox.status?.deleting) return 'Deleting';
  if (is('Ready')) return 'Ready';
  if (is('Bootstrapping')) return 'Provisioning';
  if (is('Suspended')) return 'Stopped';
  if (is('Finished')) return 'Error';
  return 'Provisioning';
}

/** The phase shown to callers: the observed one, with the gateway's transition in flight laid over it. */
export function derivePhase(sandbox: DriverSandbox, transition?: Transition): SandboxPhase {
  const observed = observedPhase(sandbox);
  const settled = (...phases: SandboxPhase[]) => phases.includes(observed);
  switch (transition) {
    case 'stop':
      return settled('Stopped', 'Deleting', 'Error') ? observed : 'Stopping';
    case 'start':
      return settled('Ready', 'Deleting', 'Error') ? observed : 'Starting';
    case 'delete':
      return 'Deleting';
  }
  return observed;
}

/** `Ready=False (SandboxRuntimeGenerationStarting), Bootstrapping=True` — for messages. */
export function describeConditions(sandbox: DriverSandbox): string {
  const conditions = sandbox.status?.conditions ?? [];
  if (!conditions.length) return sandbox.status?.deleting ? 'deleting, no conditions' : 'no conditions';
  return `${sandbox.status?.deleting ? 'deleting, ' : ''}${conditions.map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`).join(', ')}`;
}
