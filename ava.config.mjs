// ava's configuration for `npm test`'s SQLite leg (test/stress has its own). Before the run, the
// TypeScript of src/ and test/ is compiled once with esbuild into build/ (~1 CPU-s), and
// @ava/typescript runs test/X.test.ts as build/test/X.test.js, so each worker loads plain
// JavaScript. A loader in every worker (tsx's module hooks) cost ~0.9 CPU-s a test file on
// Node 20, a third of the suite. `npx ava test/X.test.ts` works as before and runs what is on disk.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'build';

/**
 * import.meta.url, .dirname and .filename keep naming the source file: what a module finds
 * beside itself (the package root, the sign-in templates, a test's fixtures) is where it is
 * under tsx or in dist/. Relative imports still resolve among the compiled files.
 */
const sourceLocation = {
  name: 'source-location',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const { href } = pathToFileURL(args.path);
      const names = { url: href, dirname: dirname(args.path), filename: args.path };
      const contents = readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, key) => JSON.stringify(names[key]));
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * The TypeScript of src/ and test/ as build/'s JavaScript. Only files whose output changed are
 * written, each whole (a temp file renamed over it): another run of ava in the same checkout,
 * loading build/ at that moment, never reads half a file.
 */
async function compile(projectDir) {
  const sources = ['src', 'test'].flatMap((dir) =>
    readdirSync(join(projectDir, dir), { recursive: true })
      // test/tools/node_modules holds the test clients' packages (scripts/test-tools.mjs).
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.split('/').includes('node_modules'))
      .map((f) => join(projectDir, dir, f)));
  const { outputFiles } = await build({
    entryPoints: sources, outdir: join(projectDir, OUT), outbase: projectDir, write: false,
    format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning', plugins: [sourceLocation],
  });
  for (const { path, text } of outputFiles) {
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, path);
  }
  // Tests import scripts/pg-cluster.mjs by a relative path: build/scripts is the real one.
  try {
    symlinkSync('../scripts', join(projectDir, OUT, 'scripts'));
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
}

// ava calls this with its project dir before a run; tools that only read the configuration
// (knip) call it bare, and nothing is compiled for them.
export default async ({ projectDir } = {}) => {
  if (projectDir) await compile(projectDir);
  return {
    typescript: { rewritePaths: { 'test/': `${OUT}/test/` }, compile: false },
    // test/postgres needs PostgreSQL: selected for the postgres leg (scripts/test-postgres.mjs sets
    // PCTL_TEST_DATABASE), which names it; @ava/typescript runs only files selected here.
    files: ['test/**/*.test.ts', '!test/stress/**', ...(process.env.PCTL_TEST_DATABASE ? [] : ['!test/postgres/**'])],
    timeout: '60s',
    // Four files at a time on two cores (ava's default is one per core): the tests wait on
    // fsync, child processes and sockets, and with two a core stood idle ~15% of the run.
    concurrency: 4,
    workerThreads: false,
  };
};
