// Clients the tests drive whose engines are narrower than pctl's live in test/tools, with their
// own lock, installed by scripts/test-tools.mjs (so the project's `npm ci` warns about no engine).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tools = join(root, 'test', 'tools');

/** Installs test/tools if its lock changed since the last install (a no-op after the first call). */
function ensureInstalled(): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'test-tools.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** A CommonJS package of test/tools. */
export function requireTestTool(name: string): unknown {
  ensureInstalled();
  return createRequire(join(tools, 'package.json'))(name);
}

/** The path of a test/tools package's command (node runs it). */
export function testToolBin(name: string): string {
  ensureInstalled();
  return join(tools, 'node_modules', '.bin', name);
}
