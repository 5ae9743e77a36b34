import type { KubeConfig } from '@kubernetes/client-node';
import type { DriverVariant, WorkspaceMode } from '../compute-driver.ts';
import { OPERATOR_WORKSPACE_LABEL } from './names.ts';

export interface KubernetesDriverConfig {
  kubeconfig: KubeConfig;
  workspaceMode: WorkspaceMode;
  /** Shared mode: the namespace every Sandbox lives in. */
  namespace: string;
  gatewayId: string;
  defaultWorkspace: string;
  /** Operator mode: the label (`key=value`) an operator puts on namespaces the driver may use. */
  operatorNamespaceLabel: string;
  images: { workload: string; supervisor: string };
  /** The supervisor Pod's terminationGracePeriodSeconds, rendered explicitly (OpenShell: 30). */
  supervisorGraceSeconds: number;
  /** The workload Pod template's terminationGracePeriodSeconds. */
  workloadGraceSeconds: number;
  /** API headroom added to grace periods in deadlines (OpenShell's KUBE_API_TIMEOUT: 30 s). */
  apiHeadroomSeconds: number;
  /** How long creation waits for the controller's workload Pod. */
  workloadPodWaitSeconds: number;
  /** How long a create or restart may take to become Ready before it is rolled back. */
  readyTimeoutSeconds: number;
  /**
   * The stage deadline of supervisor readiness: how long a generation whose Sandbox is Ready may
   * wait for its supervisor Pod to become Ready before the start fails naming that stage and is
   * rolled back by a stop (OpenShell#3566: a generic timeout hid the stage).
   */
  supervisorReadySeconds: number;
  /** Reconciliation interval (OpenShell: 30 s); 0 disables the background loop. */
  reconcileIntervalMs: number;
  /** A bootstrap older than this is reaped by reconciliation (OpenShell: 5 min). */
  bootstrapGraceMs: number;
  workspaceSize: string;
  variant: DriverVariant;
  /** Polling of the supervisor deletion wait (OpenShell: 100 ms). */
  pollIntervalMs: number;
}

export type DriverOptions = Partial<Omit<KubernetesDriverConfig, 'kubeconfig'>> & { kubeconfig: KubeConfig };

export function withDefaults(options: DriverOptions): KubernetesDriverConfig {
  return {
    workspaceMode: 'shared',
    namespace: 'openshell',
    gatewayId: 'gw',
    defaultWorkspace: 'default',
    operatorNamespaceLabel: OPERATOR_WORKSPACE_LABEL,
    images: { workload: 'sandbox-conformance/workload:dev', supervisor: 'sandbox-conformance/supervisor:dev' },
    supervisorGraceSeconds: 30,
    workloadGraceSeconds: 30,
    apiHeadroomSeconds: 30,
    workloadPodWaitSeconds: 30,
    readyTimeoutSeconds: 300,
    supervisorReadySeconds: 30,
    reconcileIntervalMs: 30_000,
    bootstrapGraceMs: 5 * 60_000,
    workspaceSize: '1Gi',
    variant: 'reference',
    pollIntervalMs: 100,
    ...options,
  };
}
