/**
 * Runs one batch: one lane run (lanes/run/lane-job.ts: the cluster up, the lane set up, the
 * driver announced, Playwright, the cluster down) whose only tests are the batch's runs — the
 * explore spec, given to the lane as its second project (`<lane>/yours`, the `--scenarios`
 * mechanism) and picked out by file name — and reads each run's result back from the lane's
 * JSON report: its status and errors, every invariant's verdict, its timeline, its outcome.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterProvider, FixtureImage } from '../../cluster/cluster-provider.ts';
import type { Lane } from '../../lanes/lane-declaration.ts';
import { runLane, ROOT, type LaneOutput } from '../../lanes/run/lane-job.ts';
import type { DriverUnderTest } from '../../lanes/run/lane-run.ts';
import { countTestLine, type LaneState } from '../../lanes/run/lane-progress.ts';
import type { RunControl } from '../../lanes/run/run-control.ts';
import { VERDICTS_ATTACHMENT } from '../../lanes/run/summary-table.ts';
import type { Verdict } from '../../timeline/evaluate/verdict.ts';
import type { Timeline } from '../../timeline/model.ts';
import { BATCH_ENV, writeBatch, type Batch } from './batch-file.ts';
import { OUTCOME_ATTACHMENT, type RunOutcome } from './run-outcome.ts';

/** The folder of the explore spec, handed to the lane as its second scenario folder. */
const SPEC_DIR = join(ROOT, 'explore', 'run');
const SPEC_FILE = 'explore-batch.spec.ts';

/** Where and how a search runs its batches. */
export interface BatchContext {
  lane: Lane;
  provider: ClusterProvider;
  driver: DriverUnderTest;
  seed: number;
  workers: number;
  images: readonly FixtureImage[];
  invariantIds: readonly string[];
  /** The search's work folder; each batch a folder inside (its lane report). */
  workDir: string;
  control: RunControl;
  /** Told how many of the batch's runs finished, as they finish. */
  onProgress?: (done: number, total: number) => void;
}

export interface RunResult {
  id: string;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'missing';
  errors: string[];
  verdicts: Verdict[];
  outcome?: RunOutcome;
  timeline?: Timeline;
  /** The run's timeline.html, inside the batch's folder. */
  timelineHtml?: string;
  durationMs: number;
}

export interface BatchResult {
  results: Map<string, RunResult>;
  /** What the lane printed, for a batch that could not run at all. */
  log: string;
  wallMs: number;
}

export async function runBatch(context: BatchContext, batch: Batch, name: string): Promise<BatchResult> {
  const dir = join(context.workDir, name);
  mkdirSync(dir, { recursive: true });
  const batchPath = join(dir, 'batch.json');
  writeBatch(batchPath, batch);
  // Playwright's runner and workers inherit the environment (execa extends it).
  process.env[BATCH_ENV] = batchPath;
  const log: string[] = [];
  const tests = { passed: 0, failed: 0, skipped: 0 };
  let partial = '';
  const output: LaneOutput = {
    capturesPlaywright: true,
    out: (text) => {
      log.push(text);
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      if (lines.filter((line) => countTestLine(line, tests)).length) context.onProgress?.(tests.passed + tests.failed + tests.skipped, batch.runs.length);
    },
    err: (text) => void log.push(text),
  };
  const begun = Date.now();
  await runLane(
    context.lane,
    {
      lanes: [context.lane],
      seed: context.seed,
      agentSandboxRealism: context.provider.name === 'embedded' ? { enabled: true, seed: context.seed } : undefined,
      provider: context.provider,
      driver: context.driver,
      images: context.images,
      invariantIds: context.invariantIds,
      reportRoot: dir,
      keep: false,
      workRoot: join(ROOT, '.cluster'),
      scenariosDir: SPEC_DIR,
      playwrightArgs: ['--workers', String(context.workers), SPEC_FILE],
      // Read back by the search, never opened by a person: results.json alone, without the
      // HTML, JUnit and blob reports a lane writes for people and CI.
      reports: 'results',
    },
    context.control,
    output,
    (_: LaneState) => undefined,
  );
  const results = readResults(join(dir, context.lane.name), batch);
  return { results, log: log.join(''), wallMs: Date.now() - begun };
}

interface JsonAttachment {
  name: string;
  body?: string;
  path?: string;
}
interface JsonResult {
  status: RunResult['status'];
  duration: number;
  errors?: { message?: string }[];
  attachments?: JsonAttachment[];
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: { title: string; tests: { results: JsonResult[] }[] }[];
}

/** Each run's result from the lane's results.json; a run Playwright never reported is `missing`. */
export function readResults(laneReportDir: string, batch: Batch): Map<string, RunResult> {
  const path = join(laneReportDir, 'results.json');
  const found = new Map<string, JsonResult>();
  if (existsSync(path)) {
    const walk = (suite: JsonSuite) => {
      for (const spec of suite.specs ?? []) {
        const last = spec.tests[0]?.results.at(-1);
        if (last) found.set(spec.title, last);
      }
      for (const inner of suite.suites ?? []) walk(inner);
    };
    for (const suite of (JSON.parse(readFileSync(path, 'utf8')) as { suites?: JsonSuite[] }).suites ?? []) walk(suite);
  }
  const json = <T>(attachments: JsonAttachment[], name: string): T | undefined => {
    const body = attachments.find((a) => a.name === name)?.body;
    return body === undefined ? undefined : (JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as T);
  };
  return new Map(
    batch.runs.map((run): [string, RunResult] => {
      const result = found.get(run.id);
      if (!result) return [run.id, { id: run.id, status: 'missing', errors: ['Playwright reported no result for this run (the lane did not run it)'], verdicts: [], durationMs: 0 }];
      const attachments = result.attachments ?? [];
      return [
        run.id,
        {
          id: run.id,
          status: result.status,
          errors: (result.errors ?? []).map((e) => e.message ?? '').filter(Boolean),
          verdicts: json<Verdict[]>(attachments, VERDICTS_ATTACHMENT) ?? [],
          outcome: json<RunOutcome>(attachments, OUTCOME_ATTACHMENT),
          timeline: json<Timeline>(attachments, 'timeline.json'),
          timelineHtml: attachments.find((a) => a.name === 'timeline.html')?.path,
          durationMs: result.duration,
        },
      ];
    }),
  );
}
