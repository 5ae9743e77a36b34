import { DriverError } from '../compute-driver.ts';
import type { DriverContext } from './context.ts';
import { asDriverError, isAlreadyExists, isConflict } from './kube.ts';
import { LABEL, MANAGED_BY, MANAGED_SERVICE_ACCOUNT } from './names.ts';


/** The namespace a workspace maps to in the driver's mode, without creating anything. */
export function workspaceNamespace(ctx: DriverContext, workspace: string): string {
  switch (ctx.config.workspaceMode) {
    case 'shared':
      return ctx.config.namespace;
    case 'managed':
      return `openshell-${ctx.config.gatewayId}-${workspace}`;
    case 'operator':
      return workspace;
  }
}

/**
 * Makes sure the workspace's namespace can hold a sandbox: shared mode ensures the driver's
 * namespace; managed mode ensures `openshell-{gateway}-{workspace}` and its service account;
 * operator mode only accepts namespaces an operator labelled, and never creates one.
 */
export async function ensureWorkspace(ctx: DriverContext, workspace: string): Promise<string> {
  const namespace = workspaceNamespace(ctx, workspace);
  const nsRef = { apiVersion: 'v1', kind: 'Namespace', name: namespace };
  if (ctx.config.workspaceMode === 'operator') {
    const [key, value] = ctx.config.operatorNamespaceLabel.split('=');
    const ns = await ctx.kube.get(nsRef).catch((e) => Promise.reject(asDriverError(e, `reading namespace ${namespace}`)));
    if (!ns) throw new DriverError('FAILED_PRECONDITION', `workspace "${workspace}" has no namespace: in operator mode the operator creates namespace "${namespace}" labelled ${ctx.config.operatorNamespaceLabel}; the driver never creates one`);
    if (ns.metadata?.labels?.[key] !== value) {
      throw new DriverError('FAILED_PRECONDITION', `namespace "${namespace}" is not an operator-managed workspace: it lacks the label ${ctx.config.operatorNamespaceLabel}, so the driver refuses to use it`);
    }
    return namespace;
  }
  await createIfMissing(ctx, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.gatewayId]: ctx.config.gatewayId } } });
  if (ctx.config.workspaceMode === 'managed') {
    await createIfMissing(ctx, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: MANAGED_SERVICE_ACCOUNT, namespace, labels: { [LABEL.managedBy]: MANAGED_BY } }, automountServiceAccountToken: false });
  }
  return namespace;
}

async function createIfMissing(ctx: DriverContext, object: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown }): Promise<void> {
  const existing = await ctx.kube.get({ apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace, name: object.metadata.name }).catch((e) => Promise.reject(asDriverError(e, `reading ${object.kind} ${object.metadata.name}`)));
  if (existing) {
    if (existing.metadata?.deletionTimestamp) throw new DriverError('UNAVAILABLE', `${object.kind} ${object.metadata.name} is being deleted; retry once it is gone`);
    return;
  }
  try {
    await ctx.kube.create(object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw asDriverError(error, `creating ${object.kind} ${object.metadata.name}`);
  }
}

/**
 * DeleteWorkspace: in managed mode the workspace's namespace goes (UID-guarded; its sandboxes
 * with it); shared and operator modes own no namespace per workspace and delete nothing.
 */
export async function deleteWorkspace(ctx: DriverContext, workspace: string): Promise<void> {
  if (ctx.config.workspaceMode !== 'managed') return;
  const namespace = workspaceNamespace(ctx, workspace);
  ctx.call.enter(`deleting namespace ${namespace}`);
  const ref = { apiVersion: 'v1', kind: 'Namespace', name: namespace };
  const ns = await ctx.kube.get(ref).catch((e) => Promise.reject(asDriverError(e, `reading namespace ${namespace}`)));
  if (!ns || ns.metadata?.deletionTimestamp) return;
  if (ns.metadata?.labels?.[LABEL.managedBy] !== MANAGED_BY) throw new DriverError('FAILED_PRECONDITION', `namespace "${namespace}" was not created by this driver (it lacks ${LABEL.managedBy}=${MANAGED_BY}); it is left alone`);
  await ctx.kube.delete(ref, { preconditions: { uid: ns.metadata!.uid! } }).catch((e) => {
    if (!isConflict(e)) return Promise.reject(asDriverError(e, `deleting namespace ${namespace}`));
  });
}
