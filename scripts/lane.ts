#!/usr/bin/env tsx
/**
 * `npm run lane -- <lane> [options] [-- <playwright args>]` (scripts/lane-main.ts), run from its
 * bundle (lanes/run/command-bundle.ts: ~0.5 CPU-s to start instead of ~3 through tsx), built
 * and cached on first use; from source when the bundle cannot be built, saying why.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandBundle } from '../lanes/run/command-bundle.ts';

let bundle: string | undefined;
try {
  bundle = await commandBundle(fileURLToPath(new URL('./lane-main.ts', import.meta.url)));
} catch (error) {
  process.stderr.write(`note: running the lane command from source, not from its bundle (${(error as Error).message})\n`);
}
await import(bundle ? pathToFileURL(bundle).href : './lane-main.ts');
