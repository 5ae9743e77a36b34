import type { DriverSettings } from '../driver/launch/external-driver-process.ts';

/**
 * Timing the lanes give every driver they run, in process or external. The supervisor grace
 * is longer than the API headroom on purpose: the pre-#3424 order then fails the way #3421
 * reported (the supervisor is SIGKILLed at its grace and the flat wait times out), while the
 * reference order finishes long before either.
 */
export const HARNESS_DRIVER_SETTINGS: DriverSettings = {
  namespace: 'openshell',
  supervisorGraceSeconds: 10,
  workloadGraceSeconds: 10,
  apiHeadroomSeconds: 5,
  // OpenShell's SANDBOX_RUNTIME_RECONCILE_INTERVAL: a pass every 30 s (beside the one at start-up). The lanes
  // once ran none (scenarios ask for passes themselves), but a driver crashed between a create's
  // release and its completion then waited forever for a pass its real deployment makes: under a
  // crash fault (explore) that was the harness's failure, not the driver's.
  reconcileIntervalMs: 30_000,
};
