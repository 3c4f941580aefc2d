// Test helper: Python modules generated from the vendor's published .proto files with Debian's
// python3-grpc-tools (grpc_tools.protoc for /usr/bin/python3), at test time, into a temp dir.
// Debian's grpc_tools carries protoc 3.5, which cannot parse the vendor's files (proto3
// `optional`, the `debug_redact` option): buf (the repository's compiler) compiles the staged
// proto/ into a FileDescriptorSet, and grpc_tools generates from that set (--descriptor_set_in),
// the messages (`_pb2`) and the gRPC stubs (`_pb2_grpc`) of every file it is given.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stageProto } from '../../scripts/buf.mjs';
import { tempDir } from './temp.js';

const root = join(import.meta.dirname, '../..');
const PYTHON = '/usr/bin/python3';

/** What is missing (Debian packages of .ci/run), empty when all is there. `-I`: none of a pyenv's settings. */
export function pythonStubsMissing(): string[] {
  const has = (module: string) => spawnSync(PYTHON, ['-I', '-c', `import ${module}`]).status === 0;
  return [...(has('grpc') ? [] : ['python3-grpcio']), ...(has('grpc_tools.protoc') ? [] : ['python3-grpc-tools'])];
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? protoFiles(path) : name.endsWith('.proto') ? [path] : [];
  });
}

/**
 * Generates the Python of the published files under `dirs` of proto/ (`chainguard/platform/iam/v2`)
 * and of google/api, google/rpc, the annotations and the shared UIDP filter they import; the
 * directory to put on sys.path.
 */
export function generatePythonStubs(dirs: readonly string[]): string {
  const work = tempDir('pctl-pystubs-');
  stageProto(work, root);
  const staged = join(work, 'proto');
  const set = join(work, 'published.binpb');
  execFileSync(join(root, 'node_modules/.bin/buf'), ['build', staged, '--as-file-descriptor-set', '-o', set], { cwd: work, stdio: 'pipe', timeout: 120_000 });
  const out = join(work, 'python');
  const files = [...dirs, 'google/api', 'google/rpc', 'annotations', 'capabilities', 'platform/common/v1']
    .flatMap((d) => protoFiles(join(staged, d))).map((f) => relative(staged, f));
  mkdirSync(out);
  // grpc_tools' own entry point adds -I for its bundled files, which protoc refuses beside a descriptor set.
  execFileSync(PYTHON, ['-I', '-c', 'import sys\nfrom grpc_tools import protoc\nsys.exit(protoc.main(["protoc"] + sys.argv[1:]))',
    `--descriptor_set_in=${set}`, `--python_out=${out}`, `--grpc_python_out=${out}`, ...files], { cwd: work, stdio: 'pipe', timeout: 120_000 });
  return out;
}
