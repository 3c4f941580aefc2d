// The docs keep themselves honest: every fenced block tagged `sh runnable` in README.md and
// docs/*.md runs, twice (a runnable block removes what it makes), in bash with `pctl` on PATH
// (a link to bin/pctl.js, as the README suggests) against a scratch `pctl serve --demo` saved
// as the profile `local` in a fresh config dir, as `npm start` does for a newcomer. Also: the
// command reference is what the command tree says, the README stays short, and every link
// between the docs leads to a file of this repository.
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from '../src/cli/gen.js';
import { tempDir } from './helpers/temp.js';
import { testNeeding } from './helpers/tools.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Block {
  page: string;
  line: number;
  script: string;
}

/** The fenced blocks whose info string is `sh runnable`. */
function runnableBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  let open: Block | undefined;
  readFileSync(join(root, page), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (open) {
        if (text.startsWith('```')) {
          blocks.push(open);
          open = undefined;
        } else open.script += `${text}\n`;
      } else if (/^```sh runnable\s*$/.test(text)) open = { page, line: i + 1, script: '' };
    });
  return blocks;
}

const blocks = pages.flatMap(runnableBlocks);

test('the README has a runnable tour, and is at most 250 lines', (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  t.true(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  t.true(blocks.some((b) => b.page === 'README.md' && b.script.split('\n').length >= 15), 'no runnable tour of ~15 commands');
});

test('docs/commands.md is what `npm run gen` produces from the command tree', (t) => {
  const page = readFileSync(join(root, 'docs/commands.md'), 'utf8');
  t.true(page === generatedFiles()['docs/commands.md'], 'docs/commands.md is stale: run `npm run gen` and commit the result');
});

test('every relative link in the README and docs/ leads to a file of the repository', (t) => {
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const path = resolve(dirname(join(root, page)), target!);
      t.true(path.startsWith(`${root}/`) && existsSync(path), `${page}: ${target} does not exist in the repository`);
    }
  }
});

test('every file of the repository a page names by its path (src/…, test/…, docs/…, a NAME.md) is there', (t) => {
  const dirs = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist').map((e) => e.name);
  const pathRe = new RegExp(`(?<![\\w./:-])((?:${dirs.map((d) => d.replace('.', '\\.')).join('|')})/[\\w./-]*\\w|[A-Z][A-Z0-9_-]*\\.md)(?![\\w/-])`, 'g');
  const missing: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const [, path] of text.matchAll(pathRe)) {
      // A bare NAME.md is a page of the repository's root or of docs/.
      const found = path!.includes('/') ? existsSync(join(root, path!)) : existsSync(join(root, path!)) || existsSync(join(root, 'docs', path!));
      if (!found && !path!.includes('*')) missing.push(`${page}: ${path}`);
    }
  }
  t.deepEqual(missing, [], 'named files that are not in the repository');
});

test("docs/mcp.md's inspector commands name the version test/mcp-inspector.test.ts runs on every Node", (t) => {
  const tested = (JSON.parse(readFileSync(join(root, 'test/tools/package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@modelcontextprotocol/inspector'];
  const uses = [...readFileSync(join(root, 'docs/mcp.md'), 'utf8').matchAll(/npx (?:-y )?@modelcontextprotocol\/inspector(@\S+)?/g)].map((m) => m[1] ?? '(no version)');
  t.true(uses.length >= 3, 'the inspector examples are there');
  t.deepEqual([...new Set(uses)], [`@${tested}`], 'a bare npx picks an old inspector on Node 20');
});

/** A running `pctl serve --demo`, its config dir (profile `local`) and a PATH with `pctl` on it. */
interface Scratch {
  env: NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

async function scratchServe(): Promise<Scratch> {
  const dir = tempDir('pctl-docs-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(join(root, 'bin/pctl.js'), join(bin, 'pctl'));
  const base: NodeJS.ProcessEnv = { ...process.env, HOME: dir, PCTL_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
  // BASH_ENV/ENV would have bash source a startup file (under -u, a system bashrc fails on PS1).
  for (const name of ['PCTL_API_URL', 'PCTL_TOKEN', 'PCTL_PROFILE', 'PCTL_DATA_DIR', 'PCTL_DEBUG', 'BASH_ENV', 'ENV']) delete base[name];
  const serve = spawn(process.execPath, [join(root, 'bin/pctl.js'), 'serve', '--demo', '--port', '0', '--data', join(dir, 'data'), '--profile', 'local'], { env: base });
  const exited = new Promise<void>((done) => serve.on('close', () => done()));
  let out = '';
  await new Promise<void>((ready, failed) => {
    serve.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (/listening on http/.test(out)) ready();
    });
    serve.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
    void exited.then(() => failed(new Error(`pctl serve exited before listening: ${out}`)));
  });
  return {
    env: { ...base, PATH: `${bin}:${process.env.PATH ?? ''}` },
    stop: async () => {
      serve.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let scratch: Promise<Scratch> | undefined;
test.after.always(async () => {
  if (scratch) await (await scratch).stop();
});

for (const block of blocks) {
  testNeeding(['bash'], `${block.page}:${block.line} runs as written, twice`, async (t) => {
    if (!existsSync(join(root, 'dist/bundle/main.js'))) return t.fail('dist/ is not built (npm ci builds it; or run npm run build)');
    scratch ??= scratchServe();
    const { env } = await scratch;
    for (const run of ['first', 'second']) {
      const r = spawnSync('bash', ['--noprofile', '--norc', '-euo', 'pipefail', '-c', block.script], { env, encoding: 'utf8', cwd: root });
      t.is(r.status, 0, `${run} run: exit ${r.status}\n${r.stderr}`);
      t.is(r.stderr, '', `${run} run printed on stderr`);
    }
  }, { serial: true });
}
