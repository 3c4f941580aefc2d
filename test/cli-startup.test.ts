// Startup stays light: everything main.ts loads eagerly (its static import graph) may use
// commander and node builtins only; undici, zod, conf, yaml, chalk and cli-table3 must come
// in through dynamic import() when a command needs them. What it loads of ours is the
// command declarations and the resource registry: data, no handlers.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Static, value (not `import type`) imports of a TS module. */
function staticImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(?!type\b)([^'";]*?\bfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of src.matchAll(re)) {
    // `import { type A, type B } from` is type-only as well.
    const named = /^\{([^}]*)\}\s*from\s*$/.exec((m[2] ?? '').trim());
    if (named && named[1]!.split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '))) continue;
    out.push(m[3]!);
  }
  return out;
}

function eagerGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

test('main.ts eagerly loads only commander and node builtins', (t) => {
  const { files, packages } = eagerGraph(resolve(root, 'src/cli/main.ts'));
  const heavy = [...packages].filter((p) => p !== 'commander' && !p.startsWith('node:'));
  t.deepEqual(heavy, [], `eagerly imported: ${heavy.join(', ')}`);
  const declarations = /^src\/(cli\/(main|command|context|help|resource-commands)\.ts|output\/target\.ts|cli\/commands\/(index|[a-z-]+\/index)\.ts|api\/registry\/[a-z-]+\.ts)$/;
  const others = [...files].map((f) => f.slice(root.length + 1)).filter((f) => !declarations.test(f));
  t.deepEqual(others, [], `main.ts eagerly loads modules that are not declarations: ${others.join(', ')}`);
  t.true(files.size <= 41, `main.ts pulls in ${files.size} modules eagerly`);
});

test('the client loads zod only for a response it validates, and no HTTP package at all', (t) => {
  const { packages } = eagerGraph(resolve(root, 'src/cli/connect.ts'));
  // env-paths (one small file) finds the config dir when PCTL_CONFIG_DIR is unset.
  const heavy = [...packages].filter((p) => !p.startsWith('node:') && p !== 'env-paths');
  t.deepEqual(heavy, [], `connect.ts eagerly imports: ${heavy.join(', ')}`);
});

test('the graph walker sees through to packages (so the tests above can fail)', (t) => {
  const { packages } = eagerGraph(resolve(root, 'src/server/pipeline/input.ts'));
  t.true(packages.has('zod'), 'server/pipeline/input.ts → api/schemas.ts → zod');
});

test('serve loads the gRPC stack, MCP, PostgreSQL and YAML on first use, not at start', (t) => {
  const { files, packages } = eagerGraph(resolve(root, 'src/server/index.ts'));
  const onFirstUse = [...packages].filter((p) => /^(@connectrpc|@bufbuild|@modelcontextprotocol|pg|yaml)(\/|$)/.test(p));
  t.deepEqual(onFirstUse, [], `server/index.ts eagerly imports: ${onFirstUse.join(', ')}`);
  const generated = [...files].filter((f) => f.includes('/src/gen/'));
  t.deepEqual(generated, [], 'the generated descriptors load with the gRPC stack');
});
