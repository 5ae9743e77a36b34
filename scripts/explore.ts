#!/usr/bin/env tsx
/**
 * `npm run explore -- <lane> [options]`, `npm run explore -- replay <dir>`: searches seeded call
 * programs and fault schedules for failures and shrinks each to a replayable reproducer
 * (scripts/explore-main.ts), run from its bundle (lanes/run/command-bundle.ts: ~3.9 CPU-s to
 * start through tsx), built and cached on first use.
 */
import { fileURLToPath } from 'node:url';
import { importCommand } from '../lanes/run/command-bundle.ts';

await importCommand(fileURLToPath(new URL('./explore-main.ts', import.meta.url)), ['explore']);
