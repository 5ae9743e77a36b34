#!/usr/bin/env tsx
/**
 * `npm run bench -- <name>... [--quick]`: runs named benchmarks from bench/, one after the
 * other; with no name, the benchmarks behind issues 15's and 25's figures and one table of them
 * (bench/issue-figures.ts). Benchmarks are measurements, not tests: a missed target is
 * printed, the exit code stays 0; only a benchmark that cannot run exits non-zero.
 */
import { BENCHMARKS, parseBenchArguments } from '../bench/benchmarks.ts';

function help(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((n) => n.length));
  const list = Object.entries(BENCHMARKS)
    .map(([name, b]) => `  ${name.padEnd(width)}  ${b.summary}`)
    .join('\n');
  return `Usage: npm run bench                         (issues 15's and 25's figures: one table, reports/bench.json)
       npm run bench -- <benchmark>... [options]

Benchmarks:
${list}

Options:
  --quick      small sizes for a smoke run (figures not comparable with the targets)
  -h, --help   show this help

Figures are printed as a table (progress goes to stderr) and written to reports/bench/<benchmark>.json
(with no name: one table of every issue-15 and issue-25 figure, written to reports/bench.json).
A missed target is reported as MISSED; the exit code is still 0.

Docs: docs/benchmarks.md
`;
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${help()}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseBenchArguments(process.argv.slice(2));
} catch (error) {
  fail((error as Error).message);
}
if (parsed.help) {
  process.stdout.write(help());
  process.exit(0);
}
if (parsed.names.length === 0) {
  const { runIssueFigures } = await import('../bench/issue-figures.ts');
  let code: number;
  try {
    code = await runIssueFigures({ quick: parsed.quick });
  } catch (error) {
    process.stderr.write(`error: benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
    code = 1;
  }
  process.exit(code);
}

try {
  for (const name of parsed.names) await BENCHMARKS[name].run({ quick: parsed.quick });
} catch (error) {
  process.stderr.write(`error: benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
// Every benchmark closes its servers and workers; exiting explicitly guards against a
// stray handle keeping a finished measurement alive.
process.exit(0);
