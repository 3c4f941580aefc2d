// ava's configuration for `npm test`'s SQLite leg (test/stress has its own). Before the run, the
// test files are bundled once with esbuild into build/ (~1 s), and @ava/typescript runs
// test/X.test.ts as build/test/X.test.js, so each worker loads a few plain JavaScript files. A
// loader in every worker (tsx's module hooks) cost ~0.9 CPU-s a test file on Node 20, a third of
// the suite. `npx ava test/X.test.ts` works as before and runs what is on disk.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'build';

/**
 * import.meta.url, .dirname and .filename keep naming the source file: what a module finds
 * beside itself (the package root, the sign-in templates, a test's fixtures) is where it is
 * under tsx or in dist/, not beside the bundle's chunk.
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
 * Each test file as one bundle: the test, its helpers, the src/ it reaches and the packages they
 * import, with what files share split into chunks under build/test/chunks. Node 20's ESM loader
 * costs ~1 ms a module (resolve, an async read, compile), and a test that starts a server reached
 * ~600 modules, most of them packages' (zod, yaml, connect, protobuf, ajv, jose). It is how
 * `pctl serve` itself runs: dist/bundle bundles the same packages (scripts/bundle.mjs), with the
 * same `require` for the CommonJS ones. Left out: ava (the worker's own instance registers the
 * tests), native and WebAssembly packages that find files beside themselves (better-sqlite3,
 * jq-web), and clients a test drives as someone else's code (@grpc/*, playwright-core).
 */
async function compile(projectDir) {
  const entryPoints = readdirSync(join(projectDir, 'test'), { recursive: true })
    // test/stress and test/image have their own configurations; test/tools holds the test clients' packages.
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('stress/') && !f.startsWith('image/') && !f.startsWith('tools/'))
    .map((f) => join(projectDir, 'test', f));
  const { outputFiles } = await build({
    entryPoints, outdir: join(projectDir, OUT), outbase: projectDir, write: false, bundle: true, splitting: true,
    chunkNames: 'test/chunks/[name]-[hash]',
    external: ['ava', 'better-sqlite3', 'better-sqlite3-v12', 'jq-web', '@grpc/*', 'playwright-core', 'esbuild'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning', plugins: [sourceLocation],
  });
  writeChanged(outputFiles);
}

/**
 * Only files whose output changed are written, each whole (a temp file renamed over it): another
 * run of ava in the same checkout, loading build/ at that moment, never reads half a file.
 */
function writeChanged(outputFiles) {
  for (const { path, text } of outputFiles) {
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, text);
    renameSync(temp, path);
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
    files: ['test/**/*.test.ts', '!test/stress/**', '!test/image/**', ...(process.env.PCTL_TEST_DATABASE ? [] : ['!test/postgres/**'])],
    // Node 22+ keeps V8's compiled code of each module on disk (Node 20 ignores this): the
    // workers after the first reuse the chunks' code instead of compiling it again.
    environmentVariables: { NODE_COMPILE_CACHE: join(projectDir ?? '.', OUT, 'compile-cache') },
    timeout: '60s',
    // Four files at a time on two cores (ava's default is one per core): the tests wait on
    // fsync, child processes and sockets, and with two a core stood idle ~15% of the run.
    concurrency: 4,
    workerThreads: false,
  };
};
