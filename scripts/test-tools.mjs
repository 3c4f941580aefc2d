#!/usr/bin/env node
// Installs test/tools (clients the tests drive whose engines are narrower than pctl's) from
// its own lock, once per lock: `npm ci` there when node_modules is missing or older than the
// lock. npm test runs it first (pretest); the test helpers run it too, so a single test file
// works on a fresh clone. A directory lock keeps two ava workers from installing at once.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const tools = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'tools');
const stamp = join(tools, 'node_modules', '.pctl-lock-sha256');
const lockHash = createHash('sha256').update(readFileSync(join(tools, 'package-lock.json'))).digest('hex');
const installed = () => {
  try {
    return readFileSync(stamp, 'utf8') === lockHash;
  } catch {
    return false;
  }
};

const lock = join(tools, '.installing');
for (;;) {
  if (installed()) process.exit(0);
  try {
    mkdirSync(lock);
    break;
  } catch {
    // Another process installs: wait for it (Atomics.wait is a sleep that holds no CPU); a
    // lock left by an install that was killed is taken over after 10 minutes.
    if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 600_000) rmdirSync(lock);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}
try {
  if (!installed()) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tools, stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(stamp, lockHash);
  }
} finally {
  rmdirSync(lock);
}
