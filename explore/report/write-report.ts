/**
 * The search's report: for each signature, reports/explore/<lane>/<signature>/ — schedule.json
 * (the minimal schedule, a file `npm run lane -- --faults` also takes), program.json,
 * original.json (the first failing run as found), finding.json, replay.sh (one command), the
 * minimal run's timeline.html (the faults drawn on the swimlane) and verdicts.json, shrink.json
 * (runs spent, items and calls before and after, the reproduction rate); then summary.md and
 * junit.xml for CI, and the table the command prints.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../lanes/run/lane-job.ts';
import type { DriverUnderTest } from '../../lanes/run/lane-run.ts';
import { failedInvariants } from '../oracle/signature.ts';
import { callCount, describeProgram } from '../program/program.ts';
import type { Finding, SearchReport } from '../search/explore-search.ts';
import { FINDING_FILE, type FindingFile } from './finding-file.ts';

/** A signature as a folder name: `stop/suspend-after-supervisor-gone` → `stop_suspend-after-supervisor-gone`. */
export function signatureFolder(signature: string): string {
  const slug = signature.replace(/\//g, '_').replace(/[^A-Za-z0-9._+-]/g, '-');
  return slug.length > 120 ? `${slug.slice(0, 100)}+${slug.split('+').length}-ids` : slug;
}

export interface ReportContext {
  lane: string;
  driver: DriverUnderTest;
  seed: number;
  /** reports/explore/<lane>/ */
  dir: string;
}

export function writeReport(report: SearchReport, context: ReportContext): void {
  mkdirSync(context.dir, { recursive: true });
  for (const finding of report.findings) writeFinding(finding, context);
  writeFileSync(join(context.dir, 'summary.md'), summaryMarkdown(report, context));
  writeFileSync(join(context.dir, 'junit.xml'), junit(report, context));
}

function writeFinding(finding: Finding, context: ReportContext): void {
  const dir = join(context.dir, signatureFolder(finding.signature));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const first = finding.runs[0];
  const minimal = finding.minimal ?? { program: first.program, schedule: first.schedule! };
  const file: FindingFile = {
    signature: finding.signature,
    lane: context.lane,
    driver: context.driver,
    seed: context.seed,
    program: minimal.program,
    schedule: minimal.schedule,
    original: { runId: first.runId, program: first.program, ...(first.schedule && { schedule: first.schedule }) },
    failingRuns: finding.runs.length,
    ...(finding.stats && { stats: finding.stats }),
    ...(finding.reproduced && { reproduced: finding.reproduced }),
  };
  const json = (name: string, value: unknown) => writeFileSync(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
  json(FINDING_FILE, file);
  json('schedule.json', minimal.schedule);
  json('program.json', minimal.program);
  json('original.json', file.original);
  json('shrink.json', { ...finding.stats, reproduced: finding.reproduced, reproductionRate: rate(finding) });
  const shown = finding.minimalRun ?? first.result;
  json('verdicts.json', shown.verdicts);
  if (shown.timelineHtml && existsSync(shown.timelineHtml)) copyFileSync(shown.timelineHtml, join(dir, 'timeline.html'));
  const root = relative(dir, ROOT) || '.';
  writeFileSync(join(dir, 'replay.sh'), `#!/bin/sh\n# Replays this finding: ${finding.signature}\nhere="$(cd "$(dirname "$0")" && pwd)"\ncd "$here/${root}" && exec npm run explore -- replay "$here" "$@"\n`);
  chmodSync(join(dir, 'replay.sh'), 0o755);
}

function rate(finding: Finding): string | undefined {
  const r = finding.reproduced;
  return r && `${r.failed}/${r.of}`;
}

/** The table the command prints and summary.md holds: one row per signature. */
export function findingsTable(report: SearchReport, context: ReportContext): string {
  const rows = report.findings.map((f) => {
    const minimal = f.minimal ?? { program: f.runs[0].program, schedule: f.runs[0].schedule ?? { items: [] } };
    const items = f.stats ? `${f.stats.itemsBefore} → ${f.stats.itemsAfter}` : `${minimal.schedule.items.length}`;
    const calls = f.stats ? `${f.stats.callsBefore} → ${f.stats.callsAfter}` : `${callCount(minimal.program)}`;
    return `| ${f.signature} | ${f.runs.length} | ${f.runs[0].runId} | ${items} | ${calls} | ${rate(f) ?? '—'} | ${relative(process.cwd(), join(context.dir, signatureFolder(f.signature)))}/ |`;
  });
  return ['| signature | failing runs | first | schedule items | calls | reproduced | reproducer |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

function summaryMarkdown(report: SearchReport, context: ReportContext): string {
  const perMinute = report.runsTotal / (report.totalMs / 60_000);
  const head = `### explore ${context.lane}: driver ${context.driver.kind === 'harness' ? context.driver.variant : context.driver.kind}, seed ${report.seed}\n\n${report.runs} fault runs over ${report.references} programs (each with a fault-free reference run) in ${(report.searchMs / 1000).toFixed(0)} s; ${report.runsTotal} runs in all with shrinking and replays, ${(report.totalMs / 1000).toFixed(0)} s (${perMinute.toFixed(1)} runs/min).\n\n`;
  if (!report.findings.length) return `${head}No failure found.\n`;
  const details = report.findings.map((f) => {
    const m = f.minimal;
    return `#### ${f.signature}\n\n${m ? `Minimal: program \`${describeProgram(m.program)}\`; schedule ${m.schedule.items.length ? m.schedule.items.map((i) => `\`${i.id}\``).join(', ') : 'none (fails without faults)'}.` : ''}\n${f.stats ? `Shrink: ${f.stats.candidates} candidates in ${f.stats.rounds} batches; ${f.stats.accepted.join('; ') || 'nothing smaller failed'}.` : ''}\nReplay: \`npm run explore -- replay ${relative(ROOT, join(context.dir, signatureFolder(f.signature)))}\`\n`;
  });
  return `${head}${findingsTable(report, context)}\n\n${details.join('\n')}`;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One test case per signature (failed), or one passing case when the search found nothing. */
function junit(report: SearchReport, context: ReportContext): string {
  const seconds = (report.totalMs / 1000).toFixed(1);
  const cases = report.findings.length
    ? report.findings.map((f) => {
        const shown = f.minimalRun ?? f.runs[0].result;
        const message = `${f.signature}: ${f.runs.length} failing run(s); reproduced ${rate(f) ?? '—'}; invariants: ${failedInvariants(shown).join(', ') || 'none'}`;
        return `    <testcase classname="explore.${xml(context.lane)}" name="${xml(f.signature)}"><failure message="${xml(message)}">${xml([...shown.errors].join('\n\n').slice(0, 20_000))}</failure></testcase>`;
      })
    : [`    <testcase classname="explore.${xml(context.lane)}" name="no failure over ${report.runs} fault runs (seed ${report.seed})"/>`];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${cases.length}" failures="${report.findings.length}" time="${seconds}">\n  <testsuite name="explore ${xml(context.lane)}" tests="${cases.length}" failures="${report.findings.length}" time="${seconds}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
