/**
 * `sandbox-conformance run <lane>...` and `list`: the lane command (lanes/run/lane-command.ts),
 * which `npm run lane` runs too, with the package's defaults: reports in ./conformance-reports,
 * cluster files under it (never inside the installed package).
 */
import { join } from 'node:path';
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { runLaneCommand } from '../lanes/run/lane-command.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';
import { DEFAULT_REPORT_DIR } from './usage.ts';

export function runCommand(argv: string[]): Promise<number> {
  return runLaneCommand(argv, {
    images: FIXTURE_PROGRAMS,
    invariants: INVARIANTS,
    invocation: { command: 'sandbox-conformance run', defaultReportDir: `${DEFAULT_REPORT_DIR}/`, workRoot: (reportRoot) => join(reportRoot, '.cluster') },
  });
}
