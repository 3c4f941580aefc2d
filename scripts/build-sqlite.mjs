#!/usr/bin/env node
// npm install / npm ci, the root package's install step: builds the one SQLite binding this
// Node loads, and only that one. Two are installed (src/server/store/sqlite.ts says why):
// better-sqlite3 13 for Node >= 22 (an optional dependency, which npm skips on Node 20 for
// its engines) and better-sqlite3 12 as `better-sqlite3-v12` for Node 20. package.json's
// allowScripts denies both their own install scripts, so npm builds neither; this runs the
// chosen one's install script (`prebuild-install || node-gyp rebuild --release`: a prebuilt
// where one ships for this Node, else a compile against npm_config_nodedir's headers).
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The same rule as src/server/store/sqlite.ts (a wrong pick fails every serve test).
const binding = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-v12';
const dir = join(root, 'node_modules', binding);

function loads() {
  try {
    createRequire(join(root, 'package.json'))(binding);
    return true;
  } catch {
    return false;
  }
}

if (loads()) {
  console.log(`${binding}: already built for Node ${process.version}`);
} else {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  console.log(`${binding}: ${scripts.install}`);
  execSync(scripts.install, { cwd: dir, stdio: 'inherit' });
  if (!loads()) throw new Error(`${binding} was built but does not load on Node ${process.version}`);
}
