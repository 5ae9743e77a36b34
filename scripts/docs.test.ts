import { expect, test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_OPTIONS, parseBenchArguments } from '../bench/benchmarks.ts';
import { CLUSTER_OPTIONS } from '../cli/cluster-command.ts';
import { INIT_OPTIONS } from '../cli/init-command.ts';
import { MANIFESTS_OPTIONS } from '../cli/manifests-command.ts';
import { REPORT_OPTIONS } from '../cli/report-command.ts';
import { HELP as DRIVER_HELP } from '../driver/cli/help.ts';
import { parseExploreArguments } from '../explore/command/explore-command.ts';
import { FAULT_PROXY_OPTIONS, faultProxyHelp } from '../faults/remote/serve-command.ts';
import { OPTIONS as DRIVER_OPTIONS, parseInvocation } from '../driver/cli/options.ts';
import { LANE_OPTIONS, laneHelp, parseLaneArguments } from '../lanes/run/lane-command.ts';

/**
 * The docs (README.md and docs/*.md) against the tree: every relative link and #anchor
 * resolves (GitHub's heading slugs), and every documented command in a fenced ```sh block is
 * accepted by the real argument parser of the command it runs (`npm run lane|lanes|bench|driver|manifests`,
 * `npx sandbox-conformance` and its subcommands' options): an unknown flag, lane, benchmark or subcommand fails the test.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const SCRIPTS = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
/** The subcommands `sandbox-conformance` dispatches on (its `case` labels). */
const SUBCOMMANDS = [...readFileSync(join(ROOT, 'cli/sandbox-conformance.ts'), 'utf8').matchAll(/^\s*case '([^']+)':/gm)].map((m) => m[1]);

/** Markdown without its fenced code blocks (their `#` lines are comments, not headings). */
function outsideFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of outsideFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Relative links and anchors of one page (`file`, relative to the repository) that do not resolve. */
export function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const m of outsideFences(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path ? relative(ROOT, resolve(ROOT, dirname(file), path)) : file;
    const text = read(resolved);
    if (text === undefined) {
      broken.push(`${file}: ${target}: no such file (${resolved})`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(text).has(anchor)) broken.push(`${file}: ${target}: no heading with that anchor in ${resolved}`);
  }
  return broken;
}

/** One shell line in words: quotes kept together, a `#` starting a word begins a comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unbalanced ${c} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The documented commands of a page: each line of its ```sh blocks, split at `&&` (a trailing `&` dropped), environment assignments dropped. */
export function fencedCommands(markdown: string): string[][] {
  const commands: string[][] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    for (const line of block[1].split('\n')) {
      let words = shellWords(line);
      if (words.at(-1) === '&') words = words.slice(0, -1);
      while (words.length) {
        const and = words.indexOf('&&');
        const command = and < 0 ? words : words.slice(0, and);
        words = and < 0 ? [] : words.slice(and + 1);
        while (command.length && /^[A-Z_][A-Z0-9_]*=/.test(command[0])) command.shift();
        if (command.length) commands.push(command);
      }
    }
  }
  return commands;
}

/** Runs a parser that reports bad usage by exiting (the driver command's): an exit other than 0 throws. */
function withoutExit(parse: () => unknown): void {
  const { exit } = process;
  const out = process.stdout.write;
  const err = process.stderr.write;
  let stderr = '';
  process.exit = ((code?: number) => {
    throw Object.assign(new Error(`exit ${code}: ${stderr.trim()}`), { exitCode: code ?? 0 });
  }) as typeof process.exit;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    parse();
  } catch (error) {
    if ((error as { exitCode?: number }).exitCode !== 0) throw error;
  } finally {
    process.exit = exit;
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

/** Checks one documented command against its parser; returns what is wrong with it, or undefined. */
export function commandProblem(words: string[]): string | undefined {
  try {
    const [program, ...rest] = words;
    if (program === 'npm' && rest[0] === 'run') {
      const args = rest[1] === '-s' ? rest.slice(2) : rest.slice(1);
      const [script, ...tail] = args;
      if (!SCRIPTS.includes(script)) return `no npm script "${script}"`;
      if (tail.length && tail[0] !== '--') return `arguments to npm run ${script} need -- before them`;
      const argv = tail.slice(1);
      if (script === 'lane') parseLaneArguments(argv);
      else if (script === 'lanes') parseLaneArguments(['--all', ...argv]);
      else if (script === 'bench') parseBenchArguments(argv);
      else if (script === 'driver') withoutExit(() => parseInvocation(argv));
      else if (script === 'manifests') parseArgs({ args: argv, allowPositionals: true, options: MANIFESTS_OPTIONS });
      else if (script === 'fault-proxy') parseArgs({ args: argv, options: FAULT_PROXY_OPTIONS });
      else if (script === 'explore') parseExploreArguments(argv);
      return undefined;
    }
    if (program === 'npx' && (rest[0] === 'sandbox-conformance' || rest[0]?.startsWith('sandbox-conformance@'))) {
      const [subcommand, ...argv] = rest.slice(1);
      if (subcommand === undefined) return undefined;
      if (!SUBCOMMANDS.includes(subcommand)) return `unknown subcommand "${subcommand}" of sandbox-conformance`;
      if (subcommand === 'run') parseLaneArguments(argv);
      else if (subcommand === 'list') parseLaneArguments(['--list', ...argv]);
      else if (subcommand === 'driver') withoutExit(() => parseInvocation(argv));
      else if (subcommand === 'init') parseArgs({ args: argv, options: INIT_OPTIONS });
      else if (subcommand === 'cluster') parseArgs({ args: argv, allowPositionals: true, options: CLUSTER_OPTIONS });
      else if (subcommand === 'report') parseArgs({ args: argv, allowPositionals: true, options: REPORT_OPTIONS });
      else if (subcommand === 'manifests') parseArgs({ args: argv, allowPositionals: true, options: MANIFESTS_OPTIONS });
      else if (subcommand === 'fault-proxy') parseArgs({ args: argv, options: FAULT_PROXY_OPTIONS });
      return undefined;
    }
    return undefined; // not a command of this project (kubectl, npm ci, …)
  } catch (error) {
    return (error as Error).message;
  }
}

const read = (path: string): string | undefined => {
  const file = join(ROOT, path);
  if (!existsSync(file)) return undefined;
  return statSync(file).isDirectory() ? '' : readFileSync(file, 'utf8');
};

test('every relative link and anchor in README.md and docs/ resolves', () => {
  expect(DOCS.length).toBeGreaterThan(5);
  expect(DOCS.flatMap((file) => brokenLinks(file, read(file)!, read))).toEqual([]);
});

test('every documented lane, bench, driver and sandbox-conformance command is accepted by its parser', () => {
  const checked = DOCS.flatMap((file) => fencedCommands(read(file)!).map((words) => ({ file, words })));
  expect(checked.filter((c) => /^(npm|npx)$/.test(c.words[0])).length).toBeGreaterThan(30);
  const problems = checked.flatMap(({ file, words }) => {
    const problem = commandProblem(words);
    return problem === undefined ? [] : [`${file}: ${words.join(' ')}: ${problem}`];
  });
  expect(problems).toEqual([]);
});

/** The commands' --help texts, each ending with the docs page it belongs to. */
const HELP_SOURCES = ['lanes/run/lane-command.ts', 'cli/sandbox-conformance.ts', 'cli/cluster-command.ts', 'cli/report-command.ts', 'cli/init-command.ts', 'cli/manifests-command.ts', 'driver/cli/help.ts', 'scripts/bench.ts', 'scripts/embedded-cluster.ts', 'faults/remote/serve-command.ts', 'explore/command/explore-command.ts'];

test("every command's --help points at its docs page, and the page exists", () => {
  for (const source of HELP_SOURCES) {
    const pages = [...read(source)!.matchAll(/^Docs: (.+)$/gm)].flatMap((m) => [...m[1].matchAll(/(?:docs\/[\w-]+|README)\.md/g)].map((p) => p[0]));
    expect(pages.length, `${source}'s --help names its docs page ("Docs: docs/….md")`).toBeGreaterThan(0);
    for (const page of pages) expect(existsSync(join(ROOT, page)), `${source}: ${page} exists`).toBe(true);
  }
});

test('every option of the lane, driver and bench commands is in its --help and in the docs', () => {
  const docs = DOCS.map((file) => read(file)!).join('\n');
  const commands = [
    { name: 'npm run lane', options: Object.keys(LANE_OPTIONS), help: laneHelp('npm run lane --', 'reports/') },
    { name: 'npm run driver', options: Object.keys(DRIVER_OPTIONS), help: DRIVER_HELP },
    { name: 'npm run fault-proxy', options: Object.keys(FAULT_PROXY_OPTIONS), help: faultProxyHelp('npm run fault-proxy --') },
    { name: 'npm run bench', options: Object.keys(BENCH_OPTIONS), help: read('scripts/bench.ts')! },
  ];
  const missing = commands.flatMap(({ name, options, help }) =>
    options.flatMap((option) => [
      ...(help.includes(`--${option}`) ? [] : [`${name} --help does not name --${option}`]),
      ...(option === 'help' || docs.includes(`--${option}`) ? [] : [`no docs page names ${name}'s --${option}`]),
    ]),
  );
  expect(missing).toEqual([]);
});

test('the checks fail on a made-up flag, an unknown lane, benchmark or subcommand, and a broken link or anchor', () => {
  const page = [
    '# A page',
    '## Its section',
    '[fine](#its-section) [fine too](../README.md#quick-start) [gone](nowhere.md) [no anchor](#not-here)',
    '```sh',
    'npm run lane -- v1beta1 --made-up-flag   # comment',
    'npm run lane -- no-such-lane',
    "npm run lane -- external --driver exec='my-driver --any-flag'",
    'npm run bench -- no-such-bench',
    'npm run driver -- --made-up list',
    'npx sandbox-conformance frobnicate',
    'npx sandbox-conformance init --drivr x',
    'npx sandbox-conformance run v1beta1 --driver no-such-variant',
    'npm ci && npm run nope',
    '```',
  ].join('\n');
  expect(brokenLinks('docs/page.md', page, (path) => (path === 'docs/page.md' ? page : read(path)))).toEqual([
    'docs/page.md: nowhere.md: no such file (docs/nowhere.md)',
    'docs/page.md: #not-here: no heading with that anchor in docs/page.md',
  ]);
  const problems = fencedCommands(page).map(commandProblem);
  expect(problems[0]).toContain("Unknown option '--made-up-flag'");
  expect(problems[1]).toContain('unknown lane "no-such-lane"');
  expect(problems[2]).toBeUndefined();
  expect(problems[3]).toContain('unknown benchmark "no-such-bench"');
  expect(problems[4]).toContain("Unknown option '--made-up'");
  expect(problems[5]).toContain('unknown subcommand "frobnicate"');
  expect(problems[6]).toContain("Unknown option '--drivr'");
  expect(problems[7]).toContain('unknown driver "no-such-variant"');
  expect(problems[8]).toBeUndefined(); // npm ci
  expect(problems[9]).toBe('no npm script "nope"');
  expect(problems).toHaveLength(10);
});

test('GitHub anchors: punctuation dropped, spaces to hyphens, repeated headings numbered, code blocks ignored', () => {
  const anchors = headingAnchors("# The package: `sandbox-conformance` in a driver's repository\n## Lanes\n## Lanes\n```sh\n# not a heading\n```\n");
  expect([...anchors]).toEqual(['the-package-sandbox-conformance-in-a-drivers-repository', 'lanes', 'lanes-1']);
});
