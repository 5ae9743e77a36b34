import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../types.ts';
import type { DataSource } from './container-env.ts';
import { ContainerConfigError } from './container-env.ts';

interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface Volume {
  name: string;
  emptyDir?: object;
  secret?: { secretName: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: { name: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  projected?: { sources?: { serviceAccountToken?: { path: string }; secret?: { name: string; items?: KeyToPath[] }; configMap?: { name: string; items?: KeyToPath[] } }[]; defaultMode?: number };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

/**
 * Where a Pod's files live on the host. The container's `/` is `root` (given to every process
 * as POD_ROOT); each volume mount is a symlink from `root/<mountPath>` to the volume's
 * directory, so programs that follow the POD_ROOT convention never touch the host's own
 * absolute paths. PVC directories live under the node, outside any Pod, until the PVC goes.
 */
export class PodFilesystem {
  readonly root: string;
  private readonly volumesDir: string;

  constructor(
    readonly podDir: string,
    private readonly pvcDir: (namespace: string, claim: string) => string,
  ) {
    this.root = join(podDir, 'root');
    this.volumesDir = join(podDir, 'volumes');
  }

  /** Creates every volume of the Pod; throws ContainerConfigError for a missing Secret/ConfigMap. */
  async prepare(pod: KubeObject, data: DataSource): Promise<void> {
    await mkdir(this.root, { recursive: true });
    for (const volume of ((pod.spec as { volumes?: Volume[] })?.volumes ?? [])) {
      const dir = this.volumeDir(pod, volume);
      await mkdir(dir, { recursive: true });
      if (volume.secret) await writeItems(dir, data('Secret', volume.secret.secretName), volume.secret.items, volume.secret.defaultMode ?? 0o644, `secret "${volume.secret.secretName}" not found`, volume.secret.optional);
      if (volume.configMap) await writeItems(dir, data('ConfigMap', volume.configMap.name), volume.configMap.items, volume.configMap.defaultMode ?? 0o644, `configmap "${volume.configMap.name}" not found`, volume.configMap.optional);
      for (const source of volume.projected?.sources ?? []) {
        const mode = volume.projected?.defaultMode ?? 0o644;
        if (source.serviceAccountToken) await writeFileWithMode(join(dir, source.serviceAccountToken.path), `embedded-token-${pod.metadata.uid}`, mode);
        if (source.secret) await writeItems(dir, data('Secret', source.secret.name), source.secret.items, mode, `secret "${source.secret.name}" not found`);
        if (source.configMap) await writeItems(dir, data('ConfigMap', source.configMap.name), source.configMap.items, mode, `configmap "${source.configMap.name}" not found`);
      }
    }
  }

  /** Links a container's mounts into the Pod root. */
  async mount(pod: KubeObject, mounts: VolumeMount[]): Promise<void> {
    const volumes = new Map(((pod.spec as { volumes?: Volume[] })?.volumes ?? []).map((v) => [v.name, v]));
    for (const mount of mounts) {
      const volume = volumes.get(mount.name);
      if (!volume) throw new ContainerConfigError(`volume "${mount.name}" is not declared in the Pod`);
      const source = mount.subPath ? join(this.volumeDir(pod, volume), mount.subPath) : this.volumeDir(pod, volume);
      if (mount.subPath) await mkdir(source, { recursive: true });
      const at = join(this.root, mount.mountPath);
      await mkdir(dirname(at), { recursive: true });
      await rm(at, { recursive: true, force: true });
      await symlink(source, at);
    }
  }

  async remove(): Promise<void> {
    await rm(this.podDir, { recursive: true, force: true });
  }

  private volumeDir(pod: KubeObject, volume: Volume): string {
    if (volume.persistentVolumeClaim) return this.pvcDir(pod.metadata.namespace!, volume.persistentVolumeClaim.claimName);
    return join(this.volumesDir, volume.name);
  }
}

async function writeFileWithMode(path: string, content: string | Buffer, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  await chmod(path, mode);
}

async function writeItems(dir: string, values: Record<string, string> | undefined, items: KeyToPath[] | undefined, mode: number, missing: string, optional = false): Promise<void> {
  if (!values) {
    if (optional) return;
    throw new ContainerConfigError(missing);
  }
  const chosen: KeyToPath[] = items ?? Object.keys(values).map((key) => ({ key, path: key }));
  for (const item of chosen) {
    if (!(item.key in values)) throw new ContainerConfigError(`${missing.replace(/ not found$/, '')} has no key "${item.key}"`);
    await writeFileWithMode(join(dir, item.path), values[item.key], item.mode ?? mode);
  }
}
