#!/usr/bin/env node
// npm run build, second step: bundles the CLI (src/cli/main.ts) into dist/bundle/, split at
// every dynamic import(), so a command loads a few files instead of ~180 modules, and serve,
// SQLite, YAML and tables stay in chunks a client command never opens (startup is measured:
// npm run bench). tsc's dist/ stays for the scripts and benches that import modules by path.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
// `import http from 'node:http'` in an ES module makes Node build a facade of every export,
// running lazy getters: on Node 22 that loads Node's internal undici (~18 ms) for node:http
// alone. process.getBuiltinModule (Node >= 20.16) hands the module over as CommonJS does.
// Every builtin gets a one-line CommonJS shim file, written before the build (esbuild reads
// files on other threads while plugins run), and a static import of it resolves to its shim.
const shimDir = join(root, 'dist', 'builtin-shims');
rmSync(shimDir, { recursive: true, force: true });
mkdirSync(shimDir, { recursive: true });
const shimOf = (name) => join(shimDir, `${name.replace(/\//g, '-')}.cjs`);
for (const name of builtinModules) {
  writeFileSync(shimOf(name), `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${name}`)});\n`);
}
const builtinsAsCommonJs = {
  name: 'builtins-as-commonjs',
  setup(b) {
    const names = builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|');
    // Static imports only: a dynamic import() keeps Node's own (named exports and all).
    b.onResolve({ filter: new RegExp(`^(node:)?(${names})$`) }, (args) =>
      args.kind === 'import-statement' ? { path: shimOf(args.path.replace(/^node:/, '')) } : { path: args.path, external: true });
  },
};

await build({
  entryPoints: { main: join(root, 'src', 'cli', 'main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Packages that find files beside their own code at run time (a native addon, jq's wasm,
  // open's xdg-open script) load from node_modules.
  external: ['better-sqlite3', 'better-sqlite3-v12', 'jq-web', 'open'],
  // Bundled CommonJS (commander, yaml …) calls require() for node builtins.
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  plugins: [builtinsAsCommonJs],
  legalComments: 'none',
  logLevel: 'warning',
});

// The simple commands (src/cli/fast.ts) as one CommonJS file, apart from the split bundle:
// bin/pctl.js requires it before anything else, so `pctl version` or `pctl --help` loads
// neither the ES module loader nor commander and the command tree. The root help it prints
// is commander's own, rendered here from the same declarations (at 80 columns, as on a pipe).
const { main } = await import(join(outdir, 'main.js'));
let rootHelp = '';
const captured = { write: (s) => ((rootHelp += s), true) };
const helpIo = { stdout: captured, stderr: captured, stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 80 };
if ((await main(['--help'], { io: helpIo, env: {} })) !== 0) throw new Error(`pctl --help failed while bundling:\n${rootHelp}`);
// fast.cjs holds what fast.ts imports statically, nothing more: what a fast command imports on
// use (a table on a terminal: cli-table3; the context's client and conf, never called) loads
// as it is, a package from node_modules, a module of ours as tsc compiled it (dist/, built first).
const onUseAsBuilt = {
  name: 'on-use-as-built',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      if (!args.path.startsWith('.')) return { path: args.path, external: true };
      const compiled = join(root, 'dist', relative(join(root, 'src'), join(args.resolveDir, args.path)));
      return { path: relative(outdir, compiled).replace(/^(?!\.)/, './'), external: true };
    });
  },
};
await build({
  entryPoints: [join(root, 'src', 'cli', 'fast.ts')],
  outfile: join(outdir, 'fast.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'better-sqlite3-v12', 'jq-web', 'open'],
  define: { PCTL_ROOT_HELP: JSON.stringify(rootHelp) },
  plugins: [onUseAsBuilt],
  legalComments: 'none',
  logLevel: 'warning',
});
