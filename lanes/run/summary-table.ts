import { existsSync, readFileSync } from 'node:fs';

/** One scenario's outcome in one lane, as the summary table shows it. */
export interface Outcome {
  scenario: string;
  status: 'passed' | 'failed' | 'skipped' | 'flaky' | 'interrupted';
  /** Violated invariant IDs, or the skip reason. */
  detail?: string;
}

interface JsonSuite {
  title: string;
  file?: string;
  suites?: JsonSuite[];
  specs?: { title: string; tests: { status: string; annotations?: { type: string; description?: string }[]; results: { status: string; error?: { message?: string }; errors?: { message?: string }[] }[] }[] }[];
}

/**
 * Reads Playwright's JSON report into per-scenario outcomes. A failure's detail names the
 * invariants (of `invariantIds`) its messages mention, else its first line.
 */
export function readOutcomes(resultsPath: string, invariantIds: readonly string[]): Outcome[] {
  if (!existsSync(resultsPath)) return [];
  const report = JSON.parse(readFileSync(resultsPath, 'utf8')) as { suites: JsonSuite[] };
  const outcomes: Outcome[] = [];
  const walk = (suite: JsonSuite, path: string[]) => {
    const here = suite.file ? [suite.file.replace(/\.spec\.ts$/, '')] : suite.title ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const last = t.results[t.results.length - 1];
        const messages = t.results.flatMap((r) => (r.errors?.length ? r.errors : [r.error ?? {}]).map((e) => e.message ?? '')).join('\n');
        const status = t.status === 'expected' ? (last?.status === 'skipped' ? 'skipped' : 'passed') : t.status === 'skipped' ? 'skipped' : t.status === 'flaky' ? 'flaky' : last?.status === 'interrupted' ? 'interrupted' : 'failed';
        let detail: string | undefined;
        if (status === 'skipped') detail = t.annotations?.find((a) => a.type === 'skip')?.description;
        if (status === 'failed') {
          const ids = invariantIds.filter((id) => messages.includes(id));
          const inconclusive = /INCONCLUSIVE/.test(messages);
          detail = ids.length ? `${inconclusive ? 'INCONCLUSIVE ' : ''}${ids.join(', ')}` : messages.split('\n').find((l) => l.trim())?.replace(/\u001b\[[0-9;]*m/g, '').slice(0, 120);
        }
        outcomes.push({ scenario: [...here, spec.title].join(' › '), status, detail });
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites) walk(suite, []);
  return outcomes;
}

const MARK: Record<Outcome['status'], string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', flaky: 'flaky', interrupted: 'interrupted' };

/** The one-screen lane x scenario table, as Markdown (also fine in a terminal). */
export function summaryTable(results: Map<string, Outcome[]>): string {
  const lanes = [...results.keys()];
  const scenarios = [...new Set([...results.values()].flat().map((o) => o.scenario))].sort();
  const lines = [`| scenario | ${lanes.join(' | ')} |`, `|---|${lanes.map(() => '---').join('|')}|`];
  for (const scenario of scenarios) {
    const cells = lanes.map((lane) => {
      const o = results.get(lane)?.find((x) => x.scenario === scenario);
      return o ? `${MARK[o.status]}${o.detail ? ` (${o.detail.replace(/\|/g, '/')})` : ''}` : '—';
    });
    lines.push(`| ${scenario} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
