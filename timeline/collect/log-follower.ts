import * as k8s from '@kubernetes/client-node';
import { Writable } from 'node:stream';
import type { ObjectEntry } from '../model.ts';

/** A followed container's output is kept up to this many bytes (its head: how it started and what it said first). */
const MAX_LOG_BYTES = 1 << 20;

/** What one container run said, as followed while the test ran. */
export interface FollowedLog {
  namespace: string;
  pod: string;
  container: string;
  /** status.containerStatuses[].restartCount of the run followed (0 for the first). */
  restartCount: number;
  text: string;
}

interface Follow {
  log: FollowedLog;
  bytes: number;
  request?: AbortController;
}

/**
 * Follows the containers of a test's own Pods while the test runs, so a failure shows what a
 * container said even when its Pod is gone by the time the test fails — a stopped supervisor is,
 * and on a real cluster a deleted Pod's logs go with it. Fed the recorder's Pod entries; a
 * container is followed from the first entry that shows it started and names one of the test's
 * sandboxes (an id is known only once create returns, so that can be a later entry). A followed
 * log starts at the container's first line, so a late start loses nothing while the Pod exists;
 * each restart is followed as its own run.
 */
export class ContainerLogFollower {
  private readonly follows = new Map<string, Follow>();
  private stopped = false;

  constructor(
    private readonly kubeconfig: k8s.KubeConfig,
    /** Whether a sandbox id is one of the test's. */
    private readonly mine: (sandboxId: string) => boolean,
  ) {}

  /** Takes one recorded entry; starts following any of its containers that started and is not followed yet. */
  see(entry: ObjectEntry): void {
    if (this.stopped || entry.resource !== 'pods' || entry.type === 'DELETED' || !entry.sandboxId || !this.mine(entry.sandboxId)) return;
    for (const container of entry.containers ?? []) {
      if (container.state === 'waiting') continue;
      const restartCount = container.restartCount ?? 0;
      const key = `${entry.uid}/${container.name}/${restartCount}`;
      if (this.follows.has(key)) continue;
      const follow: Follow = { log: { namespace: entry.namespace, pod: entry.name, container: container.name, restartCount, text: '' }, bytes: 0 };
      this.follows.set(key, follow);
      void this.open(key, follow);
    }
  }

  /** Stops following; returns every log followed, the ones that said nothing left out. */
  stop(): FollowedLog[] {
    this.stopped = true;
    for (const follow of this.follows.values()) follow.request?.abort();
    return [...this.follows.values()]
      .filter((f) => f.bytes > 0)
      .map((f) => (f.bytes > MAX_LOG_BYTES ? { ...f.log, text: `${f.log.text}\n… ${f.bytes - MAX_LOG_BYTES} bytes more not kept\n` } : f.log));
  }

  private async open(key: string, follow: Follow): Promise<void> {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (follow.bytes < MAX_LOG_BYTES) follow.log.text += chunk.subarray(0, MAX_LOG_BYTES - follow.bytes).toString('utf8');
        follow.bytes += chunk.length;
        done();
      },
    });
    try {
      follow.request = await new k8s.Log(this.kubeconfig).log(follow.log.namespace, follow.log.pod, follow.log.container, sink, { follow: true, timestamps: true });
      if (this.stopped) follow.request.abort();
    } catch {
      // Not readable yet (or any more): a later entry of this Pod tries again, unless it already said something.
      if (follow.bytes === 0) this.follows.delete(key);
    }
  }
}
