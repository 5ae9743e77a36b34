/**
 * `conformance-report.yaml`: what a driver publishes after a run (as Gateway API implementations
 * publish theirs): the harness and contract versions, the driver's name and version, each lane's
 * Agent Sandbox release and Kubernetes version, each scenario's result, each invariant's
 * violations/evaluations, and the capabilities the driver declared and those it is exempt from.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { exemptCapabilities, type DeclaredCapabilities } from '../capabilities.ts';
import type { Lane } from '../lane-declaration.ts';
import { COMPILED, ROOT } from './lane-job.ts';
import { describeDriver, type DriverUnderTest } from './lane-run.ts';
import { invariantRates, type Outcome } from './summary-table.ts';

export const CONFORMANCE_REPORT = 'conformance-report.yaml';

/** The contract the suite checks a driver against: OpenShell's compute driver gRPC service. */
export const CONTRACT = 'openshell.compute.v1.ComputeDriver';

/** This package's name and version (its package.json: beside the checkout's sources, or above dist/). */
export function harnessVersion(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(ROOT, COMPILED ? '..' : '.', 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export interface LaneReport {
  lane: Lane;
  cluster: string;
  failed: boolean;
  outcomes?: Outcome[];
  driverIdentity?: { name: string; version: string };
  kubernetesVersion?: string;
}

export interface ConformanceReportInput {
  driver: DriverUnderTest;
  /** From conformance.yaml or --driver-version; else the driver's own GetCapabilities answer. */
  declaredDriver: { name?: string; version?: string };
  capabilities?: DeclaredCapabilities;
  lanes: LaneReport[];
}

/** The report as data (what the YAML file holds). */
export function conformanceReport(input: ConformanceReportInput, now = new Date()): Record<string, unknown> {
  const answered = input.lanes.find((l) => l.driverIdentity)?.driverIdentity;
  const failed = input.lanes.some((l) => l.failed);
  return {
    harness: { ...harnessVersion(), contract: CONTRACT },
    date: now.toISOString(),
    driver: {
      name: input.declaredDriver.name ?? answered?.name ?? 'unknown',
      version: input.declaredDriver.version ?? answered?.version ?? 'unknown',
      ...(answered && { reportedOnTheWire: answered }),
      underTest: describeDriver(input.driver),
    },
    capabilities: {
      declared: input.capabilities?.declared ?? 'all',
      exempt: exemptCapabilities(input.capabilities),
      ...(input.capabilities && { source: input.capabilities.source }),
    },
    result: failed ? 'failed' : 'passed',
    lanes: input.lanes.map((l) => ({
      name: l.lane.name,
      agentSandbox: l.lane.agentSandbox.version,
      sandboxApi: l.lane.agentSandbox.apiVersion,
      kubernetes: l.kubernetesVersion ?? 'unknown',
      cluster: l.cluster,
      result: l.failed ? 'failed' : 'passed',
      scenarios: (l.outcomes ?? []).map((o) => ({ scenario: o.scenario, result: o.status, ...(o.detail && { [o.status === 'skipped' ? 'reason' : 'detail']: o.detail }) })),
      invariants: Object.fromEntries(invariantRates(l.outcomes ?? []).map((r) => [r.id, { violations: r.violations, evaluations: r.evaluations, inconclusive: r.inconclusive, ...(r.expected && { expectedByTest: r.expected }) }])),
    })),
  };
}

export function writeConformanceReport(reportRoot: string, input: ConformanceReportInput): string {
  const path = join(reportRoot, CONFORMANCE_REPORT);
  writeFileSync(path, `# sandbox-conformance report (${CONTRACT})\n${stringify(conformanceReport(input))}`);
  return path;
}
