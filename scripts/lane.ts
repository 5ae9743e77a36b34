#!/usr/bin/env tsx
/**
 * `npm run lane -- <lane> [options] [-- <playwright args>]` (scripts/lane-main.ts), run from its
 * bundle (lanes/run/command-bundle.ts: ~0.5 CPU-s to start instead of ~3 through tsx), built
 * and cached on first use; from source when the bundle cannot be built, saying why.
 */
import { fileURLToPath } from 'node:url';
import { importCommand } from '../lanes/run/command-bundle.ts';

await importCommand(fileURLToPath(new URL('./lane-main.ts', import.meta.url)));
