/** Object names, labels and annotation keys, as OpenShell's Kubernetes driver uses them, so checks read the same fields on a real deployment. */
import { ID_PLACEHOLDER, type RoleSelectors } from '../role-selectors.ts';

export const LABEL = {
  managedBy: 'openshell.ai/managed-by',
  sandboxId: 'openshell.ai/sandbox-id',
  sandboxName: 'openshell.ai/sandbox-name',
  workspace: 'openshell.ai/sandbox-workspace',
  gatewayId: 'openshell.ai/gateway-id',
  component: 'openshell.ai/component',
  boundaryPair: 'openshell.ai/boundary-pair',
  boundaryRole: 'openshell.ai/boundary-role',
} as const;

export const MANAGED_BY = 'openshell';

/** How a sandbox's objects are found by OpenShell's labels: the role selectors lanes use unless given their own. */
const SANDBOX_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY},${LABEL.sandboxId}=${ID_PLACEHOLDER}`;
export const OPENSHELL_ROLES: RoleSelectors = {
  sandbox: SANDBOX_SELECTOR,
  supervisorPod: `${SANDBOX_SELECTOR},${LABEL.boundaryRole}=supervisor`,
  workloadPod: `${SANDBOX_SELECTOR},${LABEL.boundaryRole}=workload`,
  generationSecrets: `${SANDBOX_SELECTOR},${LABEL.component} in (sandbox-bootstrap,supervisor-bootstrap)`,
};

/** The field manager the driver's writes carry (managedFields, audit). */
export const FIELD_MANAGER = 'openshell-driver';

/** Operator mode: the label (key=value) marking a namespace the operator made a workspace. */
export const OPERATOR_WORKSPACE_LABEL = 'openshell.ai/e2e-operator-workspace=true';

/** Managed mode: the ServiceAccount the driver creates in each workspace namespace for its Pods. */
export const MANAGED_SERVICE_ACCOUNT = 'openshell-sandbox';

const A = 'openshell.ai/sandbox-runtime-';
export const ANNOTATION = {
  bootstrapping: `${A}bootstrapping`,
  startedAt: `${A}bootstrap-started-at-ms`,
  operation: `${A}bootstrap-operation`,
  phase: `${A}bootstrap-phase`,
  generation: `${A}generation`,
  readiness: `${A}readiness`,
  workloadUid: `${A}workload-uid`,
  supervisorUid: `${A}supervisor-uid`,
  mainProcessSpec: `${A}main-process-spec`,
  sandboxId: 'openshell.ai/sandbox-id',
  /** Set by the Agent Sandbox controller on the Sandbox: the workload Pod's name. */
  podName: 'agents.x-k8s.io/pod-name',
} as const;

export type BootstrapOperation = 'create' | 'restart' | 'stop';
export type BootstrapPhase = 'preparing' | 'released' | 'releasing' | 'suspending';

/** The scheduling gate both Pods carry until their generation's Secrets exist. */
export const BOOTSTRAP_GATE = 'openshell.ai/bootstrap';
export const BOUNDARY_PORT = 5500;
export const SUPERVISOR_HEALTH_PORT = 8081;

/** `<gen12>`: the first 12 ASCII-alphanumeric characters of the generation, lowercased. */
export function gen12(generation: string): string {
  return generation.replace(/[^A-Za-z0-9]/g, '').slice(0, 12).toLowerCase();
}

export function sandboxObjectNames(id: string, crName: string, generation?: string) {
  const lower = id.toLowerCase();
  return {
    sandbox: crName,
    supervisorPod: `os-supervisor-${lower}`,
    boundaryService: `os-boundary-${lower}`,
    sandboxSecret: generation ? `os-sandbox-${lower}-${gen12(generation)}` : undefined,
    supervisorSecret: generation ? `os-supervisor-${lower}-${gen12(generation)}` : undefined,
  };
}

/** Shared mode names the CR `{workspace}--{name}`; managed and operator modes use the bare name. */
export function crName(mode: 'shared' | 'managed' | 'operator', workspace: string, name: string): string {
  return mode === 'shared' ? `${workspace}--${name}` : name;
}
