/**
 * Workspace modes: managed mode makes `openshell-<gateway>-<workspace>` and its ServiceAccount;
 * operator mode uses only namespaces an operator labelled and never creates one.
 */
import type { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { LABEL } from './names.ts';
import { MAIN, driverError, expect, leftovers, namespaceNames, stopOrderViolations, test } from './test-kit.ts';

const OPERATOR_LABEL = 'openshell.ai/e2e-operator-workspace';

function namespace(cluster: EmbeddedCluster, name: string, labels?: Record<string, string>): void {
  cluster.api.create(cluster.api.target('v1', 'namespaces'), { metadata: { name, labels } });
}

test.describe('workspace modes', () => {
  test('managed mode creates openshell-gw-<workspace> and its ServiceAccount, and names the Sandbox bare', async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const d = lab.driver(cluster, { workspaceMode: 'managed' });

    const sb = await d.create({ name: 'demo', workspace: 'alpha', command: MAIN });
    expect(sb).toMatchObject({ phase: 'Ready', workspace: 'alpha', namespace: 'openshell-gw-alpha', objects: { sandbox: 'demo', workloadPod: 'demo' } });
    const ns = cluster.api.get(cluster.api.target('v1', 'namespaces'), 'openshell-gw-alpha');
    expect(ns.metadata.labels).toMatchObject({ [LABEL.managedBy]: 'openshell', [LABEL.gatewayId]: 'gw' });
    const sa = cluster.api.get(cluster.api.target('v1', 'serviceaccounts', 'openshell-gw-alpha'), 'openshell-sandbox');
    expect(sa.metadata.labels).toMatchObject({ [LABEL.managedBy]: 'openshell' });
    expect(namespaceNames(cluster)).not.toContain('openshell');

    // The bare name may be 63 characters here (shared mode would refuse it); 64 is refused.
    await d.validate({ name: 'a'.repeat(63), workspace: 'alpha', command: MAIN });
    expect((await driverError(d.validate({ name: 'a'.repeat(64), workspace: 'alpha', command: MAIN }))).message).toContain('is 64 characters; the limit is 63');
    // So may the namespace: openshell-gw- + 50 = 63 is fine, 51 is refused before anything is made.
    await d.validate({ name: 'demo', workspace: 'w'.repeat(50), command: MAIN });
    const long = await driverError(d.create({ name: 'demo', workspace: 'w'.repeat(51), command: MAIN }));
    expect(long.code).toBe('INVALID_ARGUMENT');
    expect(long.message).toContain(`would be namespace "openshell-gw-${'w'.repeat(51)}", 64 characters; the limit is 63`);
    expect(namespaceNames(cluster).filter((n) => n.startsWith('openshell-gw-'))).toEqual(['openshell-gw-alpha']);

    // The same lifecycle order holds in the workspace namespace.
    expect((await d.stop(sb.id)).phase).toBe('Stopped');
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    expect((await d.start(sb.id)).phase).toBe('Ready');
    expect(await d.delete(sb.id)).toBe(true);
  });

  test('operator mode uses only labelled namespaces and never creates one', async ({ lab }) => {
    const cluster = await lab.cluster();
    namespace(cluster, 'team-a', { [OPERATOR_LABEL]: 'true' });
    namespace(cluster, 'team-b');
    namespace(cluster, 'team-d', { [OPERATOR_LABEL]: 'false' });
    const d = lab.driver(cluster, { workspaceMode: 'operator' });
    const namespaces = namespaceNames(cluster);
    const empty = { pods: [], services: [], secrets: [], persistentvolumeclaims: [], sandboxes: [] };

    for (const workspace of ['team-b', 'team-d']) {
      const refused = await driverError(d.create({ name: 'demo', workspace, command: MAIN }));
      expect(refused.code).toBe('FAILED_PRECONDITION');
      expect(refused.message).toBe(`namespace "${workspace}" is not an operator-managed workspace: it lacks the label ${OPERATOR_LABEL}=true, so the driver refuses to use it`);
      expect(leftovers(cluster, workspace)).toEqual(empty);
    }
    const missing = await driverError(d.create({ name: 'demo', workspace: 'team-c', command: MAIN }));
    expect(missing.code).toBe('FAILED_PRECONDITION');
    expect(missing.message).toBe(`workspace "team-c" has no namespace: in operator mode the operator creates namespace "team-c" labelled ${OPERATOR_LABEL}=true; the driver never creates one`);

    const sb = await d.create({ name: 'demo', workspace: 'team-a', command: MAIN });
    expect(sb).toMatchObject({ phase: 'Ready', namespace: 'team-a', objects: { sandbox: 'demo' } });
    expect(namespaceNames(cluster)).toEqual(namespaces);
    expect((await d.list()).map((s) => [s.namespace, s.name])).toEqual([['team-a', 'demo']]);
    expect(await d.delete(sb.id)).toBe(true);
  });
});
