import type { ServerResponse } from 'node:http';
import { ApiError, errors } from '../errors.ts';
import type { ObjectApi, Target, WatchOptions } from '../registry/object-api.ts';
import type { WatchEventType } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { toTable } from './tables.ts';
import type { WatchEventEncoder } from './watch-encoding.ts';

export interface WatchStreamOptions extends WatchOptions {
  table: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  bookmarkIntervalMs: number;
}

/**
 * Serves one watch as a chunked stream of `{"type","object"}` lines, in commit order.
 * A resourceVersion that left the history window is answered, as kube-apiserver does,
 * with 200 and one ERROR event carrying a 410 Expired Status.
 */
export function streamWatch(
  api: ObjectApi,
  encoder: WatchEventEncoder,
  target: Target,
  options: WatchStreamOptions,
  res: ServerResponse,
  onClose: (stop: () => void) => void,
): void {
  // The 200 goes out with the first event (or once the watch is set up), so that a request the
  // watch refuses outright (a bad selector) is answered with a plain error status, as upstream does.
  const open = () => {
    if (res.headersSent) return;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  let finished = false;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => void) | undefined;
  const finish = () => {
    if (finished) return;
    finished = true;
    unsubscribe?.();
    for (const t of timers) clearTimeout(t), clearInterval(t);
    res.end();
  };
  const write = (type: string, object: unknown) => {
    if (finished) return;
    open();
    res.write(JSON.stringify({ type, object }) + '\n');
  };
  const representation = options.table ? 'table' : 'object';
  const render = options.table ? (object: KubeObject) => toTable(target.type, target.version, [object], { resourceVersion: object.metadata.resourceVersion }) : (object: KubeObject) => object;
  // Object events are encoded once for all watchers (WatchEventEncoder); errors and bookmarks are this stream's own.
  const emit = (type: WatchEventType, object: KubeObject) => {
    if (finished) return;
    open();
    res.write(encoder.line(type, object, representation, render));
  };
  try {
    unsubscribe = api.watch(target, options, emit);
  } catch (error) {
    if (!res.headersSent && !(error instanceof ApiError && error.code === 410)) throw error;
    const status = error instanceof ApiError ? error : errors.internal((error as Error).message);
    write('ERROR', status.toStatus());
    finish();
    return;
  }
  open();
  if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0) timers.push(setTimeout(finish, options.timeoutSeconds * 1000));
  if (options.allowWatchBookmarks) {
    const bookmark = () => {
      const apiVersion = target.type.group ? `${target.type.group}/${target.version.name}` : target.version.name;
      write('BOOKMARK', { kind: target.type.kind, apiVersion, metadata: { resourceVersion: String(api.store.currentRevision()) } });
    };
    timers.push(setInterval(bookmark, options.bookmarkIntervalMs));
  }
  onClose(finish);
}
