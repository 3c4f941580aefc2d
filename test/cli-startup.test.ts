// Startup stays light: everything main.ts loads eagerly (its static import graph) may use
// commander and node builtins only; undici, zod, conf, yaml, chalk and cli-table3 must come
// in through dynamic import() when a command needs them. What it loads of ours is the
// command declarations and the resource registry: data, no handlers.
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { cli } from './helpers/cli.js';
import { tempDir } from './helpers/temp.js';

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
  // 42: the registry's declarations and the published rules they name (api/registry/published-rules.ts).
  t.true(files.size <= 42, `main.ts pulls in ${files.size} modules eagerly`);
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

test('the simple commands (src/cli/fast.ts) load no package but env-paths, and not the command tree', (t) => {
  const { files, packages } = eagerGraph(resolve(root, 'src/cli/fast.ts'));
  const heavy = [...packages].filter((p) => !p.startsWith('node:') && p !== 'env-paths');
  t.deepEqual(heavy, [], `fast.ts eagerly imports: ${heavy.join(', ')}`);
  const tree = [...files].filter((f) => /\/src\/(cli\/(main|command|commands\/index)|api\/registry\/index)\.ts$/.test(f));
  t.deepEqual(tree, [], 'fast.ts reaches the command tree');
});

/** bin/pctl.js as a user runs it: stdout a pipe, a config dir of its own. */
function runBin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(root, 'bin/pctl.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: env.PCTL_CONFIG_DIR ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

test('the simple commands answer byte for byte as the full CLI does (bin/pctl.js against main())', async (t) => {
  if (!existsSync(resolve(root, 'dist/bundle/fast.cjs'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  const empty = tempDir('pctl-fast-');
  const profiles = tempDir('pctl-fast-');
  writeFileSync(resolve(profiles, 'config.json'), JSON.stringify({ currentProfile: 'b', profiles: { a: { apiUrl: 'http://127.0.0.1:1' }, b: { apiUrl: 'http://127.0.0.1:1', token: 'secret' } } }));
  const lines = [[], ['--help'], ['-h'], ['--version'], ['-V'], ['version'], ['config', 'list'], ['config', 'ls']];
  const broken = tempDir('pctl-fast-');
  writeFileSync(resolve(broken, 'config.json'), '{"profiles": ');
  for (const dir of [empty, profiles, broken]) {
    const env = { PCTL_CONFIG_DIR: dir };
    for (const args of lines) {
      const fast = await runBin(args, env);
      // The full CLI in this process, stdout a pipe (80 columns for help), the same environment.
      const full = await cli(env)(args, { columns: 80 });
      t.deepEqual({ code: fast.code, stdout: fast.stdout, stderr: fast.stderr }, { code: full.code, stdout: full.stdout, stderr: full.stderr }, `pctl ${args.join(' ')}`);
    }
  }
});

test('pctl config list | head -1: a simple command stops quietly when the reader is gone', async (t) => {
  if (!existsSync(resolve(root, 'dist/bundle/fast.cjs'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
  // More than a pipe holds (64 KiB), so that writes go on after head has exited.
  const dir = tempDir('pctl-fast-');
  const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${String(i).padStart(4, '0')}`, { apiUrl: `http://127.0.0.1:1/${'x'.repeat(40)}` }]));
  writeFileSync(resolve(dir, 'config.json'), JSON.stringify({ profiles: many }));
  const r = spawnSync('sh', ['-c', `'${process.execPath}' '${resolve(root, 'bin/pctl.js')}' config list | head -1; echo "exit $?"`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', PCTL_CONFIG_DIR: dir },
  });
  t.is(r.stdout, `\tp0000\thttp://127.0.0.1:1/${'x'.repeat(40)}\t\nexit 0\n`);
  t.is(r.stderr, '');
});
