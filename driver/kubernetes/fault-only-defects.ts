/**
 * Defects that pass every scripted scenario on a healthy cluster and break only under faults,
 * kept so the fault scenarios and the search can prove they catch them — never the default. Each
 * is a mistake real controllers make. Caught by a scripted fault scenario (issue 22):
 *   - `stale-supervisor-read`: deciding the supervisor Pod is gone from a read that may be
 *     answered stale (`resourceVersion=0`: any version the API server's cache holds, as an
 *     informer's cache answers), so a lagging view that predates the Pod reads as "gone";
 *   - `watch-trusting-wait`: waiting for the supervisor's deletion on a watch alone and taking the
 *     stream's end for the deletion (a watch may end at any time, with nothing deleted);
 *   - `resume-skips-wait` (in stop.ts): finishing a stop it finds already `suspending` at once,
 *     as if the interrupted stop had seen the workload Pod go — trusting a phase recorded before
 *     the write it announces was seen through;
 *   - `conflict-as-success`: taking a 409 on the suspension patch for the patch having landed.
 * Found by no scripted scenario, only by `npm run explore` (issue 23):
 *   - `expired-watch-as-gone`: waiting for the supervisor's deletion on a watch that is resumed
 *     when it ends (right), but taking a 410 Expired — the server no longer has the history to
 *     resume from, so the client must relist — for the deletion;
 *   - `error-as-gone`: taking a read of the supervisor Pod that failed (a 5xx) for its absence,
 *     the `get().catch(() => null)` that turns every error into "not found";
 *   - `stale-start-read`: a start that finds the sandbox already running, from a read that may be
 *     answered stale (an informer's cache), and does nothing — while the sandbox stands stopped.
 */
import * as https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { DriverError } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isConflict, type KubeObject, type ObjectRef } from './kube.ts';

/** An object read with `resourceVersion=0` (any version the server has), undefined on 404. The typed clients cannot send that on a GET, hence the raw request. */
export async function readAnyVersion(ctx: DriverContext, ref: ObjectRef, what: string): Promise<KubeObject | undefined> {
  const cluster = ctx.kube.config.getCurrentCluster();
  if (!cluster) throw new DriverError('INTERNAL', 'the kubeconfig names no cluster');
  const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion];
  const plural = ref.kind === 'Pod' ? 'pods' : 'sandboxes';
  const url = new URL(`${group ? `/apis/${group}/${version}` : `/api/${version}`}/namespaces/${ref.namespace}/${plural}/${ref.name}?resourceVersion=0`, cluster.server);
  const options: https.RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
  await ctx.kube.config.applyToHTTPSOptions(options);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = https.request(url, options, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  }).catch((error: Error) => Promise.reject(asDriverError(error, `reading ${what}`)));
  if (status === 404) return undefined;
  if (status !== 200) throw new DriverError('INTERNAL', `reading ${what}: HTTP ${status}: ${body.slice(0, 200)}`);
  return JSON.parse(body) as KubeObject;
}

/** Waits for the Pod's DELETED event on a watch from `resourceVersion`; the stream ending (or failing) is taken for the deletion. */
export async function waitOnWatchAlone(ctx: DriverContext, ref: ObjectRef, resourceVersion: string, deadline: number): Promise<void> {
  const watch = new k8s.Watch(ctx.kube.config);
  let request: { abort(): void } | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DriverError('UNAVAILABLE', 'timed out waiting for supervisor Pod deletion')), Math.max(0, deadline - Date.now()));
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      watch
        .watch(`/api/v1/namespaces/${ref.namespace}/pods`, { fieldSelector: `metadata.name=${ref.name}`, resourceVersion }, (type) => type === 'DELETED' && done(), done)
        .then((r) => (request = r), done);
    });
  } finally {
    request?.abort();
  }
}

/** The suspension patch, once: a 409 is taken for the patch having landed, and the Sandbox is returned as if it had. */
export async function suspendTakingConflictAsWritten(ctx: DriverContext, cr: KubeObject, patch: Record<string, unknown>): Promise<KubeObject> {
  ctx.call.enter('suspending the workload');
  try {
    return await ctx.kube.mergePatch(ctx.ref(cr), { ...patch, metadata: { ...(patch.metadata as object), resourceVersion: cr.metadata!.resourceVersion } });
  } catch (error) {
    if (!isConflict(error)) throw asDriverError(error, `suspending the workload: updating Sandbox ${cr.metadata!.name}`);
    // The defect: the Sandbox as it would be had the patch landed.
    const annotations = { ...cr.metadata?.annotations, ...((patch.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {}) };
    return { ...cr, metadata: { ...cr.metadata, annotations }, spec: { ...cr.spec, ...(patch.spec as object) } };
  }
}

/**
 * Waits for the Pod's DELETED event on a watch from `resourceVersion`, resumed from the last
 * event seen whenever the stream ends (as it may at any time); but a 410 Expired — the resume
 * refused, the history gone — is taken for the deletion instead of relisting.
 */
export async function waitTakingExpiryForDeletion(ctx: DriverContext, ref: ObjectRef, resourceVersion: string, deadline: number): Promise<void> {
  const watch = new k8s.Watch(ctx.kube.config);
  let from = resourceVersion;
  while (Date.now() < deadline) {
    let request: { abort(): void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await new Promise<'deleted' | 'expired' | 'ended'>((resolve) => {
      timer = setTimeout(() => resolve('ended'), Math.max(0, deadline - Date.now()));
      const expired = (error: unknown) => /\b410\b|expired|too old/i.test(String((error as Error | undefined)?.message ?? error));
      watch
        .watch(
          `/api/v1/namespaces/${ref.namespace}/pods`,
          { fieldSelector: `metadata.name=${ref.name}`, resourceVersion: from },
          (type, object: KubeObject & { code?: number }) => {
            if (type === 'DELETED') resolve('deleted');
            else if (type === 'ERROR') resolve(object.code === 410 ? 'expired' : 'ended');
            else if (object.metadata?.resourceVersion) from = object.metadata.resourceVersion;
          },
          (error) => resolve(error && expired(error) ? 'expired' : 'ended'),
        )
        .then((r) => (request = r), (error) => resolve(expired(error) ? 'expired' : 'ended'));
    });
    clearTimeout(timer);
    request?.abort();
    // The defect: an expired resume read as the Pod having been deleted.
    if (outcome !== 'ended') return;
    await ctx.call.sleep(200);
  }
  throw new DriverError('UNAVAILABLE', 'timed out waiting for supervisor Pod deletion');
}
