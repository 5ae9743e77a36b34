import { existsSync, readFileSync } from 'node:fs';

/** The attachment the timeline fixture gives every test: each verdict its timeline.html shows, as JSON. */
export const VERDICTS_ATTACHMENT = 'verdicts.json';

/** One invariant verdict of a test, as much of it as the summary counts. */
interface VerdictRecord {
  id: string;
  status: 'PASS' | 'FAIL' | 'INCONCLUSIVE';
  /** INCONCLUSIVE only because the test had nothing of the family's kind (no stop, no delete): not an evaluation. */
  noEpisode?: boolean;
  /** A FAIL the test provoked on purpose and asserted (`.not.toHold`): counted apart, not as a violation. */
  expectedByTest?: boolean;
}

/** One scenario's outcome in one lane (one test run: with --repeat-each, one per repeat), as the summary shows it. */
export interface Outcome {
  scenario: string;
  status: 'passed' | 'failed' | 'skipped' | 'flaky' | 'interrupted';
  /** Violated invariant IDs, or the skip reason. */
  detail?: string;
  /** The registered invariants' verdicts of the test's final attempt. */
  verdicts?: VerdictRecord[];
}

interface JsonAttachment {
  name: string;
  body?: string;
  path?: string;
}

interface JsonSuite {
  title: string;
  file?: string;
  suites?: JsonSuite[];
  specs?: {
    title: string;
    tests: { status: string; annotations?: { type: string; description?: string }[]; results: { status: string; error?: { message?: string }; errors?: { message?: string }[]; attachments?: JsonAttachment[] }[] }[];
  }[];
}

/**
 * Reads Playwright's JSON report into per-test outcomes. A failure's detail names the
 * invariants (of `invariantIds`) its messages mention, else its first line; the verdicts of
 * those invariants come from the final attempt's verdicts.json.
 */
export function readOutcomes(resultsPath: string, invariantIds: readonly string[]): Outcome[] {
  if (!existsSync(resultsPath)) return [];
  const report = JSON.parse(readFileSync(resultsPath, 'utf8')) as { suites: JsonSuite[] };
  const outcomes: Outcome[] = [];
  const walk = (suite: JsonSuite, path: string[]) => {
    // The suite's specs are .spec.ts in the checkout and .spec.js in the package; the user's own (--scenarios) lie outside the root (`../../conformance/mine.spec.ts`).
    const here = suite.file ? [suite.file.replace(/\.spec\.[cm]?[jt]s$/, '').replace(/^(\.\.\/)+/, '')] : suite.title ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const last = t.results[t.results.length - 1];
        const messages = t.results.flatMap((r) => (r.errors?.length ? r.errors : [r.error ?? {}]).map((e) => e.message ?? '')).join('\n');
        const status = t.status === 'expected' ? (last?.status === 'skipped' ? 'skipped' : 'passed') : t.status === 'skipped' ? 'skipped' : t.status === 'flaky' ? 'flaky' : last?.status === 'interrupted' ? 'interrupted' : 'failed';
        let detail: string | undefined;
        if (status === 'skipped') detail = t.annotations?.find((a) => a.type === 'skip')?.description;
        if (status === 'failed') detail = failureDetail(messages.replace(/\u001b\[[0-9;]*m/g, ''), invariantIds);
        const verdicts = readVerdicts(last?.attachments ?? [], resultsPath)?.filter((v) => invariantIds.includes(v.id));
        outcomes.push({ scenario: [...here, spec.title].join(' › '), status, detail, ...(verdicts ? { verdicts } : {}) });
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites) walk(suite, []);
  return outcomes;
}

/**
 * What a failure names: the invariants that failed, then those INCONCLUSIVE or NOT SEEN (a
 * verdict's text is `FAIL <id>: …`, `INCONCLUSIVE <id>: …`, `NOT SEEN <id>: …`), else a scenario's
 * own assertion by its id (`count/supervisor Pod created during "stop again"`), else any
 * invariant it mentions, else its first line.
 */
function failureDetail(messages: string, invariantIds: readonly string[]): string | undefined {
  const judged = (...words: string[]) => invariantIds.filter((id) => words.some((word) => messages.includes(`${word} ${id}: `)));
  const [failed, inconclusive] = [judged('FAIL'), judged('INCONCLUSIVE', 'NOT SEEN')];
  if (failed.length || inconclusive.length) return [failed.join(', '), inconclusive.length ? `INCONCLUSIVE ${inconclusive.join(', ')}` : ''].filter(Boolean).join('; ');
  const own = /^(?:\w*Error: )?(FAIL|INCONCLUSIVE|NOT SEEN) ([a-z]+\/.+?): /m.exec(messages);
  if (own) return `${own[1] === 'FAIL' ? '' : `${own[1]} `}${own[2]}`;
  const mentioned = invariantIds.filter((id) => messages.includes(id));
  return mentioned.length ? mentioned.join(', ') : messages.split('\n').find((l) => l.trim())?.slice(0, 120);
}

/** The verdicts.json attachment: inline (base64) as the json reporter writes it, or a file beside the report. */
function readVerdicts(attachments: JsonAttachment[], resultsPath: string): VerdictRecord[] | undefined {
  const found = attachments.find((a) => a.name === VERDICTS_ATTACHMENT);
  if (!found) return undefined;
  try {
    const text = found.body !== undefined ? Buffer.from(found.body, 'base64').toString('utf8') : found.path ? readFileSync(found.path, 'utf8') : undefined;
    return text === undefined ? undefined : (JSON.parse(text) as VerdictRecord[]);
  } catch (error) {
    throw new Error(`${resultsPath}: cannot read the ${VERDICTS_ATTACHMENT} attachment: ${(error as Error).message}`);
  }
}

const MARK: Record<Outcome['status'], string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', flaky: 'flaky', interrupted: 'interrupted' };
const WORST_FIRST: Outcome['status'][] = ['failed', 'interrupted', 'flaky', 'skipped', 'passed'];

/** One lane's cell for one scenario: its outcome, or with repeats, how many runs ended each way. */
function scenarioCell(runs: Outcome[]): string {
  const detail = (o: Outcome) => (o.detail ? ` (${o.detail.replace(/\|/g, '/')})` : '');
  if (runs.length === 0) return '—';
  if (runs.length === 1) return `${MARK[runs[0].status]}${detail(runs[0])}`;
  return WORST_FIRST.flatMap((status) => {
    const these = runs.filter((o) => o.status === status);
    return these.length ? [`${MARK[status]} ×${these.length}${detail(these[0])}`] : [];
  }).join(', ');
}

/** Each invariant's violations, evaluations (verdicts on something the test did) and INCONCLUSIVE verdicts over a lane's tests. */
export function invariantRates(outcomes: Outcome[]): InvariantRate[] {
  const rates = new Map<string, InvariantRate>();
  for (const v of outcomes.flatMap((o) => o.verdicts ?? [])) {
    const rate = rates.get(v.id) ?? { id: v.id, violations: 0, evaluations: 0, inconclusive: 0, expected: 0 };
    rates.set(v.id, rate);
    if (v.noEpisode) continue;
    rate.evaluations++;
    if (v.status === 'FAIL' && v.expectedByTest) rate.expected++;
    else if (v.status === 'FAIL') rate.violations++;
    if (v.status === 'INCONCLUSIVE') rate.inconclusive++;
  }
  return [...rates.values()];
}

/**
 * One invariant's record in one lane: its violations among its evaluations; INCONCLUSIVE ones;
 * and FAILs a scenario provoked on purpose and asserted (`expected`), which are no violation.
 */
export interface InvariantRate {
  id: string;
  violations: number;
  evaluations: number;
  inconclusive: number;
  expected: number;
}

/**
 * The one-screen lane x scenario table, as Markdown (also fine in a terminal), followed by the
 * invariant x lane table of violation rates: `violations/evaluations`, the INCONCLUSIVE count, and
 * the FAILs a scenario provoked on purpose (`expected by the test`).
 */
export function summaryTable(results: Map<string, Outcome[]>): string {
  const lanes = [...results.keys()];
  const scenarios = [...new Set([...results.values()].flat().map((o) => o.scenario))].sort();
  const lines = [`| scenario | ${lanes.join(' | ')} |`, `|---|${lanes.map(() => '---').join('|')}|`];
  for (const scenario of scenarios) lines.push(`| ${scenario} | ${lanes.map((lane) => scenarioCell((results.get(lane) ?? []).filter((o) => o.scenario === scenario))).join(' | ')} |`);
  const rates = new Map(lanes.map((lane) => [lane, invariantRates(results.get(lane) ?? [])]));
  const invariants = [...new Set([...rates.values()].flat().map((r) => r.id))];
  if (invariants.length === 0) return lines.join('\n');
  lines.push('', `| invariant: violations/evaluations (INCONCLUSIVE) | ${lanes.join(' | ')} |`, `|---|${lanes.map(() => '---').join('|')}|`);
  for (const id of invariants) {
    const cells = lanes.map((lane) => {
      const r = rates.get(lane)!.find((x) => x.id === id);
      if (!r || r.evaluations === 0) return '—';
      const notes = [r.inconclusive ? `${r.inconclusive} INCONCLUSIVE` : '', r.expected ? `${r.expected} expected by the test` : ''].filter(Boolean);
      return `${r.violations}/${r.evaluations}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    });
    lines.push(`| ${id} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
