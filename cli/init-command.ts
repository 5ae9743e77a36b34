/**
 * `sandbox-conformance init`: writes into the current repository what a driver team needs to run
 * the suite in CI: a GitHub workflow using the action, a `conformance.yaml` declaring the driver,
 * and an example scenario of its own. Files that exist are left alone (named; `--force` overwrites).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { CAPABILITY_NAMES } from '../lanes/capabilities.ts';
import { harnessVersion } from '../lanes/run/conformance-report.ts';
import { UsageError } from './usage.ts';

/** The repository that publishes action.yml (set where the package is published from). */
export const ACTION_REPOSITORY = 'sandbox-conformance/sandbox-conformance';

export const INIT_HELP = `Usage: sandbox-conformance init [options]

Writes into the current folder:
  .github/workflows/conformance.yml   a workflow running the suite with the sandbox-conformance action
  conformance.yaml                    your driver's name, version and capabilities
  conformance/example.spec.ts         a scenario of your own, run beside the suite (--scenarios)

Options:
  --driver CMD     the command that serves your driver on --bind-socket PATH
                   (default: 'npx sandbox-conformance driver serve', the reference driver)
  --force          overwrite files that exist (default: leave them, and say so)
  -h, --help       this help

Docs: docs/ci.md
`;

export function workflowTemplate(driver: string, version: string): string {
  return `# Runs the sandbox-conformance suite against this repository's compute driver on kind.
name: conformance

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  conformance:
    runs-on: ubuntu-24.04
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4

      # Build your driver here, so that the command below can start it.

      - uses: ${ACTION_REPOSITORY}@v${version}
        with:
          version: ${version}
          driver: ${JSON.stringify(driver)}
          lanes: v1beta1
          scenarios: conformance
          artifact-name: conformance-\${{ github.job }}-\${{ github.run_attempt }}
`;
}

export const EXAMPLE_SCENARIO = `import { expect, test } from 'sandbox-conformance/fixtures';

/**
 * A scenario of your own, run beside the suite with \`--scenarios conformance\`: the same fixtures
 * (a sandbox API through your driver, the watched timeline) and the same invariants.
 */
test('example: a sandbox my driver created stops in order', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'example', command: ['sh', '-c', 'exec sleep 100000'] }));
  expect(sandbox.phase).toBe('Ready');
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
  await expect(timeline).toHold('stop/suspend-after-supervisor-gone');
});
`;

/** `sandbox-conformance init`'s options (no positionals). */
export const INIT_OPTIONS = { driver: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export function initCommand(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: INIT_OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message, 'init');
  }
  if (parsed.values.help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const driver = parsed.values.driver ?? 'npx sandbox-conformance driver serve';
  if (!driver.trim()) throw new UsageError('init: --driver needs a command', 'init');
  const { version } = harnessVersion();
  const files: Record<string, string> = {
    '.github/workflows/conformance.yml': workflowTemplate(driver, version),
    'conformance.yaml': `# What your driver declares to sandbox-conformance: a scenario needing a capability not listed is\n# skipped with the reason. Known: ${CAPABILITY_NAMES.join(', ')}\n${stringify({ driver: { name: 'my-driver', version: '0.0.0' }, capabilities: ['workspace-mode/shared', 'sandbox-api/v1beta1', 'restart', 'faults'] })}`,
    'conformance/example.spec.ts': EXAMPLE_SCENARIO,
  };
  for (const [path, text] of Object.entries(files)) {
    const target = resolve(path);
    if (existsSync(target) && !parsed.values.force) {
      process.stdout.write(`kept ${path} (exists; --force overwrites)\n`);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    process.stdout.write(`wrote ${path}\n`);
  }
  process.stdout.write(`\nThen: npx sandbox-conformance run v1beta1 --driver exec=${JSON.stringify(driver)} --scenarios conformance\n`);
  return 0;
}
