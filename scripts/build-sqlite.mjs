#!/usr/bin/env node
// npm install / npm ci, the root package's install step: builds the one SQLite binding this
// Node loads, and only that one. Two are installed (src/server/store/sqlite.ts says why):
// better-sqlite3 13 for Node >= 22, an optional dependency (npm skips it on Node 20 for its
// engines) whose package carries prebuilt N-API addons (nothing to build), and better-sqlite3
// 12 as `better-sqlite3-v12` for Node 20, whose own install script (`prebuild-install ||
// node-gyp rebuild --release`) downloads a prebuilt from GitHub or, failing that, compiles
// against headers node-gyp downloads from nodejs.org. package.json's allowScripts denies that
// script; this builds 12 instead, offline when it can: with the running Node's own headers
// (<prefix>/include/node, as Debian's nodejs-dev or Node's tarball puts them) node-gyp
// compiles with nothing downloaded; without them it tries a prebuilt, and when neither exists
// it says so in one line.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The same rule as src/server/store/sqlite.ts (a wrong pick fails every serve test).
const binding = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-v12';
const dir = join(root, 'node_modules', binding);

/** Whether the binding opens a database here (its native addon is loaded on the first open). */
function loads() {
  try {
    const Database = createRequire(join(root, 'package.json'))(binding);
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/** Ends the install with one line on stderr (no stack trace: the line is the whole story). */
function fail(message) {
  console.error(`pctl install: ${message}`);
  process.exit(1);
}

/**
 * The directory holding this Node's headers (include/node/node.h), or undefined: the one an
 * npm config names (npm_config_nodedir), else the prefix of the running node binary
 * (/usr for /usr/bin/node, the unpacked tarball for <dir>/bin/node).
 */
function nodeHeaders() {
  const candidates = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))].filter(Boolean);
  return candidates.find((candidate) => existsSync(join(candidate, 'include', 'node', 'node.h')));
}

/** The node-gyp npm runs install scripts with (npm ships one), else the one on PATH. */
function nodeGyp() {
  const npmGyp = process.env.npm_config_node_gyp
    ?? (process.env.npm_execpath && join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return npmGyp && existsSync(npmGyp) ? [process.execPath, npmGyp] : ['node-gyp'];
}

/** Runs a command in the binding's directory; whether it exited 0. */
function run(command, stdio) {
  try {
    const [file, ...args] = command();
    execFileSync(file, args, { cwd: dir, stdio });
    return true;
  } catch {
    return false;
  }
}

if (loads()) {
  console.log(`${binding}: already built for Node ${process.version}`);
} else if (!existsSync(join(dir, 'binding.gyp'))) {
  fail(`${binding} does not load on Node ${process.version} and has no source to build it from; run npm ci again`);
} else {
  const nodedir = nodeHeaders();
  if (nodedir) {
    console.log(`${binding}: node-gyp rebuild --release --nodedir=${nodedir} (Node ${process.version}'s own headers)`);
    if (!run(() => [...nodeGyp(), 'rebuild', '--release', `--nodedir=${nodedir}`], 'inherit')) {
      fail(`compiling ${binding} for Node ${process.version} failed (output above); it needs python3, make and a C++ compiler (Debian: build-essential)`);
    }
  } else {
    console.log(`${binding}: no headers for Node ${process.version} here; trying a prebuilt (prebuild-install)`);
    if (!run(() => [process.execPath, createRequire(join(dir, 'package.json')).resolve('prebuild-install/bin.js')], 'ignore')) {
      fail(`SQLite for Node ${process.version} needs Node's headers (none in ${join(dirname(dirname(process.execPath)), 'include', 'node')}; set npm_config_nodedir to a directory with include/node/node.h) or a prebuilt from GitHub, and neither is here; or use Node 22 or later`);
    }
  }
  if (!loads()) fail(`${binding} was built but does not load on Node ${process.version}`);
}
