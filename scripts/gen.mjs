#!/usr/bin/env node
// npm run gen: regenerates completions/ and man/pctl.1 from the built command tree (dist/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { generatedFiles } = await import('../dist/cli/gen.js');
for (const [path, text] of Object.entries(generatedFiles())) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
