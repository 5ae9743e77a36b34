/**
 * Golden tests over the profile tables, kwok-style: each testdata/conditions/<case>.input.yaml is
 * a sequence of observed states; <case>.golden.yaml holds, per release, the conditions after each
 * step (each step starts from the previous step's conditions, so order, stale conditions and
 * lastTransitionTime carry over). Regenerate with UPDATE_GOLDEN=1 and review the diff.
 */
import { expect, test } from '@playwright/test';
import { nextConditions, observe, type Condition, type ObservedInput } from './conditions.ts';
import { expectGolden, goldenCases, readGoldenInput } from './test-kit.ts';
import { AGENT_SANDBOX_PROFILES, AGENT_SANDBOX_VERSIONS, agentSandboxProfile, specSuspended } from './profiles.ts';

interface Step {
  name: string;
  generation: number;
  suspended: boolean;
  expired?: boolean;
  errors?: string[];
  podError?: boolean;
  service?: ObservedInput['service'];
  pod?: { phase: string; ready?: boolean; podIPs?: string[]; owned?: boolean };
}

type Golden = Record<string, { step: string; conditions: Condition[] }[]>;

/** Step i happens at second i, so a lastTransitionTime says in which step the status flipped. */
function stepTime(i: number): string {
  return `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`;
}

function play(steps: Step[]): Golden {
  const golden: Golden = {};
  for (const version of AGENT_SANDBOX_VERSIONS) {
    const profile = AGENT_SANDBOX_PROFILES[version];
    let conditions: Condition[] = [];
    golden[version] = steps.map((step, i) => {
      const input: ObservedInput = {
        suspended: step.suspended,
        expired: step.expired,
        errors: step.errors,
        podError: step.podError,
        service: step.service,
        pod: step.pod && { phase: step.pod.phase, ready: step.pod.ready ?? false, podIPs: step.pod.podIPs ?? [], owned: step.pod.owned ?? true },
      };
      conditions = nextConditions(profile, observe(profile, input), conditions, step.generation, stepTime(i), step.errors ?? []);
      return { step: step.name, conditions };
    });
  }
  return golden;
}

const cases = goldenCases('conditions');

test('there are golden cases', () => {
  expect(cases.length).toBeGreaterThanOrEqual(6);
});

for (const name of cases) {
  test(`conditions golden: ${name}`, () => {
    const { steps } = readGoldenInput<{ steps: Step[] }>('conditions', name);
    expectGolden('conditions', name, play(steps));
  });
}

test('an unknown release is refused with the known ones listed', () => {
  expect(() => agentSandboxProfile('v0.5.1')).toThrow('unknown Agent Sandbox version "v0.5.1"; known versions: v0.4.6, v0.5.0, v0.5.4');
});

test('suspension is read from replicas (v0.4.6) or operatingMode (v0.5.x), unset meaning running', () => {
  const v046 = AGENT_SANDBOX_PROFILES['v0.4.6'];
  const v054 = AGENT_SANDBOX_PROFILES['v0.5.4'];
  expect([specSuspended(v046, { replicas: 0 }), specSuspended(v046, { replicas: 1 }), specSuspended(v046, {})]).toEqual([true, false, false]);
  expect([specSuspended(v054, { operatingMode: 'Suspended' }), specSuspended(v054, { operatingMode: 'Running' }), specSuspended(v054, { replicas: 0 })]).toEqual([true, false, false]);
});

test('profiles differ where the reference says they do', () => {
  const [a, b, c] = AGENT_SANDBOX_VERSIONS.map((v) => AGENT_SANDBOX_PROFILES[v]);
  expect([a.ownerApiVersion, b.ownerApiVersion, c.ownerApiVersion]).toEqual(['agents.x-k8s.io/v1alpha1', 'agents.x-k8s.io/v1beta1', 'agents.x-k8s.io/v1beta1']);
  expect([a.trackTerminatingPod, b.trackTerminatingPod, c.trackTerminatingPod]).toEqual([false, false, true]);
  expect([a.adoption.requiresLabel, b.adoption.requiresLabel, c.adoption.requiresLabel]).toEqual([false, true, true]);
  expect([a.status.write, b.status.write, c.status.write]).toEqual(['update', 'update', 'merge-patch']);
});
