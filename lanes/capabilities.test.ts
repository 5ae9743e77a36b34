import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAPABILITY_NAMES, exemptCapabilities, laneNeeds, parseCapabilities, readConformanceFile, tagNeeds, undeclaredReason } from './capabilities.ts';
import { findLane } from './index.ts';

test('a lane needs its workspace mode and Sandbox API version, ha its replicas; tags name what a scenario needs', () => {
  expect(laneNeeds(findLane('v1beta1'))).toEqual(['workspace-mode/shared', 'sandbox-api/v1beta1']);
  expect(laneNeeds(findLane('managed'))).toEqual(['workspace-mode/managed', 'sandbox-api/v1beta1']);
  expect(laneNeeds(findLane('ha'))).toContain('replicas');
  expect(tagNeeds(['@restart', '@faults', '@slow'])).toEqual(['restart', 'faults']);
});

test('a test needing an undeclared capability is skipped, the reason naming it and the declaration', () => {
  const lane = findLane('v1beta1');
  const declared = { declared: parseCapabilities(['workspace-mode/shared', 'sandbox-api/v1beta1', 'restart'], 'conformance.yaml'), source: 'conformance.yaml' };
  expect(undeclaredReason(lane, ['@restart'], declared)).toBeUndefined();
  expect(undeclaredReason(lane, ['@faults'], declared)).toBe('capability not declared: faults (fault schedules between the driver and the API server (scenarios under faults; tag @faults)); the driver declares workspace-mode/shared, sandbox-api/v1beta1, restart (conformance.yaml)');
  expect(undeclaredReason(findLane('managed'), [], declared)).toContain('capability not declared: workspace-mode/managed');
  // Nothing declared: everything claimed.
  expect(undeclaredReason(lane, ['@faults'], undefined)).toBeUndefined();
  expect(exemptCapabilities(declared)).toEqual(CAPABILITY_NAMES.filter((c) => !declared.declared.includes(c)));
  expect(exemptCapabilities(undefined)).toEqual([]);
});

test('conformance.yaml: driver and capabilities, each optional; anything else refused naming the file and the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-caps-'));
  const write = (text: string) => {
    const path = join(dir, 'conformance.yaml');
    writeFileSync(path, text);
    return path;
  };
  try {
    expect(readConformanceFile(write('driver: { name: d, version: 1.2 }\ncapabilities: [restart, restart, faults]\n'))).toEqual({ driver: { name: 'd', version: '1.2' }, capabilities: ['restart', 'faults'] });
    expect(readConformanceFile(write(''))).toEqual({});
    expect(() => readConformanceFile(write('capabilities: [teleport]\n'))).toThrow(/conformance.yaml: capabilities: unknown capability "teleport"; known: workspace-mode\/shared/);
    expect(() => readConformanceFile(write('capabilities: restart\n'))).toThrow(/capabilities: must be a list/);
    expect(() => readConformanceFile(write('drivr: {}\n'))).toThrow(/unknown key drivr \(known: driver, capabilities\)/);
    expect(() => readConformanceFile(write('driver: [a]\n'))).toThrow(/driver: must be a mapping/);
    expect(() => readConformanceFile(write('a: [\n'))).toThrow(/not YAML/);
    expect(() => readConformanceFile(join(dir, 'missing.yaml'))).toThrow(/missing.yaml: no such file/);
    expect(() => parseCapabilities(['faults', 7], '--capabilities')).toThrow('--capabilities: unknown capability 7');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
