import type { ResourceStrategy, ResourceType, ScaleSubresource } from './resource-type.ts';
import { configMapStrategy, secretStrategy } from './builtin/immutable-data.ts';
import { namespaceStrategy } from './builtin/namespaces.ts';
import { podStrategy } from './builtin/pods.ts';
import { ClusterIpAllocator, serviceStrategy } from './builtin/services.ts';
import { crdStrategy } from './builtin/custom-resource-definitions.ts';
import { bindingStrategy as policyBindingStrategy, policyStrategy } from '../admission/policy-kinds.ts';
import { bindingStrategy, roleStrategy } from './builtin/rbac.ts';
import { deploymentTable, eventTable, nodeTable } from './builtin/printing.ts';

interface Declaration {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: ScaleSubresource;
  extraSubresources?: string[];
  strategy?: ResourceStrategy;
  /** metadata.generation kept, as kube-apiserver 1.32 does for this kind (see ResourceType.generation). */
  generation?: boolean;
  /** Verbs discovery lists, when not all of them (create-only review resources). */
  verbs?: string[];
}

function builtin(d: Declaration): ResourceType {
  return {
    group: d.group,
    plural: d.plural,
    singular: d.kind.toLowerCase(),
    kind: d.kind,
    listKind: `${d.kind}List`,
    namespaced: d.namespaced,
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
    versions: [{ name: d.version, served: true, storage: true, status: d.status ?? false, scale: d.scale }],
    builtin: true,
    generation: d.generation ?? false,
    ...(d.verbs ? { verbs: d.verbs } : {}),
    extraSubresources: d.extraSubresources ?? [],
    strategy: d.strategy ?? {},
  };
}

/** The built-in kinds this cluster serves: what the driver, the controllers and kubectl use. */
export function builtinTypes(addressOctet: number): ResourceType[] {
  const clusterIps = new ClusterIpAllocator(addressOctet);
  return [
    builtin({ group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], status: true, extraSubresources: ['finalize'], strategy: namespaceStrategy }),
    builtin({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'], status: true, extraSubresources: ['log', 'exec', 'attach', 'binding'], strategy: podStrategy }),
    builtin({ group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'], status: true, strategy: serviceStrategy(clusterIps) }),
    builtin({ group: '', version: 'v1', plural: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] }),
    builtin({ group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, strategy: secretStrategy }),
    builtin({ group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], strategy: configMapStrategy }),
    builtin({ group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], extraSubresources: ['token'] }),
    builtin({ group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], status: true }),
    builtin({ group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], strategy: { table: eventTable } }),
    builtin({ group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], status: true, strategy: { table: nodeTable } }),
    builtin({ group: '', version: 'v1', plural: 'resourcequotas', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'], status: true }),
    builtin({ group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' }, generation: true, strategy: { table: deploymentTable } }),
    builtin({ group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true, categories: ['all'], status: true, generation: true }),
    builtin({ group: 'batch', version: 'v1', plural: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'], status: true, generation: true }),
    builtin({ group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], status: true, generation: true }),
    builtin({ group: 'scheduling.k8s.io', version: 'v1', plural: 'priorityclasses', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'] }),
    builtin({ group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', namespaced: true, shortNames: ['ing'], status: true, generation: true }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true, strategy: roleStrategy(true) }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true, strategy: bindingStrategy(true) }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false, strategy: roleStrategy(false) }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, strategy: bindingStrategy(false) }),
    builtin({ group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'] }),
    builtin({ group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'] }),
    builtin({ group: 'authorization.k8s.io', version: 'v1', plural: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'] }),
    builtin({ group: 'authentication.k8s.io', version: 'v1', plural: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'] }),
    builtin({ group: 'authentication.k8s.io', version: 'v1', plural: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'] }),
    builtin({ group: 'networking.k8s.io', version: 'v1', plural: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'], generation: true }),
    builtin({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true }),
    builtin({ group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], strategy: { table: eventTable } }),
    builtin({ group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true, generation: true }),
    builtin({ group: 'admissionregistration.k8s.io', version: 'v1', plural: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false, categories: ['api-extensions'], status: true, strategy: policyStrategy, generation: true }),
    builtin({ group: 'admissionregistration.k8s.io', version: 'v1', plural: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false, categories: ['api-extensions'], strategy: policyBindingStrategy, generation: true }),
    builtin({ group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], status: true, strategy: crdStrategy, generation: true }),
  ];
}
