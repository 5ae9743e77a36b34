#!/usr/bin/env tsx
/**
 * `npm run explore -- <lane> [options]`, `npm run explore -- replay <dir>`: searches seeded call
 * programs and fault schedules for failures and shrinks each to a replayable reproducer. The
 * search is explore/; this entry point hands it what lies outside: the fixture programs and the
 * invariants the timeline engine registers.
 */
import { runExploreCommand } from '../explore/command/explore-command.ts';
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';

process.exit(await runExploreCommand(process.argv.slice(2), { images: FIXTURE_PROGRAMS, invariantIds: INVARIANTS.map((i) => i.id) }));
