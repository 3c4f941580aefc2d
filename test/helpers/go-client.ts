// Test helper: the vendor-client, a Go program (test/go/vendorclient/) built from the vendor's
// published .proto files with Debian's Go toolchain, offline, in GOPATH mode: buf (the
// repository's compiler; Debian's protoc 3.21 predates the `debug_redact` option the vendor's
// files use) runs Debian's protoc-gen-go and protoc-gen-go-grpc to make the vendor's Go packages (chainguard.dev/sdk/…,
// as its go_package options name them) under a GOPATH of its own; Debian's packages
// (/usr/share/gocode: grpc, protobuf, genproto for google/*) are the rest. Built once per
// content of its inputs (the Go sources, the .proto files, the toolchain's versions) into a
// temp dir that later runs reuse. Scenarios are Go functions registered by name (main.go);
// each run prints one JSON line per step, which runGoScenario parses.
import test from 'ava';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join, relative } from 'node:path';
import { stageProto } from '../../scripts/buf.mjs';
import { startTestServer, type TestServer } from './serve.js';

const root = join(import.meta.dirname, '../..');
const SOURCES = join(root, 'test/go/vendorclient');
const GOCODE = '/usr/share/gocode';
const BUF = join(root, 'node_modules/.bin/buf');
const execFileAsync = promisify(execFile);

/**
 * The files the Go packages are made of, with everything they import: the GA v2 and v2beta1
 * packages of serve's resources, and the v1 ones its clients call (IAM, registry, events,
 * sign-in). google/* comes from Debian's genproto where it has the package.
 */
const ROOT_DIRS = [
  ...['iam', 'registry', 'vulnerabilities', 'advisory', 'libraries', 'events', 'ping'].flatMap((d) => [`chainguard/platform/${d}/v2`, `chainguard/platform/${d}/v2beta1`]),
  ...['iam', 'registry', 'tenant', 'vulnerabilities', 'events', 'oidc', 'auth', 'ping'].map((d) => `platform/${d}/v1`),
];

/** The Debian packages the build uses: their versions are part of the build's key. */
const DEBIAN_PACKAGES = ['golang-go', 'golang-google-grpc-dev', 'golang-google-protobuf-dev', 'golang-github-golang-protobuf-1-5-dev', 'golang-google-genproto-dev', 'protoc-gen-go', 'protoc-gen-go-grpc'];

/** What is missing to build it: the Debian packages of .ci/run; empty when all are there. */
function goToolchainMissing(): string[] {
  const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  return [
    ...(has('go') ? [] : ['golang-go']),
    ...(has('protoc-gen-go') ? [] : ['protoc-gen-go']),
    ...(has('protoc-gen-go-grpc') ? [] : ['protoc-gen-go-grpc']),
    ...(existsSync(join(GOCODE, 'src/google.golang.org/grpc')) ? [] : ['golang-google-grpc-dev']),
    ...(existsSync(join(GOCODE, 'src/google.golang.org/protobuf')) ? [] : ['golang-google-protobuf-dev']),
    // grpc's codec goes through github.com/golang/protobuf: 1.3 cannot encode today's generated messages, 1.5 wraps them.
    ...(existsSync(join(GOCODE, 'src/github.com/golang/protobuf/proto/registry.go')) ? [] : ['golang-github-golang-protobuf-1-5-dev']),
  ];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The .proto files to compile (paths in the staged tree): the roots and what they import, less the google/* files Debian's genproto has. */
function protoClosure(staged: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(join(staged, file), 'utf8').matchAll(/^import "([^"]+)";/gm)) {
      if (!m[1]!.startsWith('google/protobuf/')) visit(m[1]!);
    }
  };
  for (const dir of ROOT_DIRS) for (const f of filesUnder(join(staged, dir))) if (f.endsWith('.proto')) visit(relative(staged, f));
  return [...seen].filter((f) => !f.startsWith('google/') || !existsSync(join(GOCODE, 'src', goPackageOf(join(staged, f))))).sort();
}

function goPackageOf(file: string): string {
  return /^option go_package = "([^";]+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
}

/** Runs a build step, bounded; rejects with its output when it fails. */
async function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    return (await execFileAsync(cmd, args, { ...opts, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 << 20 })).stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string; stdout?: string };
    throw new Error(`${cmd} ${args[0]} failed: ${e.message.split('\n')[0]}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
}

/** A cold build compiles Debian's gRPC and protobuf too: minutes on a loaded 2-core machine. */
const BUILD_TIMEOUT_MS = 600_000;

let built: Promise<string> | undefined;

/**
 * The vendor-client binary, built if no earlier run left one for the same inputs. Throws with
 * protoc's or go's output when the build fails.
 */
function vendorClient(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  const staging = mkdtempSync(join(tmpdir(), 'pctl-go-stage-'));
  try {
    stageProto(staging, root);
    const staged = join(staging, 'proto');
    const protos = protoClosure(staged);
    const hash = createHash('sha256');
    for (const f of protos) hash.update(`${f}\0`).update(readFileSync(join(staged, f))).update('\0');
    for (const f of filesUnder(SOURCES).sort()) hash.update(`${relative(SOURCES, f)}\0`).update(readFileSync(f)).update('\0');
    hash.update(await run('go', ['version'], {}));
    hash.update(await run('sh', ['-c', `dpkg-query -W ${DEBIAN_PACKAGES.join(' ')} 2>/dev/null || true`], {}));
    hash.update(await run(BUF, ['--version'], {}));
    const dir = join(tmpdir(), `pctl-go-vendorclient-${hash.digest('hex').slice(0, 16)}`);
    const binary = join(dir, 'vendorclient');
    if (existsSync(binary)) return binary;

    // Built in a dir of its own, renamed into place whole: a test file running at the same time reuses it or builds its own.
    const work = mkdtempSync(join(tmpdir(), 'pctl-go-build-'));
    try {
      const gopath = join(work, 'gopath');
      mkdirSync(join(gopath, 'src'), { recursive: true });
      const template = { version: 'v2', plugins: [{ local: 'protoc-gen-go', out: join(gopath, 'src') }, { local: 'protoc-gen-go-grpc', out: join(gopath, 'src') }] };
      await run(BUF, ['generate', staged, '--template', JSON.stringify(template), ...protos.flatMap((f) => ['--path', join(staged, f)])], { cwd: staging });
      const env = {
        ...process.env, GO111MODULE: 'off', GOPATH: `${gopath}:${GOCODE}`, GOFLAGS: '', GOPROXY: 'off',
        GOCACHE: join(tmpdir(), 'pctl-go-cache'), CGO_ENABLED: '0',
      };
      mkdirSync(join(work, 'out'));
      await run('go', ['build', '-o', join(work, 'out', 'vendorclient'), '.'], { cwd: SOURCES, env });
      try {
        renameSync(join(work, 'out'), dir);
      } catch (err) {
        if (!existsSync(binary)) throw err; // another build won the rename: use its binary
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return binary;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** One line of a scenario's output: an RPC made (`call`) or a check of what came back (`check`). */
interface GoStep {
  step: string;
  /** A call's gRPC status code name (`OK`, `NotFound` …). */
  code?: string;
  message?: string;
  /** A call's response, as protojson (proto3 JSON names). */
  response?: Record<string, unknown>;
  /** A check's outcome, and what it saw when it failed. */
  ok?: boolean;
  detail?: string;
}

export interface GoRun {
  steps: GoStep[];
  /** The checks that failed. */
  failed: GoStep[];
  /** The steps by name (the last of a name). */
  byStep: Map<string, GoStep>;
  exitCode: number | null;
  stderr: string;
}

/**
 * Runs one scenario against `address` (host:port, plaintext h2c with prior knowledge) with a
 * bearer token; `params` reach the scenario as its JSON parameters. Bounded: the program has
 * a deadline of its own, and is killed after `timeoutMs`.
 */
export function runGoScenario(binary: string, opts: { address: string; token: string; scenario: string; params?: Record<string, unknown>; timeoutMs?: number }): Promise<GoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-addr', opts.address, '-scenario', opts.scenario, '-params', JSON.stringify(opts.params ?? {})], {
      // The token by environment, not argv: argv is visible to every process on the machine.
      env: { PATH: process.env.PATH ?? '', PCTL_VENDOR_TOKEN: opts.token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s; });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const steps = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as GoStep);
      resolve({ steps, failed: steps.filter((s) => s.ok === false), byStep: new Map(steps.map((s) => [s.step, s])), exitCode, stderr: err });
    });
  });
}

/** One test file's Go-client setup: its serve and the built client (set before its tests run), and its tests' registrar. */
export interface GoSuite {
  /** test.serial, or test.skip without the toolchain (a failure under PCTL_REQUIRE_SHELLS: the file does not load). */
  goTest: typeof test.serial | typeof test.skip;
  srv: TestServer;
  binary: string;
  /** Runs a scenario against the file's serve, as its owner unless `token` says otherwise. */
  scenario: (name: string, params?: Record<string, unknown>, token?: string) => Promise<GoRun>;
}

/**
 * Registers a Go-client test file's hooks: without the toolchain its tests are skipped (and
 * the file fails under PCTL_REQUIRE_SHELLS, as in CI); else one serve (`options`) and the
 * client, built or taken from the cache, before its tests, `setup` run on that serve, and the
 * serve disposed after them.
 */
export function goSuite(options: Parameters<typeof startTestServer>[0] = {}, setup?: (srv: TestServer) => Promise<void>): GoSuite {
  const missing = goToolchainMissing();
  if (missing.length && process.env.PCTL_REQUIRE_SHELLS) throw new Error(`the Go toolchain is missing: apt-get install ${missing.join(' ')}`);
  const suite: GoSuite = {
    goTest: missing.length ? test.skip : test.serial,
    srv: undefined as unknown as TestServer,
    binary: '',
    scenario: (name, params = {}, token = suite.srv.ownerToken) => runGoScenario(suite.binary, { address: new URL(suite.srv.url).host, token, scenario: name, params }),
  };
  test.before(async (t) => {
    if (missing.length) return;
    t.timeout(BUILD_TIMEOUT_MS + 60_000, 'building the Go client (cached after the first run)');
    suite.srv = await startTestServer(options);
    suite.binary = await vendorClient();
    await setup?.(suite.srv);
  });
  test.after.always(async () => {
    await (suite.srv as TestServer | undefined)?.dispose();
  });
  return suite;
}
