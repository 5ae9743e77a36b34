import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DIRECTION, directionViolations, fileCycles, readImportGraph, roomCycles, roomOf, type ImportGraph } from './test-kit.ts';

/**
 * The import direction of docs/contributing.md, checked over every file tsconfig.json includes.
 *
 * Production files: a room imports only itself and the rooms DIRECTION names for it (scripts:
 * anything), never a test file; no cycle between rooms, none between files.
 * Test files (`*.test.ts`) and test helpers (`test-kit.ts`) may import, beyond what their room's
 * production code may, the test helpers of any room and the real parts tests run against: the
 * embedded cluster and the fixture programs.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const graph = readImportGraph(ROOT);

test('the tree keeps the import direction, and no room or module imports in a cycle', () => {
  expect(graph.size).toBeGreaterThan(100);
  expect(directionViolations(graph)).toEqual([]);
  expect(roomCycles(graph)).toEqual([]);
  expect(fileCycles(graph)).toEqual([]);
});

test('docs/contributing.md states the same direction as the check', () => {
  const readme = readFileSync(new URL('../../docs/contributing.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('| room | may import, besides itself |')).split('\n\n')[0].split('\n').slice(2);
  const stated = Object.fromEntries(
    table.map((row) => {
      const [room, allowed] = row.split('|').slice(1, 3).map((cell) => cell.trim());
      const names = [...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      return [/`([^`]+)`/.exec(room)![1], allowed === 'anything' ? 'anything' : names];
    }),
  );
  expect(stated).toEqual(DIRECTION);
});

test('the graph is read with every kind of import: static, type-only, re-export, side effect, dynamic', () => {
  expect(graph.get('fixtures/conformance.ts')).toEqual(expect.arrayContaining(['fixtures/run-value.ts', 'timeline/derive/facts.ts', 'driver/compute-driver.ts']));
  expect(graph.get('scripts/driver.ts')).toEqual(['driver/launch/driver-bundle.ts', 'driver/launch/bundled-driver.ts', 'driver/cli/main.ts']); // the last: await import(...)
  expect(graph.get('driver/cli/configured-driver.ts')).toContain('driver/kubernetes/kubernetes-driver.ts'); // await import(...)
  expect(graph.get('lanes/lane-declaration.ts')).toContain('cluster/cluster-provider.ts'); // import type
  expect(roomOf('cluster/embedded/node/images.ts')).toBe('cluster/embedded');
  expect(roomOf('cluster/kind/kind-provider.ts')).toBe('cluster');
  expect(roomOf('timeline/model.ts')).toBe('timeline');
  expect(roomOf('timeline/evaluate/families/stop/stop-family.ts')).toBe('timeline/evaluate');
});

/** The checker on small made-up graphs: it must fail where the rules are broken. */
test.describe('the checker', () => {
  const seeded = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  test('an import against the direction is named, with the rule it breaks', () => {
    expect(directionViolations(seeded({ 'cluster/embedded/node/images.ts': ['fixtures/programs/catalogue.ts'], 'fixtures/programs/catalogue.ts': [] }))).toEqual([
      'cluster/embedded/node/images.ts -> fixtures/programs/catalogue.ts (cluster/embedded may import only itself)',
    ]);
    expect(directionViolations(seeded({ 'timeline/evaluate/registry.ts': ['timeline/render/html.ts'] }))).toEqual([
      'timeline/evaluate/registry.ts -> timeline/render/html.ts (timeline/evaluate may import timeline, timeline/derive, driver)',
    ]);
    expect(directionViolations(seeded({ 'scenarios/a.spec.ts': ['driver/compute-driver.ts'] }))).toEqual(['scenarios/a.spec.ts -> driver/compute-driver.ts (scenarios may import fixtures)']);
    expect(directionViolations(seeded({ 'somewhere/else.ts': [] }))).toEqual(['somewhere/else.ts: in no room; add its folder to the rooms']);
  });

  test('allowed imports pass: downward, into a room inside an allowed one, and anything from scripts', () => {
    expect(
      directionViolations(
        seeded({
          'fixtures/fault-injection.ts': ['cluster/embedded/api/request-log.ts', 'cluster/cluster-provider.ts', 'fixtures/run-value.ts'],
          'timeline/render/html.ts': ['timeline/evaluate/verdict.ts', 'timeline/model.ts'],
          'scripts/lane.ts': ['timeline/evaluate/registry.ts', 'fixtures/programs/catalogue.ts'],
        }),
      ),
    ).toEqual([]);
  });

  test('tests may reach test helpers, the real parts and the timeline engine; production may not reach tests', () => {
    expect(directionViolations(seeded({ 'driver/kubernetes/x.test.ts': ['cluster/embedded/cluster.ts', 'cluster/kind/test-kit.ts', 'fixtures/programs/catalogue.ts', 'timeline/evaluate/registry.ts'] }))).toEqual([]);
    expect(directionViolations(seeded({ 'driver/kubernetes/x.test.ts': ['lanes/index.ts'] }))).toEqual(['driver/kubernetes/x.test.ts -> lanes/index.ts (driver may import only itself)']);
    expect(directionViolations(seeded({ 'cluster/select.ts': ['cluster/kind/test-kit.ts'] }))).toEqual(['cluster/select.ts -> cluster/kind/test-kit.ts (production code imports a test file)']);
  });

  test('a cycle between rooms, and one between modules, is found and spelled out', () => {
    const cyclic = seeded({ 'lanes/a.ts': ['fixtures/b.ts'], 'fixtures/b.ts': ['lanes/a.ts'], 'driver/c.ts': ['driver/d.ts'], 'driver/d.ts': ['driver/e.ts'], 'driver/e.ts': ['driver/c.ts'] });
    expect(roomCycles(cyclic)).toEqual(['fixtures -> lanes -> fixtures']);
    expect(fileCycles(cyclic).sort()).toEqual(['driver/c.ts -> driver/d.ts -> driver/e.ts -> driver/c.ts', 'fixtures/b.ts -> lanes/a.ts -> fixtures/b.ts']);
    expect(roomCycles(seeded({ 'lanes/a.ts': ['cluster/b.ts'], 'cluster/b.ts': [] }))).toEqual([]);
  });
});
