/**
 * Runs a client task (http-load.ts) in a worker thread. The servers under test (the bare
 * baseline and the embedded cluster) live on the main thread; keeping the load generator
 * off that event loop means the measured rate is the server's, not server + client
 * sharing one thread. On a 2-core machine: one core serves, one core drives.
 *
 * Each task gets a fresh worker that is terminated afterwards, so nothing of the client
 * stays in the process when memory is measured.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import {
  runAlternating,
  runLoad,
  timeGets,
  timeInterleavedGets,
  type AlternatingPlan,
  type AlternatingResult,
  type GetPlan,
  type GetResult,
  type InterleavedGetPlan,
  type InterleavedGetResult,
  type LoadPlan,
  type LoadResult,
} from './http-load.ts';
import { runWatch, type WatchPlan, type WatchResult } from './watch-delivery.ts';

type Task =
  | { kind: 'load'; plan: LoadPlan }
  | { kind: 'alternate'; plan: AlternatingPlan }
  | { kind: 'get'; plan: GetPlan }
  | { kind: 'interleaved-gets'; plan: InterleavedGetPlan }
  | { kind: 'watch'; plan: WatchPlan };

type ResultOf<T extends Task> = T extends { kind: 'load' }
  ? LoadResult
  : T extends { kind: 'alternate' }
    ? AlternatingResult
    : T extends { kind: 'get' }
      ? GetResult
      : T extends { kind: 'interleaved-gets' }
        ? InterleavedGetResult
        : WatchResult;

type Message = { type: 'progress'; line: string } | { type: 'result'; value: unknown } | { type: 'error'; message: string };

export async function runInWorker<T extends Task>(task: T, progress: (line: string) => void): Promise<ResultOf<T>> {
  // Workers do not inherit tsx's loader hooks on Node 20, so the worker starts as plain JS
  // that registers tsx and then imports this file.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) => tsImport(${JSON.stringify(import.meta.url)}, ${JSON.stringify(import.meta.url)}))`;
  const worker = new Worker(boot, { eval: true, workerData: task });
  try {
    return await new Promise<ResultOf<T>>((resolve, reject) => {
      worker.on('message', (message: Message) => {
        if (message.type === 'progress') progress(message.line);
        else if (message.type === 'result') resolve(message.value as ResultOf<T>);
        else reject(new Error(`client worker: ${message.message}`));
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`client worker exited with code ${code} before answering`)));
    });
  } finally {
    await worker.terminate();
  }
}

async function serve(task: Task): Promise<unknown> {
  const progress = (line: string) => parentPort!.postMessage({ type: 'progress', line } satisfies Message);
  switch (task.kind) {
    case 'load':
      return runLoad(task.plan, progress);
    case 'alternate':
      return runAlternating(task.plan, progress);
    case 'get':
      return timeGets(task.plan, progress);
    case 'interleaved-gets':
      return timeInterleavedGets(task.plan, progress);
    case 'watch':
      return runWatch(task.plan, progress);
  }
}

if (!isMainThread && parentPort && workerData && typeof (workerData as Task).kind === 'string') {
  serve(workerData as Task).then(
    (value) => parentPort!.postMessage({ type: 'result', value } satisfies Message),
    (error: Error) => parentPort!.postMessage({ type: 'error', message: error.stack ?? error.message } satisfies Message),
  );
}
