#!/usr/bin/env node
// `node scripts/buf.mjs <buf command> [args]`: buf (generate, lint, build) on proto/ as the
// vendor compiles it. The vendor's v1 files import their neighbours by bare name
// (`import "group.platform.proto"`, and registry's `sbom.platform.proto` from tenant/v1): its
// build gives protoc each directory as an include path, which buf cannot. proto/ keeps the
// files unchanged; this stages a copy in a temp dir with each bare import spelled from the
// root (`platform/iam/v1/group.platform.proto`), so every file has one name, and runs buf on
// the copy with the repository's buf.yaml and buf.gen.yaml.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function protoFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? protoFiles(path) : name.endsWith('.proto') ? [path] : [];
  });
}

/**
 * Copies proto/ into `out`/proto with bare imports resolved: the importer's own directory
 * first, then the one file of that name elsewhere. `from` is the repository (a bundled test
 * names it: this file's own location is then the bundle's).
 */
export function stageProto(out, from = root) {
  const src = join(from, 'proto');
  const files = protoFiles(src).map((f) => relative(src, f));
  const byBase = new Map();
  for (const f of files) byBase.set(f.split('/').pop(), [...(byBase.get(f.split('/').pop()) ?? []), f]);
  cpSync(join(from, 'buf.yaml'), join(out, 'buf.yaml'));
  for (const f of files) {
    const text = readFileSync(join(src, f), 'utf8');
    const staged = text.replace(/^import "([^"/]+\.proto)";/gm, (line, name) => {
      const own = join(dirname(f), name);
      if (files.includes(own)) return `import "${own}";`;
      const found = byBase.get(name) ?? [];
      if (found.length !== 1) throw new Error(`${f}: import "${name}" names ${found.length} files of proto/`);
      return `import "${found[0]}";`;
    });
    cpSync(join(src, f), join(out, 'proto', f));
    if (staged !== text) writeFileSync(join(out, 'proto', f), staged);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  const out = mkdtempSync(join(tmpdir(), 'pctl-proto-'));
  try {
    stageProto(out);
    const bin = join(root, 'node_modules/.bin');
    // generate: buf.gen.yaml's input (and its paths) read from the staged copy.
    let input = [join(out, 'proto')];
    if (command === 'generate') {
      const template = readFileSync(join(root, 'buf.gen.yaml'), 'utf8').replace(/^(\s*- directory: )proto$/m, `$1${join(out, 'proto')}`).replace(/^(\s*- )proto\//gm, `$1${join(out, 'proto')}/`);
      writeFileSync(join(out, 'buf.gen.yaml'), template);
      input = ['--template', join(out, 'buf.gen.yaml'), ...(args.includes('--output') ? [] : ['--output', root])];
    }
    execFileSync(join(bin, 'buf'), [command, ...input, ...args], {
      cwd: root, stdio: 'inherit', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
  } catch (err) {
    process.exitCode = err.status ?? 1;
    if (err.status === undefined) console.error(err.message);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
