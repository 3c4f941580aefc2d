// The generated files: completion scripts, the man page and docs/commands.md, from the command
// tree; the manifest's JSON Schema, from its zod schema. `npm run gen` writes them;
// test/cli-completion.test.ts, test/man.test.ts and test/docs.test.ts (among others) fail when
// the checked-in copies differ from what this produces.
import { readFileSync } from 'node:fs';
import { createContext } from './context.js';
import { buildProgram } from './main.js';
import { completionScript } from './completion/scripts.js';
import { commandSpec } from './completion/spec.js';
import { manPage } from './man.js';
import { commandReference } from './reference.js';
import { seedJsonSchema } from '../api/seed.js';

export function generatedFiles(): Record<string, string> {
  const ctx = createContext({
    io: { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, columns: 80 },
    env: {},
  });
  const root = commandSpec(buildProgram(ctx, () => {}));
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return {
    'completions/pctl.bash': completionScript('bash', root),
    'completions/_pctl': completionScript('zsh', root),
    'completions/pctl.fish': completionScript('fish', root),
    'man/pctl.1': manPage(root, version),
    'docs/commands.md': commandReference(root),
    'docs/manifest.schema.json': seedJsonSchema(),
  };
}
