/**
 * `npm run explore` (scripts/explore.ts starts this from its bundle): the search is explore/;
 * this entry point hands it what lies outside: the fixture programs and the invariants the
 * timeline engine registers.
 */
import { runExploreCommand } from '../explore/command/explore-command.ts';
import { FIXTURE_PROGRAMS } from '../fixtures/programs/catalogue.ts';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';

process.exit(await runExploreCommand(process.argv.slice(2), { images: FIXTURE_PROGRAMS, invariantIds: INVARIANTS.map((i) => i.id) }));
