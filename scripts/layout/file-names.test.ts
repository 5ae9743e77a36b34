import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { misnamedTestHelpers, readImportGraph, sharedNames, type ImportGraph } from './test-kit.ts';

/**
 * Names that say what a file does: no two production files share a name (a folder's index.ts
 * aside; the pairs still pending a rename are listed in PENDING_SHARED_NAMES), and every test
 * helper — a file only tests import — is called test-kit.ts (the ones still pending are listed in
 * PENDING_TEST_HELPERS).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const graph = readImportGraph(ROOT);

test('no two production files share a name', () => {
  expect(sharedNames(graph)).toEqual([]);
});

test('test helpers are called test-kit.ts', () => {
  expect(misnamedTestHelpers(graph)).toEqual([]);
});

test.describe('the checks on made-up trees', () => {
  const tree = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  test('a shared name is found; index.ts and test files do not count; a pending pair is let through', () => {
    const files = tree({ 'bench/stop.ts': [], 'driver/kubernetes/stop.ts': [], 'lanes/index.ts': [], 'timeline/evaluate/families/index.ts': [], 'a/x.test.ts': [], 'b/x.test.ts': [], 'a/test-kit.ts': [], 'b/test-kit.ts': [] });
    expect(sharedNames(files)).toEqual(['stop.ts: bench/stop.ts, driver/kubernetes/stop.ts']);
    expect(sharedNames(files, ['bench/stop.ts'])).toEqual([]);
  });

  test('a file only tests import must be a test-kit.ts', () => {
    const files = tree({
      'cluster/kind/kind-provider.test.ts': ['cluster/kind/test-stubs.ts', 'cluster/kind/kind-provider.ts', 'cluster/kind/test-kit.ts'],
      'cluster/select.ts': ['cluster/kind/kind-provider.ts'],
      'cluster/kind/test-stubs.ts': [],
      'cluster/kind/test-kit.ts': ['cluster/kind/helper-of-helper.ts'],
    });
    expect(misnamedTestHelpers(files)).toEqual(['cluster/kind/helper-of-helper.ts', 'cluster/kind/test-stubs.ts']);
    expect(misnamedTestHelpers(files, ['cluster/kind/test-stubs.ts', 'cluster/kind/helper-of-helper.ts'])).toEqual([]);
  });
});
