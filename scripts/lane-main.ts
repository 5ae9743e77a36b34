/**
 * `npm run lane -- <lane> [options] [-- <playwright args>]` (started by scripts/lane.ts, from
 * its bundle): brings up a cluster for the lane,
 * runs the conformance scenarios against it, writes reports/<lane>/, prints the lane x
 * scenario table, and tears the cluster down (unless --keep). The runner is lanes/run/; this
 * entry point hands it what lies outside lanes/: the fixture programs and the invariants.
 */
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { runLaneCommand } from '../lanes/run/lane-command.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';

process.exit(await runLaneCommand(process.argv.slice(2), { images: FIXTURE_PROGRAMS, invariants: INVARIANTS }));
