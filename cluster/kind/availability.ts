/**
 * What a kind lane needs on the machine, checked without changing anything: a kind CLI new
 * enough for the pinned node image, a Docker daemon that answers, and kubectl. Each missing
 * piece is named with what to do, long (for an error) and short (for the cluster choice line).
 */
import semver from 'semver';
import { CommandError, type Commands } from './commands.ts';
import { KIND_NODE_IMAGE, MIN_KIND_VERSION } from './pins.ts';

export const KIND_NOT_FOUND = 'the kind CLI was not found on PATH; install it (https://kind.sigs.k8s.io) or use --cluster embedded';
export const DOCKER_NOT_FOUND = 'the docker CLI was not found on PATH; kind runs its nodes as Docker containers: install Docker (https://docs.docker.com/engine/install/) or use --cluster embedded';
export const KUBECTL_NOT_FOUND = 'the kubectl CLI was not found on PATH (or $KUBECTL); install it (https://kubernetes.io/docs/tasks/tools/) or use --cluster embedded';

export function kindTooOld(version: string): string {
  return `kind ${version} is too old: the pinned node image ${KIND_NODE_IMAGE} ships containerd 2, into which kind before ${MIN_KIND_VERSION} cannot load images (kubernetes-sigs/kind#3853); install kind ${MIN_KIND_VERSION} or newer (https://kind.sigs.k8s.io/docs/user/quick-start/#installation) or use --cluster embedded`;
}

/** Something kind lanes need that is not there. */
export interface KindProblem {
  what: 'kind' | 'kind-version' | 'docker' | 'docker-daemon' | 'kubectl';
  /** The full message: what is wrong and what to do. */
  message: string;
  /** A few words for `cluster: embedded (…)`. */
  short: string;
}

export type KindAvailability = { ok: true; kindVersion: string } | { ok: false; missing: KindProblem[] };

/** The kubectl the provider runs: $KUBECTL when set, else kubectl from PATH. */
export function kubectlCommand(env: Record<string, string | undefined>): string {
  return env.KUBECTL || 'kubectl';
}

function lastLine(error: unknown): string | undefined {
  const output = error instanceof CommandError ? error.output : String(error);
  return output.split('\n').map((l) => l.trim()).filter(Boolean).pop();
}

/** The kind CLI's version, or the problem with it. */
async function probeKind(commands: Commands): Promise<{ version: string } | KindProblem> {
  let out: string;
  try {
    out = await commands.run('kind', ['version'], { step: 'check the kind version', limit: 'probe', notFound: KIND_NOT_FOUND });
  } catch (error) {
    if (error instanceof CommandError && error.notFound) return { what: 'kind', message: KIND_NOT_FOUND, short: 'no kind CLI on PATH' };
    if (error instanceof CommandError) return { what: 'kind-version', message: `${error.message}; reinstall kind (https://kind.sigs.k8s.io) or use --cluster embedded`, short: '`kind version` failed' };
    throw error;
  }
  // `kind v0.27.0 go1.23.6 linux/amd64` (pre-releases: `kind v0.28.0-alpha.12+abc…`).
  const version = /\bv\d+\.\d+\.\d+\S*/.exec(out)?.[0];
  const core = semver.coerce(version ?? '');
  if (!version || !core) {
    return { what: 'kind-version', message: `could not read a version in the output of \`kind version\` ("${out.trim()}"); install kind ${MIN_KIND_VERSION} or newer or use --cluster embedded`, short: 'unknown kind version' };
  }
  // Compared on MAJOR.MINOR.PATCH: a v0.27.0 pre-release build already has the containerd 2 fix.
  if (semver.lt(core, MIN_KIND_VERSION)) {
    return { what: 'kind-version', message: kindTooOld(version), short: `kind ${version} is older than ${MIN_KIND_VERSION}` };
  }
  return { version };
}

async function probeDocker(commands: Commands): Promise<KindProblem | undefined> {
  try {
    await commands.run('docker', ['info', '--format', '{{.ServerVersion}}'], { step: 'check the Docker daemon', limit: 'probe', notFound: DOCKER_NOT_FOUND });
    return undefined;
  } catch (error) {
    if (error instanceof CommandError && error.notFound) return { what: 'docker', message: DOCKER_NOT_FOUND, short: 'no docker CLI on PATH' };
    if (!(error instanceof CommandError)) throw error;
    const why = error.timedOut ? `no answer within ${commands.timeouts.probe / 1000} s` : lastLine(error);
    return {
      what: 'docker-daemon',
      message: `no running Docker daemon was found (\`docker info\` failed${why ? `: ${why}` : ''}); kind runs its nodes as Docker containers: start Docker or use --cluster embedded`,
      short: 'no Docker daemon found',
    };
  }
}

async function probeKubectl(commands: Commands, kubectl: string): Promise<KindProblem | undefined> {
  try {
    await commands.run(kubectl, ['version', '--client'], { step: 'check kubectl', limit: 'probe', notFound: KUBECTL_NOT_FOUND });
    return undefined;
  } catch (error) {
    if (error instanceof CommandError && error.notFound) return { what: 'kubectl', message: KUBECTL_NOT_FOUND, short: 'no kubectl on PATH' };
    if (error instanceof CommandError) return { what: 'kubectl', message: `${error.message}; reinstall kubectl (https://kubernetes.io/docs/tasks/tools/) or use --cluster embedded`, short: '`kubectl version` failed' };
    throw error;
  }
}

/** All three checked (one after the other, so their order is stable), every problem reported. */
export async function kindAvailability(commands: Commands, kubectl: string): Promise<KindAvailability> {
  const kind = await probeKind(commands);
  const docker = await probeDocker(commands);
  const kubectlProblem = await probeKubectl(commands, kubectl);
  const missing = ['what' in kind ? kind : undefined, docker, kubectlProblem].filter((p): p is KindProblem => p !== undefined);
  if (missing.length || 'what' in kind) return { ok: false, missing };
  return { ok: true, kindVersion: kind.version };
}
