import * as k8s from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';

export interface WatchedObject {
  /** A collection path: `/api/v1/namespaces/ns/pods`. */
  path: string;
  name: string;
}

/**
 * Shortens the driver's polling waits: a watch on the objects being waited for wakes the poll
 * loop as soon as one of them changes. The poll loop keeps OpenShell's intervals as the
 * fallback and stays the judge of completion; a watch that cannot open only costs latency.
 */
export class ChangeSignal {
  private wake?: () => void;
  private readonly requests: { abort(): void }[] = [];
  private closed = false;

  private constructor() {}

  static open(kubeconfig: k8s.KubeConfig, objects: WatchedObject[]): ChangeSignal {
    const signal = new ChangeSignal();
    const watcher = new k8s.Watch(kubeconfig);
    for (const object of objects) {
      void watcher
        .watch(object.path, { fieldSelector: `metadata.name=${object.name}` }, () => signal.notify(), () => undefined)
        .then(
          (request) => (signal.closed ? request.abort() : signal.requests.push(request)),
          () => undefined,
        );
    }
    return signal;
  }

  /** Waits `ms`, or less when a watched object changes or `abort` fires. */
  async sleep(ms: number, abort?: AbortSignal): Promise<void> {
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    abort?.addEventListener('abort', onAbort, { once: true });
    if (abort?.aborted) timer.abort();
    await Promise.race([sleep(ms, undefined, { signal: timer.signal }).catch(() => undefined), woken]);
    abort?.removeEventListener('abort', onAbort);
    timer.abort();
    this.wake = undefined;
  }

  close(): void {
    this.closed = true;
    for (const request of this.requests) request.abort();
    this.notify();
  }

  private notify(): void {
    this.wake?.();
  }
}
