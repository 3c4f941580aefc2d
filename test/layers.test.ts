// Layers point one way: api ← client ← cli, api ← output ← cli, api ← server ← cli (serve),
// api, gen ← mcp ← cli (pctl mcp) and server (/mcp), config ← cli; inside the server, surfaces →
// domain → store, auth beside the domain, and no circle between its files. Checked over every
// import of src/ (static, type-only and dynamic alike), so the client can be used without the
// CLI and the server without either, and every surface reaches the data through the domain's rules.
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
  // gen: each published method's MCP text and hints (gen/published/mcp.ts, from proto/'s annotations).
  mcp: ['api', 'gen'],
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

/**
 * The server's own layers, by folder under src/server/ (docs/architecture.md): the surfaces
 * (REST, gRPC, v1, MCP, the control API, OAuth, events) read their wire and call operations;
 * the pipeline runs them (faults, authentication, admission, the journal) on the transport's
 * exchanges; data (bootstrap, seeds, demo, snapshots) writes through the domain; the domain
 * uses auth and the store; `base` is a few leaf helpers (strict query parsing, the random
 * source) anyone may use. index.ts, at the root, wires them together.
 */
const SERVER_LAYERS: Record<string, readonly string[]> = {
  surfaces: ['pipeline', 'transport', 'data', 'domain', 'auth', 'store', 'base'],
  data: ['domain', 'auth', 'store', 'base'],
  pipeline: ['transport', 'domain', 'auth', 'store', 'base'],
  transport: ['store', 'base'],
  domain: ['auth', 'store', 'base'],
  auth: ['store', 'base'],
  store: ['base'],
  base: [],
};

/** A file's layer; undefined outside the server and at its root (index.ts: above every layer). */
function serverLayer(path: string): string | undefined {
  return /^server\/(surfaces|pipeline|transport|data|domain|auth|store|base)\//.exec(path)?.[1];
}

function serverViolations(all: readonly Edge[]): string[] {
  return all
    .filter(({ from, to }) => {
      const a = serverLayer(from);
      const b = serverLayer(to);
      return a !== undefined && b !== undefined && a !== b && !SERVER_LAYERS[a]!.includes(b);
    })
    .map(({ from, to }) => `${from} → ${to}`);
}

/** The import circles among files (each once, as `a → b → a`). */
function circles(all: readonly Edge[]): string[] {
  const norm = (p: string) => p.replace(/\.js$/, '.ts');
  const next = new Map<string, string[]>();
  for (const { from, to } of all) next.set(norm(from), [...(next.get(norm(from)) ?? []), norm(to)]);
  const found = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') found.add([...stack.slice(stack.indexOf(to)), to].join(' → '));
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of next.keys()) if (!state.has(file)) visit(file);
  return [...found];
}

test('inside the server, surfaces → domain → store (auth beside the domain), and no file imports itself round a circle', (t) => {
  const all = files(join(src, 'server')).flatMap(edges);
  t.deepEqual(serverViolations(all), []);
  t.deepEqual(circles(all), []);
});

test('the server checks catch an arrow up and a circle (so the test above can fail)', (t) => {
  const bad = [
    { from: 'server/store/list.ts', to: 'server/auth/authorize.js' },
    { from: 'server/domain/groups.ts', to: 'server/surfaces/rest/iam.js' },
    { from: 'server/surfaces/rest/iam.ts', to: 'server/domain/groups.js' },
    { from: 'server/auth/authorize.ts', to: 'server/store/list.js' },
  ];
  t.deepEqual(serverViolations(bad), ['server/store/list.ts → server/auth/authorize.js', 'server/domain/groups.ts → server/surfaces/rest/iam.js']);
  t.deepEqual(circles(bad), [
    'server/store/list.ts → server/auth/authorize.ts → server/store/list.ts',
    'server/domain/groups.ts → server/surfaces/rest/iam.ts → server/domain/groups.ts',
  ]);
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
