// Layers point one way: api ← client ← cli, api ← output ← cli, api ← server ← cli (serve),
// api ← mcp ← cli (pctl mcp) and server (/mcp),
// config ← cli. Checked over every import of src/ (static, type-only and dynamic alike), so
// the client can be used without the CLI and the server without either.
import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** What each top-level directory of src/ may import, besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  api: [],
  client: ['api'],
  output: ['api'],
  server: ['api', 'gen', 'mcp'],
  config: ['api'],
  types: [],
  // Generated from proto/ (npm run gen): imports nothing of ours.
  gen: [],
  // The MCP tool set: the registry's resources as tools over an API caller; stdio (cli) and serve's /mcp (server) both serve it.
  mcp: ['api'],
  cli: ['api', 'client', 'output', 'server', 'config', 'types', 'mcp'],
};

interface Edge { from: string; to: string }

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of a file: `import … from`, `export … from`, `import type`, `import('…')`. */
function edges(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((spec) => ({ from: relative(src, file), to: relative(src, resolve(dirname(file), spec)) }));
}

/** The edges that break the layering, as `from → to`. */
function violations(all: readonly Edge[], allowed: Record<string, readonly string[]> = ALLOWED): string[] {
  const layer = (path: string) => path.split('/')[0]!;
  return all
    .filter(({ from, to }) => {
      const a = layer(from);
      const b = layer(to);
      return a !== b && !(allowed[a] ?? []).includes(b);
    })
    .map(({ from, to }) => `${from} → ${to}`);
}

test('imports between the layers of src/ point one way', (t) => {
  const layers = readdirSync(src).filter((d) => statSync(join(src, d)).isDirectory());
  t.deepEqual(layers.filter((l) => !(l in ALLOWED)), [], 'a new top-level directory needs its place in ALLOWED');
  const all = files(src).flatMap(edges);
  t.true(all.length > 200, `only ${all.length} imports found: is the scanner broken?`);
  t.deepEqual(violations(all), []);
});

test('the check catches an import against the direction (so the test above can fail)', (t) => {
  const bad = [
    { from: 'client/http.ts', to: 'cli/errors.js' },
    { from: 'output/print.ts', to: 'cli/context.js' },
    { from: 'cli/main.ts', to: 'client/index.js' },
    { from: 'api/resources.ts', to: 'api/schemas.js' },
  ];
  t.deepEqual(violations(bad), ['client/http.ts → cli/errors.js', 'output/print.ts → cli/context.js']);
});

test('export, diff and apply are client-side: nothing they import, however indirectly, is in src/server', (t) => {
  const all = files(src).flatMap(edges);
  const importsOf = new Map<string, string[]>();
  for (const { from, to } of all) importsOf.set(from, [...(importsOf.get(from) ?? []), to.replace(/\.js$/, '.ts')]);
  const start = files(src).map((f) => relative(src, f)).filter((f) => f.startsWith('cli/manifest/') || f.startsWith('cli/commands/manifest/'));
  t.true(start.length >= 8, `only ${start.length} files found`);
  const reached = new Set(start);
  for (const file of reached) for (const next of importsOf.get(file) ?? []) reached.add(next);
  t.deepEqual([...reached].filter((f) => f.startsWith('server/')), []);
});
