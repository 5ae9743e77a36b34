import { randomBytes } from 'node:crypto';
import type { KubernetesDriverConfig } from './config.ts';
import type { KubeObject } from './kube.ts';
import type { LaunchSpec } from './sandbox-spec.ts';
import { ANNOTATION, BOOTSTRAP_GATE, BOUNDARY_PORT, LABEL, MANAGED_BY, SUPERVISOR_HEALTH_PORT, sandboxObjectNames } from './names.ts';

export interface SandboxIdentity {
  id: string;
  name: string;
  workspace: string;
  namespace: string;
  crName: string;
}

/** 32 random bytes as hex, as OpenShell generates on create. */
export function newGeneration(): string {
  return randomBytes(32).toString('hex');
}

function ownerRef(owner: KubeObject, controller: boolean) {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller,
    blockOwnerDeletion: false,
  };
}

function sandboxLabels(config: KubernetesDriverConfig, who: SandboxIdentity): Record<string, string> {
  return { [LABEL.managedBy]: MANAGED_BY, [LABEL.sandboxId]: who.id, [LABEL.gatewayId]: config.gatewayId };
}

/** Suspended (true) or running, in the shape of the served Agent Sandbox API version. */
export function operatingSpec(apiVersion: string, suspended: boolean): Record<string, unknown> {
  return apiVersion.endsWith('v1alpha1') ? { replicas: suspended ? 0 : 1 } : { operatingMode: suspended ? 'Suspended' : 'Running' };
}

export function workloadPodTemplate(config: KubernetesDriverConfig, who: SandboxIdentity, spec: LaunchSpec, generation: string) {
  const names = sandboxObjectNames(who.id, who.crName, generation);
  return {
    metadata: {
      labels: { ...sandboxLabels(config, who), [LABEL.boundaryPair]: who.id.toLowerCase(), [LABEL.boundaryRole]: 'workload' },
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: spec.workloadGraceSeconds ?? config.workloadGraceSeconds,
      automountServiceAccountToken: false,
      schedulingGates: [{ name: BOOTSTRAP_GATE }],
      containers: [
        {
          name: 'agent',
          image: spec.image ?? config.images.workload,
          args: spec.command,
          env: [
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'BOUNDARY_PORT', value: String(BOUNDARY_PORT) },
            { name: 'OPENSHELL_SANDBOX_ID', value: who.id },
            { name: 'OPENSHELL_SANDBOX', value: who.name },
            ...Object.entries(spec.environment ?? {}).map(([name, value]) => ({ name, value })),
          ],
          ports: [{ name: 'boundary', containerPort: BOUNDARY_PORT, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'boundary' }, periodSeconds: 1, failureThreshold: 3 },
          volumeMounts: [
            { name: 'workspace', mountPath: '/sandbox' },
            { name: 'bootstrap', mountPath: '/.openshell/state/bootstrap', readOnly: true },
          ],
        },
      ],
      volumes: [{ name: 'bootstrap', secret: { secretName: names.sandboxSecret, defaultMode: 0o440 } }],
    },
  };
}

export function renderSandbox(config: KubernetesDriverConfig, apiVersion: string, who: SandboxIdentity, spec: LaunchSpec, generation: string): KubeObject {
  return {
    apiVersion,
    kind: 'Sandbox',
    metadata: {
      name: who.crName,
      namespace: who.namespace,
      labels: { ...sandboxLabels(config, who), [LABEL.sandboxName]: who.name, [LABEL.workspace]: who.workspace },
      annotations: {
        [ANNOTATION.sandboxId]: who.id,
        [LABEL.sandboxName]: who.name,
        [LABEL.workspace]: who.workspace,
        [ANNOTATION.bootstrapping]: 'true',
        [ANNOTATION.operation]: 'create',
        [ANNOTATION.phase]: 'preparing',
        [ANNOTATION.generation]: generation,
        [ANNOTATION.startedAt]: String(Date.now()),
        [ANNOTATION.mainProcessSpec]: JSON.stringify({ command: spec.command, environment: spec.environment ?? {}, image: spec.image, supervisorGraceSeconds: spec.supervisorGraceSeconds, workloadGraceSeconds: spec.workloadGraceSeconds }),
      },
    },
    spec: {
      ...operatingSpec(apiVersion, true),
      podTemplate: workloadPodTemplate(config, who, spec, generation),
      volumeClaimTemplates: [
        { metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: config.workspaceSize } } } },
      ],
    },
  };
}

export function renderBoundaryService(config: KubernetesDriverConfig, who: SandboxIdentity, owner: KubeObject): KubeObject {
  const names = sandboxObjectNames(who.id, who.crName);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names.boundaryService, namespace: who.namespace, labels: sandboxLabels(config, who), ownerReferences: [ownerRef(owner, false)] },
    spec: {
      type: 'ClusterIP',
      selector: { [LABEL.boundaryPair]: who.id.toLowerCase(), [LABEL.boundaryRole]: 'workload' },
      ports: [{ name: 'boundary', port: BOUNDARY_PORT, targetPort: 'boundary', protocol: 'TCP' }],
    },
  };
}

export function renderSupervisorPod(config: KubernetesDriverConfig, who: SandboxIdentity, owner: KubeObject, generation: string, boundaryAddress: string, graceSeconds: number): KubeObject {
  const names = sandboxObjectNames(who.id, who.crName, generation);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: names.supervisorPod,
      namespace: who.namespace,
      labels: { ...sandboxLabels(config, who), [LABEL.component]: 'supervisor', [LABEL.boundaryPair]: who.id.toLowerCase(), [LABEL.boundaryRole]: 'supervisor' },
      annotations: { [ANNOTATION.sandboxId]: who.id, [ANNOTATION.generation]: generation },
      ownerReferences: [ownerRef(owner, false)],
    },
    spec: {
      terminationGracePeriodSeconds: graceSeconds,
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      schedulingGates: [{ name: BOOTSTRAP_GATE }],
      containers: [
        {
          name: 'supervisor',
          image: config.images.supervisor,
          env: [
            { name: 'BOUNDARY_ADDRESS', value: boundaryAddress },
            { name: 'SUPERVISOR_NAME', value: names.supervisorPod },
            { name: 'HEALTH_PORT', value: String(SUPERVISOR_HEALTH_PORT) },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'OPENSHELL_SANDBOX_ID', value: who.id },
          ],
          ports: [{ name: 'health', containerPort: SUPERVISOR_HEALTH_PORT, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 1, failureThreshold: 3 },
          volumeMounts: [{ name: 'bootstrap', mountPath: '/.openshell/supervisor', readOnly: true }],
        },
      ],
      volumes: [{ name: 'bootstrap', secret: { secretName: names.supervisorSecret, defaultMode: 0o440 } }],
    },
  };
}

/** The generation's bootstrap Secrets, immutable and owned by the Pod that mounts them. */
export function renderSecrets(config: KubernetesDriverConfig, who: SandboxIdentity, generation: string, workloadPod: KubeObject, supervisorPod: KubeObject, boundaryAddress: string): KubeObject[] {
  const names = sandboxObjectNames(who.id, who.crName, generation);
  const secret = (name: string, component: string, owner: KubeObject, data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    immutable: true,
    metadata: { name, namespace: who.namespace, labels: { ...sandboxLabels(config, who), [LABEL.component]: component }, ownerReferences: [ownerRef(owner, false)] },
    stringData: data,
  });
  const token = randomBytes(24).toString('hex');
  return [
    secret(names.sandboxSecret!, 'sandbox-bootstrap', workloadPod, {
      'boundary.json': JSON.stringify({ sandboxId: who.id, generation, boundaryPort: BOUNDARY_PORT }),
      'tls.crt': `generation ${generation} boundary certificate`,
      'tls.key': token,
    }),
    secret(names.supervisorSecret!, 'supervisor-bootstrap', supervisorPod, {
      'runtime-descriptor.json': JSON.stringify({ sandboxId: who.id, generation, boundary: boundaryAddress }),
      'auth.json': JSON.stringify({ token }),
    }),
  ];
}
