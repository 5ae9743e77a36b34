/**
 * The structural schemas of podTemplate.spec and of a claim template's spec, as the real Sandbox
 * CRDs carry them (generated from core/v1 PodSpec and PersistentVolumeClaimSpec), written here
 * as data: a real API server prunes unknown fields there and rejects wrong types at write time
 * (422), so this one must too. Every field of PodSpec, Container, Volume and the PVC spec is
 * listed with its type and list/map markers; the objects a driver writes (env, ports, probes'
 * httpGet, volume mounts, resources, secret/configMap/PVC/emptyDir volumes, scheduling gates)
 * are modelled down to their leaves. Deeper objects nobody here writes (affinity, security
 * contexts, other volume sources, ...) are kept whole (`x-kubernetes-preserve-unknown-fields`),
 * a deliberate gap: unknown fields inside them survive here and would be pruned on a real
 * server. pod-spec-schema.test.ts compares this with the real manifests when they are at hand.
 */
import type { AgentSandboxVersion } from './profiles.ts';

type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const boolean: Schema = { type: 'boolean' };
const int32: Schema = { type: 'integer', format: 'int32' };
const int64: Schema = { type: 'integer', format: 'int64' };
const intOrString: Schema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
/** A resource.Quantity: a number, or a string such as 500m, 1Gi, 1e3. */
const quantity: Schema = { ...intOrString, pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$' };
const quantities: Schema = { type: 'object', additionalProperties: quantity };

/** An object this simulation does not model field by field: kept as written. */
const kept: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function object(properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return { type: 'object', properties, ...extra };
}

function atomicList(items: Schema): Schema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'atomic' };
}

function mapList(keys: string[], items: Schema): Schema {
  return { type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys };
}

const probe: Schema = object({
  exec: kept,
  failureThreshold: int32,
  grpc: kept,
  httpGet: object(
    { host: string, httpHeaders: atomicList(kept), path: string, port: intOrString, scheme: string },
    { required: ['port'] },
  ),
  initialDelaySeconds: int32,
  periodSeconds: int32,
  successThreshold: int32,
  tcpSocket: kept,
  terminationGracePeriodSeconds: int64,
  timeoutSeconds: int32,
});

const envVar: Schema = object(
  {
    name: string,
    value: string,
    valueFrom: object({
      configMapKeyRef: kept,
      fieldRef: object({ apiVersion: string, fieldPath: string }, { required: ['fieldPath'], 'x-kubernetes-map-type': 'atomic' }),
      fileKeyRef: kept,
      resourceFieldRef: kept,
      secretKeyRef: kept,
    }),
  },
  { required: ['name'] },
);

const container: Schema = object(
  {
    args: atomicList(string),
    command: atomicList(string),
    env: mapList(['name'], envVar),
    envFrom: atomicList(kept),
    image: string,
    imagePullPolicy: string,
    lifecycle: kept,
    livenessProbe: probe,
    name: string,
    ports: mapList(
      ['containerPort', 'protocol'],
      object({ containerPort: int32, hostIP: string, hostPort: int32, name: string, protocol: { type: 'string', default: 'TCP' } }, { required: ['containerPort'] }),
    ),
    readinessProbe: probe,
    resizePolicy: atomicList(kept),
    resources: object({ claims: mapList(['name'], kept), limits: quantities, requests: quantities }),
    restartPolicy: string,
    restartPolicyRules: atomicList(kept),
    securityContext: kept,
    startupProbe: probe,
    stdin: boolean,
    stdinOnce: boolean,
    terminationMessagePath: string,
    terminationMessagePolicy: string,
    tty: boolean,
    volumeDevices: mapList(['devicePath'], kept),
    volumeMounts: mapList(
      ['mountPath'],
      object(
        { mountPath: string, mountPropagation: string, name: string, readOnly: boolean, recursiveReadOnly: string, subPath: string, subPathExpr: string },
        { required: ['mountPath', 'name'] },
      ),
    ),
    workingDir: string,
  },
  { required: ['name'] },
);

/** Volume sources other than the four modelled ones, kept whole. */
const KEPT_VOLUME_SOURCES = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'csi', 'downwardAPI', 'ephemeral', 'fc', 'flexVolume',
  'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'image', 'iscsi', 'nfs', 'photonPersistentDisk',
  'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO', 'storageos', 'vsphereVolume',
];

const volume: Schema = object(
  {
    name: string,
    ...Object.fromEntries(KEPT_VOLUME_SOURCES.map((source) => [source, kept])),
    configMap: object({ defaultMode: int32, items: atomicList(kept), name: { type: 'string', default: '' }, optional: boolean }, { 'x-kubernetes-map-type': 'atomic' }),
    emptyDir: object({ medium: string, sizeLimit: quantity }),
    persistentVolumeClaim: object({ claimName: string, readOnly: boolean }, { required: ['claimName'] }),
    secret: object({ defaultMode: int32, items: atomicList(kept), optional: boolean, secretName: string }),
  },
  { required: ['name'] },
);

/** podTemplate.spec: core/v1 PodSpec as the release's Kubernetes libraries define it. */
export function podSpecSchema(version: AgentSandboxVersion): Schema {
  return object(
    {
      activeDeadlineSeconds: int64,
      affinity: kept,
      automountServiceAccountToken: boolean,
      containers: mapList(['name'], container),
      dnsConfig: kept,
      dnsPolicy: string,
      enableServiceLinks: boolean,
      ephemeralContainers: mapList(['name'], kept),
      hostAliases: mapList(['ip'], kept),
      hostIPC: boolean,
      hostNetwork: boolean,
      hostPID: boolean,
      hostUsers: boolean,
      hostname: string,
      hostnameOverride: string,

      imagePullSecrets: mapList(['name'], kept),
      initContainers: mapList(['name'], container),
      nodeName: string,
      nodeSelector: { type: 'object', additionalProperties: string, 'x-kubernetes-map-type': 'atomic' },
      os: kept,
      overhead: quantities,
      preemptionPolicy: string,
      priority: int32,
      priorityClassName: string,
      readinessGates: atomicList(kept),
      resourceClaims: mapList(['name'], kept),
      resources: kept,
      restartPolicy: string,
      runtimeClassName: string,
      schedulerName: string,
      schedulingGates: mapList(['name'], object({ name: string }, { required: ['name'] })),
      securityContext: kept,
      serviceAccount: string,
      serviceAccountName: string,
      setHostnameAsFQDN: boolean,
      shareProcessNamespace: boolean,
      subdomain: string,
      terminationGracePeriodSeconds: int64,
      tolerations: atomicList(kept),
      topologySpreadConstraints: mapList(['topologyKey', 'whenUnsatisfiable'], kept),
      volumes: mapList(['name'], volume),
      // The Kubernetes 1.35 libraries of v0.5.4 replaced the alpha workloadRef with schedulingGroup.
      ...(version === 'v0.5.4' ? { schedulingGroup: kept } : { workloadRef: kept }),
    },
    { required: ['containers'] },
  );
}

/** A claim template's spec: core/v1 PersistentVolumeClaimSpec. */
export const pvcSpecSchema: Schema = object({
  accessModes: atomicList(string),
  dataSource: kept,
  dataSourceRef: kept,
  resources: object({ limits: quantities, requests: quantities }),
  selector: kept,
  storageClassName: string,
  volumeAttributesClassName: string,
  volumeMode: string,
  volumeName: string,
});
