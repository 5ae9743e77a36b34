/**
 * `sandbox-conformance report merge DIR...`: the blob reports of several runs (each lane's
 * `<lane>/blob/report.zip`, found anywhere under the folders given, e.g. downloaded CI artifacts)
 * merged by Playwright into one HTML and one JUnit report, with the runs' summary.md files
 * joined into one summary.md.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { PLAYWRIGHT_CLI } from '../lanes/run/lane-job.ts';
import { readOutcomes, summaryTable } from '../lanes/run/summary-table.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';
import { UsageError } from './usage.ts';

export const REPORT_HELP = `Usage: sandbox-conformance report merge DIR... [--out DIR]

Merges the Playwright blob reports of several runs (each lane writes <report-dir>/<lane>/blob/
report.zip) into one HTML report and one JUnit file, and their results into one lane x scenario
and invariant table (summary.md, a column per run's lane folder).
The folders are searched recursively (downloaded CI artifacts work as they are).

Options:
  --out DIR      where the merged report goes (default: ./conformance-reports/merged):
                 html/index.html, junit.xml (its attachments in blobs/), summary.md
  -h, --help     this help

Docs: docs/ci.md
`;

/** Every file named `name` under `dir`, recursively (symlinks not followed). */
function findFiles(dir: string, accept: (path: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => join(dir, p))
    .filter((p) => accept(p) && statSync(p).isFile())
    .sort();
}

/** `sandbox-conformance report`'s options. */
export const REPORT_OPTIONS = { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export async function reportCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: REPORT_OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message, 'report');
  }
  if (parsed.values.help) {
    process.stdout.write(REPORT_HELP);
    return 0;
  }
  const [action, ...dirs] = parsed.positionals;
  if (action !== 'merge') throw new UsageError(action === undefined ? 'report: name an action: merge' : `report: unknown action "${action}"; the action is merge`, 'report');
  if (!dirs.length) throw new UsageError('report merge: name the folders holding the runs\' reports', 'report');
  const missing = dirs.filter((d) => !statSync(d, { throwIfNoEntry: false })?.isDirectory());
  if (missing.length) throw new UsageError(`report merge: no such folder: ${missing.join(', ')}`, 'report');
  const out = resolve(parsed.values.out ?? './conformance-reports/merged');
  const blobs = dirs.flatMap((d) => findFiles(resolve(d), (p) => p.endsWith('.zip') && !p.startsWith(out)));
  if (!blobs.length) throw new UsageError(`report merge: no blob report (*.zip) under ${dirs.join(', ')}`, 'report');
  // The blobs are copied beside the merged report and kept: the JUnit file's attachments point into it.
  const staging = join(out, 'blobs');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // Unique names: every lane's blob is report.zip.
  blobs.forEach((blob, i) => copyFileSync(blob, join(staging, `${i}-${relative('/', blob).replace(/[^\w.-]+/g, '_')}`)));
  const merged = await execa(process.execPath, [PLAYWRIGHT_CLI, 'merge-reports', '--reporter', 'html,junit', staging], {
    reject: false,
    timeout: 300_000,
    stdio: 'inherit',
    env: {
      PLAYWRIGHT_HTML_OUTPUT_DIR: join(out, 'html'),
      PLAYWRIGHT_HTML_OPEN: 'never',
      PLAYWRIGHT_JUNIT_OUTPUT_FILE: join(out, 'junit.xml'),
      PLAYWRIGHT_JUNIT_INCLUDE_PROJECT_IN_TEST_NAME: 'true',
      PLAYWRIGHT_JUNIT_STRIP_ANSI: 'true',
    },
  });
  // One lane x scenario and invariant table over every run (a column per run's lane folder), then each run's own heading.
  const results = dirs.flatMap((d) => findFiles(resolve(d), (p) => basename(p) === 'results.json' && !p.startsWith(out) && !p.includes(`${sep}test-results${sep}`)));
  const ids = INVARIANTS.map((i) => i.id);
  const table = summaryTable(new Map(results.map((r) => [relative(process.cwd(), dirname(r)) || '.', readOutcomes(r, ids)])));
  const headings = dirs.flatMap((d) => findFiles(resolve(d), (p) => basename(p) === 'summary.md' && !p.startsWith(out))).map((s) => readFileSync(s, 'utf8').split('\n')[0]);
  writeFileSync(join(out, 'summary.md'), `# Conformance: ${blobs.length} blob report${blobs.length > 1 ? 's' : ''} merged\n\n${headings.join('\n\n')}\n\n${table}\n`);
  process.stdout.write(`merged ${blobs.length} blob report${blobs.length > 1 ? 's' : ''}: ${join(out, 'html', 'index.html')}, ${join(out, 'junit.xml')}, ${join(out, 'summary.md')}\n`);
  return merged.exitCode === 0 && existsSync(join(out, 'junit.xml')) ? 0 : 1;
}
