/**
 * The fixture images on a kind node: built from each image's build context (BuildKit
 * through `docker buildx build --load` when buildx is there, else plain `docker build`), then
 * loaded with `kind load docker-image`; if that fails, streamed as an archive instead
 * (`docker save | kind load image-archive`), the other way kind offers into the node's containerd.
 */
import { relative } from 'node:path';
import type { FixtureImage } from '../cluster-provider.ts';
import { DOCKER_NOT_FOUND, KIND_NOT_FOUND } from './availability.ts';
import { CommandError, type Commands } from './commands.ts';

async function hasBuildx(commands: Commands): Promise<boolean> {
  try {
    await commands.run('docker', ['buildx', 'version'], { step: 'check for docker buildx', limit: 'probe', notFound: DOCKER_NOT_FOUND });
    return true;
  } catch (error) {
    if (error instanceof CommandError && !error.notFound && !error.timedOut) return false;
    throw error;
  }
}

async function load(commands: Commands, image: string, cluster: string, progress: (line: string) => void): Promise<void> {
  try {
    await commands.run('kind', ['load', 'docker-image', image, '--name', cluster], { step: `load ${image} into ${cluster}`, limit: 'load', notFound: KIND_NOT_FOUND });
    return;
  } catch (error) {
    if (!(error instanceof CommandError) || error.notFound) throw error;
    progress(`kind: \`kind load docker-image\` failed; loading ${image} as an archive instead (docker save | kind load image-archive). It said: ${error.output.trim().split('\n').pop() ?? ''}`);
  }
  // A single-node cluster (kind-config.yaml) reads the archive once, so it can be a pipe: no
  // image-sized temp file. (kind opens the archive once per node.)
  await commands.pipeline({ step: `load ${image} into ${cluster} as an archive`, limit: 'load', notFound: `${DOCKER_NOT_FOUND}; ${KIND_NOT_FOUND}` })`docker save ${image} | kind load image-archive /dev/stdin --name ${cluster}`;
}

/** Builds every fixture image the request names and loads it into `cluster`. */
export async function buildAndLoadFixtureImages(commands: Commands, images: readonly FixtureImage[], cluster: string, progress: (line: string) => void): Promise<void> {
  const buildx = await hasBuildx(commands);
  if (!buildx) progress('kind: docker buildx is not installed; building the fixture images with plain `docker build`');
  for (const { image, buildContext: context } of images) {
    progress(`kind: building fixture image ${image} from ${relative(process.cwd(), context) || context}`);
    const args = buildx ? ['buildx', 'build', '--load', '-t', image, context] : ['build', '-t', image, context];
    await commands.run('docker', args, { step: `build fixture image ${image}`, limit: 'build', notFound: DOCKER_NOT_FOUND });
    progress(`kind: loading ${image} into ${cluster}`);
    await load(commands, image, cluster, progress);
  }
}
