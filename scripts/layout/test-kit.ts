/**
 * The project's layout as the layout tests read it: the import graph, read with the TypeScript
 * compiler's own parser (the file list from tsconfig.json, each file's imports from
 * ts.preProcessFile: static, type-only, re-exports and dynamic `import()`), the rooms, and the
 * rules the graph must keep: which room may import which, no cycle, one name for test helpers.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Files by path relative to the root (`/`-separated), each with the files it imports. */
export type ImportGraph = Map<string, string[]>;

/** Every .ts file tsconfig.json includes, with the project files it imports (package imports are left out). */
export function readImportGraph(root: string): ImportGraph {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(config.error.messageText, '\n')}`);
  const files = ts.parseJsonConfigFileContent(config.config, ts.sys, root).fileNames.map((f) => toPosix(relative(root, f))).sort();
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const local = importedFiles.map((i) => i.fileName).filter((specifier) => specifier.startsWith('.'));
    graph.set(file, local.map((specifier) => toPosix(relative(root, resolve(root, dirname(file), specifier)))));
  }
  return graph;
}

const toPosix = (path: string) => path.split('\\').join(posix.sep);

/**
 * The rooms, the most specific first: a file belongs to the first room its path starts with.
 * cluster/embedded is a room inside cluster, and the timeline's steps are rooms inside timeline
 * (model.ts is the timeline room itself).
 */
const ROOMS = [
  'cluster/embedded',
  'cluster',
  'driver',
  'faults',
  'timeline/collect',
  'timeline/derive',
  'timeline/evaluate',
  'timeline/render',
  'timeline',
  'lanes',
  'fixtures',
  'scenarios',
  'explore',
  'bench',
  'cli',
  'scripts',
  'playwright.config.ts',
] as const;
type Room = (typeof ROOMS)[number];

export function roomOf(file: string): Room | undefined {
  return ROOMS.find((room) => file === room || file.startsWith(`${room}/`));
}

/**
 * Whether naming `allowed` lets `from` import `target`: a room named from outside covers the
 * rooms inside it (fixtures may import cluster/embedded, bench the timeline's steps); from
 * inside, it is that room alone (timeline/evaluate naming timeline means model.ts, not render).
 */
function permits(allowed: Room, target: Room, from: Room): boolean {
  return target === allowed || (target.startsWith(`${allowed}/`) && !from.startsWith(`${allowed}/`));
}

/**
 * The import direction, as docs/contributing.md states it: what each room's production files may import
 * besides their own room. The timeline's steps import only downward
 * (model ← collect, derive ← evaluate ← render).
 */
export const DIRECTION: Record<Room, readonly Room[] | 'anything'> = {
  'cluster/embedded': [],
  cluster: ['cluster/embedded'],
  driver: [],
  faults: [],
  timeline: [],
  'timeline/collect': ['timeline', 'driver'],
  'timeline/derive': ['timeline'],
  'timeline/evaluate': ['timeline', 'timeline/derive', 'driver'],
  'timeline/render': ['timeline', 'timeline/derive', 'timeline/evaluate'],
  lanes: ['cluster', 'driver', 'faults'],
  fixtures: ['lanes', 'cluster', 'driver', 'faults', 'timeline'],
  scenarios: ['fixtures'],
  explore: ['lanes', 'cluster', 'driver', 'faults', 'timeline', 'fixtures'],
  bench: ['cluster', 'driver', 'faults', 'timeline', 'lanes', 'fixtures'],
  cli: 'anything',
  scripts: 'anything',
  'playwright.config.ts': ['lanes', 'fixtures'],
};

/** Test helpers: shared set-up that only tests import. One name for them all. */
const TEST_HELPER = 'test-kit.ts';

/** Files only tests import today that are not test helpers (production code about to get its first user); none now. */
const PENDING_TEST_HELPERS: readonly string[] = [];

function isTestFile(file: string): boolean {
  return file.endsWith('.test.ts') || posix.basename(file) === TEST_HELPER || PENDING_TEST_HELPERS.includes(file);
}

/**
 * What a test (a `*.test.ts` file or a test helper) may import beyond what its room's production
 * code may: test helpers of any room, the real parts tests run against — the embedded cluster
 * (the driver's tests need a Kubernetes) and the fixture programs (what its node runs) — and the
 * timeline engine, so the driver's own tests judge ordering with the harness's rules.
 */
const REAL_PARTS: readonly string[] = ['cluster/embedded/', 'faults/', 'fixtures/programs/', 'fixtures/images/catalog.ts', 'timeline/'];

/** Every import that goes against the direction, as `from -> to (rule)`. */
export function directionViolations(graph: ImportGraph, direction: Record<string, readonly string[] | 'anything'> = DIRECTION): string[] {
  const violations: string[] = [];
  for (const [file, imports] of graph) {
    const from = roomOf(file);
    if (!from) {
      violations.push(`${file}: in no room; add its folder to the rooms`);
      continue;
    }
    const allowed = direction[from];
    for (const target of imports) {
      const to = roomOf(target);
      if (isTestFile(target) && !isTestFile(file)) {
        violations.push(`${file} -> ${target} (production code imports a test file)`);
        continue;
      }
      if (!to || to === from || allowed === 'anything' || allowed.some((a) => permits(a as Room, to, from))) continue;
      if (isTestFile(file) && (isTestFile(target) || REAL_PARTS.some((part) => target.startsWith(part)))) continue;
      violations.push(`${file} -> ${target} (${from} may import ${allowed.length ? allowed.join(', ') : 'only itself'})`);
    }
  }
  return violations;
}

/** Cycles between rooms (production imports only), each as `a -> b -> a`. */
export function roomCycles(graph: ImportGraph): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    if (isTestFile(file)) continue;
    for (const target of imports) {
      const [a, b] = [roomOf(file), roomOf(target)];
      if (a && b && a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  return cycles(edges);
}

/** Cycles between production files (ES module cycles), each as `a -> b -> a`. */
export function fileCycles(graph: ImportGraph): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [file, imports] of graph) if (!isTestFile(file)) edges.set(file, new Set(imports.filter((t) => !isTestFile(t))));
  return cycles(edges);
}

/** One cycle per strongly connected component of more than one node (Tarjan), as a path. */
function cycles(edges: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(pathThrough(component, edges));
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest cycle from the component's first node (by name) back to it: `a -> b -> a`. */
function pathThrough(component: string[], edges: Map<string, Set<string>>): string {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let n = node; n !== start; n = previous.get(n)!) path.unshift(n);
        return [start, ...path].join(' -> ');
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component.join(' -> ');
}

/** Production files allowed to share a name with another: none are left. */
const PENDING_SHARED_NAMES: readonly string[] = [];

/**
 * Production files whose name another production file also has, as `name: path, path`. A
 * folder's `index.ts` is named by its folder and does not count.
 */
export function sharedNames(graph: ImportGraph, pending: readonly string[] = PENDING_SHARED_NAMES): string[] {
  const byName = new Map<string, string[]>();
  for (const file of graph.keys()) {
    if (isTestFile(file) || pending.includes(file)) continue;
    const name = posix.basename(file);
    if (name !== 'index.ts') byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  return [...byName].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(', ')}`);
}

/** Files only tests import (test helpers by use) that are not named test-kit.ts. */
export function misnamedTestHelpers(graph: ImportGraph, pending: readonly string[] = PENDING_TEST_HELPERS): string[] {
  const importers = new Map<string, string[]>();
  for (const [file, imports] of graph) for (const target of imports) importers.set(target, [...(importers.get(target) ?? []), file]);
  return [...importers]
    .filter(([file, by]) => !file.endsWith('.test.ts') && by.every((f) => f.endsWith('.test.ts') || posix.basename(f) === TEST_HELPER || pending.includes(f)))
    .map(([file]) => file)
    .filter((file) => posix.basename(file) !== TEST_HELPER && !pending.includes(file))
    .sort();
}
