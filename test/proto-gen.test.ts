// src/gen/, openapi.json and the published rules (src/api/registry/published-rules.ts) are what
// `node scripts/buf.mjs generate` (npm run gen) makes of proto/ today:
// regenerated into a temp dir and compared file by file, like the completions and the man page.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempDir } from './helpers/temp.js';

const root = join(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

test('src/gen, openapi.json and the published rules match proto/ (run npm run gen after changing a .proto file)', (t) => {
  const out = tempDir('pctl-gen-');
  execFileSync(process.execPath, [join(root, 'scripts/buf.mjs'), 'generate', '--output', out], { cwd: root });
  const fresh = join(out, 'src/gen');
  const committed = join(root, 'src/gen');
  const names = (dir: string) => files(dir).map((f) => relative(dir, f)).sort();
  t.deepEqual(names(committed), names(fresh), 'the same files');
  for (const name of names(fresh)) {
    t.is(readFileSync(join(committed, name), 'utf8'), readFileSync(join(fresh, name), 'utf8'), `src/gen/${name} is stale`);
  }
  t.true(names(fresh).some((n) => n.endsWith('groups_pb.ts')));
  t.is(readFileSync(join(root, 'openapi.json'), 'utf8'), readFileSync(join(out, 'openapi.json'), 'utf8'), 'openapi.json is stale');
  const rules = 'src/api/registry/published-rules.ts';
  t.is(readFileSync(join(root, rules), 'utf8'), readFileSync(join(out, rules), 'utf8'), `${rules} is stale`);
});
