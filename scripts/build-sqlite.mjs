#!/usr/bin/env node
// npm install / npm ci, the root package's install step: builds the one SQLite binding this
// Node loads, and only that one. Two are installed (src/server/store/sqlite.ts says why):
// better-sqlite3 13 for Node >= 22, an optional dependency (npm skips it on Node 20 for its
// engines) whose package carries prebuilt N-API addons (nothing to build), and better-sqlite3
// 12 as `better-sqlite3-v12` for Node 20, whose install script (`prebuild-install || node-gyp
// rebuild --release`) downloads a prebuilt for that Node or compiles one. package.json's
// allowScripts denies that script, so npm never builds 12 for a Node that will not load it;
// this runs it when the running Node loads 12 and it does not open a database yet.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

if (loads()) {
  console.log(`${binding}: already built for Node ${process.version}`);
} else {
  const install = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts?.install;
  if (!install) throw new Error(`${binding} does not load on Node ${process.version} and has no install script to build it`);
  console.log(`${binding}: ${install}`);
  execSync(install, { cwd: dir, stdio: 'inherit' });
  if (!loads()) throw new Error(`${binding} was built but does not load on Node ${process.version}`);
}
