/**
 * Golden pairs for whole reconciles: testdata/reconcile/<case>.input.yaml is a sequence of steps
 * (create, spec changes, the stand-in kubelet, foreign objects, faults on the controller's own
 * requests); <case>.golden.yaml holds, per release, what the Sandbox shows once the controller
 * has settled after each step. Realism is off here, so each step's outcome is the controller's
 * steady answer to it (realism has its own tests); UIDs are masked.
 */
import { expect, test } from '@playwright/test';
import type { FaultSpec } from './controller-request-faults.ts';
import type { Condition } from './conditions.ts';
import { expectGolden, goldenCases, readGoldenInput, SandboxWorld } from './test-kit.ts';
import { POD_NAME_ANNOTATION } from './agent-sandbox-names.ts';
import { AGENT_SANDBOX_VERSIONS } from './profiles.ts';

const NAME = 'golden-box';

interface Step {
  name: string;
  create?: Record<string, unknown>;
  patchSpec?: Record<string, unknown>;
  suspend?: boolean;
  run?: boolean;
  finalize?: boolean;
  deleteService?: boolean;
  deletePvc?: string;
  /** A label on the Sandbox: an event that makes the controller look again. */
  poke?: boolean;
  fault?: FaultSpec;
  clearFaults?: boolean;
}

interface Case {
  /** A Service named like the Sandbox, controlled by a ConfigMap, made before anything else. */
  foreignService?: boolean;
  /** Likewise a PVC named like the first claim template's. */
  foreignPvc?: boolean;
  steps: Step[];
}

const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function observe(world: SandboxWorld) {
  const sandbox = world.sandbox(NAME);
  const { conditions = [], ...status } = (sandbox.status ?? {}) as { conditions?: Condition[] };
  const pod = world.get('pods', NAME);
  const seen = {
    conditions: conditions.map(({ lastTransitionTime: _t, ...rest }) => rest),
    status,
    podNameAnnotation: sandbox.metadata.annotations?.[POD_NAME_ANNOTATION] ?? null,
    pod: !pod ? 'absent' : pod.metadata.deletionTimestamp ? 'terminating' : ((pod.status as { phase?: string } | undefined)?.phase ?? 'Pending'),
    service: world.get('services', NAME)?.metadata.ownerReferences?.[0]?.kind ?? 'absent',
    pvcs: world.api.list(world.target('persistentvolumeclaims')).items.map((p) => `${p.metadata.name} (${p.metadata.ownerReferences?.[0]?.kind})`),
  };
  return JSON.parse(JSON.stringify(seen).replace(UID, '<uid>')) as typeof seen;
}

async function play(world: SandboxWorld, input: Case) {
  const controller = world.installation.controller;
  const owner = world.api.create(world.api.target('v1', 'configmaps', 'default'), { metadata: { name: 'other-owner' } }).object;
  const foreign = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other-owner', uid: owner.metadata.uid!, controller: true }];
  if (input.foreignPvc) {
    const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    world.api.create(world.target('persistentvolumeclaims'), { metadata: { name: `first-${NAME}`, ownerReferences: foreign }, spec });
  }
  if (input.foreignService) {
    world.api.create(world.target('services'), {
      metadata: {
        name: NAME,
        labels: { 'agents.x-k8s.io/sandbox-name-hash': 'foreign' },
        ownerReferences: foreign,
      },
      spec: { clusterIP: 'None', selector: { app: 'elsewhere' } },
    });
  }
  const out: unknown[] = [];
  for (const step of input.steps) {
    test.info().annotations.push({ type: 'step', description: `${world.version}: ${step.name}` });
    if (step.clearFaults) {
      // A failed request is retried after its backoff: wait for that retry, when one is due.
      const before = controller.reconcileCount;
      controller.faults.clear();
      if (controller.delayedCount()) await expect.poll(() => controller.reconcileCount).toBeGreaterThan(before);
    }
    if (step.fault) controller.faults.add(step.fault);
    if (step.create) world.createSandbox(NAME, step.create);
    if (step.run) {
      await world.livePod(NAME);
      world.run(NAME, { bind: true });
    }
    if (step.patchSpec) world.patchSpec(NAME, step.patchSpec);
    if (step.suspend) world.suspend(NAME);
    if (step.finalize) world.finalize(NAME);
    if (step.deleteService) world.api.delete(world.target('services'), NAME);
    if (step.deletePvc) world.api.delete(world.target('persistentvolumeclaims'), step.deletePvc);
    if (step.poke) world.api.patch(world.sandboxes(), NAME, 'merge', { metadata: { labels: { poke: step.name.length.toString() } } });
    await controller.settled();
    out.push({ step: step.name, ...observe(world) });
  }
  return out;
}

for (const name of goldenCases('reconcile')) {
  test(`reconcile golden: ${name}`, async () => {
    const input = readGoldenInput<Case>('reconcile', name);
    const actual: Record<string, unknown> = {};
    for (const version of AGENT_SANDBOX_VERSIONS) {
      const world = await SandboxWorld.start(version, { enabled: false });
      try {
        actual[version] = await play(world, input);
      } finally {
        await world.stop();
      }
    }
    expectGolden('reconcile', name, actual);
  });
}
