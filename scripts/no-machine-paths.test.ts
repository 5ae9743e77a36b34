import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * No path of one machine in the tracked tree: a fresh clone must work anywhere. The rule, per
 * tracked text file (package-lock.json aside: its base64 integrity hashes are not paths; and
 * this file, which spells out the paths it forbids):
 *
 * - everywhere, code and docs: a workplace or home folder (the `work` folder at the root,
 *   root's home, `<user>` under `home` or `Users`), or a tool at a fixed place (kubectl in
 *   usr/bin, kind in usr/local/bin, anything in bin or sbin at the root). Shebang lines (`#!/usr/bin/env node`,
 *   `#!/bin/bash`) are how scripts name their interpreter and stay allowed; tools come from PATH
 *   (kubectl: PATH or $KUBECTL). A PATH list such as `/usr/bin:/bin` names no tool and is allowed.
 * - in code (.ts, .mts, .js, .mjs, .cjs, .sh, .ci/run): a string literal that starts with
 *   `/tmp/` — temp files belong under os.tmpdir(). A `/tmp/…` inside prose, such as a socket in a
 *   usage example (`--socket /tmp/driver.sock`) or in the README, is an example, not a path the
 *   code uses.
 *
 * Container and system paths that are the same on every machine (`/var/run/docker.sock`,
 * `/app/main.cjs` in a Dockerfile, `/dev/stdin`) are not machine paths and are not flagged.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const SELF = 'scripts/no-machine-paths.test.ts';
const EVERYWHERE: { what: string; pattern: RegExp }[] = [
  { what: 'a workplace folder', pattern: /\/work\// },
  { what: "root's home", pattern: /\/root\// },
  { what: 'a user home', pattern: /\/(home|Users)\/[A-Za-z_][A-Za-z0-9_.-]*\// },
  { what: 'a tool at a fixed place (use PATH)', pattern: /(?<!#!)(?<![\w.-])\/(usr\/(local\/)?)?s?bin\/(?!env\b)[A-Za-z]/ },
];
const IN_CODE: { what: string; pattern: RegExp }[] = [{ what: 'a temp path literal (use os.tmpdir())', pattern: /['"`]\/tmp\// }];
const CODE = /(\.(ts|mts|js|mjs|cjs|sh)|^\.ci\/run)$/;

interface Hit {
  file: string;
  line: number;
  what: string;
  text: string;
}

function scan(file: string, text: string): Hit[] {
  const rules = CODE.test(file) ? [...EVERYWHERE, ...IN_CODE] : EVERYWHERE;
  const hits: Hit[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, pattern } of rules) if (pattern.test(line)) hits.push({ file, line: i + 1, what, text: line.trim() });
  });
  return hits;
}

test('no tracked file names a path of one machine', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  expect(files.length).toBeGreaterThan(50);
  const hits: Hit[] = [];
  for (const file of files) {
    if (file === 'package-lock.json' || file === SELF) continue;
    const bytes = readFileSync(join(ROOT, file));
    if (bytes.includes(0)) continue; // binary
    hits.push(...scan(file, bytes.toString('utf8')));
  }
  expect(hits.map((h) => `${h.file}:${h.line}: ${h.what}: ${h.text}`)).toEqual([]);
});

test('the rule flags what it should and lets examples and standard paths be', () => {
  // The paths it must flag are put together here, so this file does not spell out a machine path itself.
  const at = (...parts: string[]) => `/${parts.join('/')}`;
  const flagged = (file: string, text: string) => scan(file, text).map((h) => h.what);
  expect(flagged('a.test.ts', `const M = '${at('work', 'shared', 'upstream', 'x.yaml')}';`)).toEqual(['a workplace folder']);
  expect(flagged('README.md', `see ${at('root', '.cache')}`)).toEqual(["root's home"]);
  expect(flagged('notes.md', `cd ${at('home', 'alice', 'src')}`)).toEqual(['a user home']);
  expect(flagged('a.ts', `export const KUBECTL = '${at('usr', 'bin', 'kubectl')}';`)).toEqual(['a tool at a fixed place (use PATH)']);
  expect(flagged('a.ts', `execa('${at('usr', 'local', 'bin', 'kind')}')`)).toEqual(['a tool at a fixed place (use PATH)']);
  expect(flagged('a.ts', "{ KUBECONFIG: '/tmp/a.kubeconfig' }")).toEqual(['a temp path literal (use os.tmpdir())']);

  expect(flagged('a.ts', '#!/usr/bin/env tsx')).toEqual([]);
  expect(flagged('a.ts', 'const KIND = `#!/bin/bash')).toEqual([]);
  expect(flagged('a.ts', "PATH: process.env.PATH ?? '/usr/bin:/bin'")).toEqual([]);
  expect(flagged('a.ts', '  npm run driver -- serve --socket /tmp/driver.sock')).toEqual([]);
  expect(flagged('README.md', '--driver external=/tmp/d.sock')).toEqual([]);
  expect(flagged('a.ts', "'Cannot connect to the Docker daemon at unix:///var/run/docker.sock'")).toEqual([]);
  expect(flagged('Dockerfile', 'ENTRYPOINT ["node", "/app/main.cjs"]')).toEqual([]);
  expect(flagged('a.ts', 'kind load image-archive /dev/stdin')).toEqual([]);
  expect(flagged('a.ts', "execa('node_modules/.bin/tsx'); join(root, 'stub/bin/kind')")).toEqual([]);
});
