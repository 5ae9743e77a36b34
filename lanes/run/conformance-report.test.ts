import { expect, test } from '@playwright/test';
import { findLane } from '../index.ts';
import { conformanceReport, CONTRACT } from './conformance-report.ts';

test('conformance-report: the harness and contract, the driver as declared else as it answered, capabilities, each lane\'s scenarios and invariants', () => {
  const lane = findLane('v1beta1');
  const report = conformanceReport(
    {
      driver: { kind: 'exec', command: 'my-driver serve' },
      declaredDriver: { version: '1.4.0' },
      capabilities: { declared: ['workspace-mode/shared', 'sandbox-api/v1beta1'], source: 'conformance.yaml' },
      lanes: [
        {
          lane,
          cluster: 'embedded',
          failed: false,
          driverIdentity: { name: 'my-driver', version: '1.3.9' },
          kubernetesVersion: 'v1.32.0',
          outcomes: [
            { scenario: 'scenarios/x › x: stops', status: 'passed', verdicts: [{ id: 'stop/a', status: 'PASS' }] },
            { scenario: 'scenarios/under-faults/y › y', status: 'skipped', detail: 'capability not declared: faults' },
            { scenario: 'conformance/mine › mine', status: 'passed', verdicts: [{ id: 'stop/a', status: 'FAIL' }, { id: 'stop/b', status: 'INCONCLUSIVE', noEpisode: true }] },
          ],
        },
      ],
    },
    new Date('2026-01-01T00:00:00Z'),
  );
  expect(report).toMatchObject({
    harness: { name: 'sandbox-conformance', contract: CONTRACT },
    date: '2026-01-01T00:00:00.000Z',
    driver: { name: 'my-driver', version: '1.4.0', reportedOnTheWire: { name: 'my-driver', version: '1.3.9' }, underTest: 'external: my-driver serve' },
    capabilities: { declared: ['workspace-mode/shared', 'sandbox-api/v1beta1'], exempt: ['workspace-mode/managed', 'workspace-mode/operator', 'sandbox-api/v1alpha1', 'replicas', 'restart', 'faults'], source: 'conformance.yaml' },
    result: 'passed',
    lanes: [
      {
        name: 'shared-v1beta1',
        agentSandbox: 'v0.5.0',
        sandboxApi: 'v1beta1',
        kubernetes: 'v1.32.0',
        scenarios: [
          { scenario: 'scenarios/x › x: stops', result: 'passed' },
          { scenario: 'scenarios/under-faults/y › y', result: 'skipped', reason: 'capability not declared: faults' },
          { scenario: 'conformance/mine › mine', result: 'passed' },
        ],
        invariants: { 'stop/a': { violations: 1, evaluations: 2, inconclusive: 0 }, 'stop/b': { violations: 0, evaluations: 0, inconclusive: 0 } },
      },
    ],
  });
});
