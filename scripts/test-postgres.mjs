#!/usr/bin/env node
// The postgres leg of `npm test`: the server tests again, each test server on a schema of its
// own in a throwaway PostgreSQL cluster (PCTL_TEST_DATABASE; see test/helpers/serve.ts).
// Exits with ava's code. Without PostgreSQL it prints `postgres leg SKIPPED: <reason>` and
// exits 0, or 1 when PCTL_REQUIRE_POSTGRES=1 (CI).
//   node scripts/test-postgres.mjs [ava arguments, e.g. a file or --match]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgresCluster } from './pg-cluster.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The test files that reach the store only through a test server and its API (HTTP, gRPC, the
 * CLI): they mean the same on either store. All server-*.test.ts but three that are about
 * SQLite as a whole: server-lock (the data dir's OS lock, with serve processes of its own),
 * server-storage (a full disk made with PRAGMA max_page_count) and server-list-subtree (the
 * list engine over a bare SQLite store, no server). Left out as well: seed (its export and
 * offline reset read the SQLite file; the demo seed itself loads on PostgreSQL), the snapshot
 * and --deterministic tests (SQLite snapshots, live reset), serve-process (serve as a process
 * over a data dir), store-group-commit (the SQLite store itself), cli-errors (it mints a token
 * with the offline `serve token`) and console (the UI in Chromium; its server side is covered
 * here already). Tests about SQLite itself register only when the store under test is SQLite.
 */
const SQLITE_ONLY_SERVER_FILES = new Set(['server-lock.test.ts', 'server-storage.test.ts', 'server-list-subtree.test.ts']);
const API_FILES = [
  'grpc.test.ts', 'serve-faults.test.ts', 'proto-contract.test.ts', 'auth-login.test.ts', 'auth-device.test.ts',
  'cli-groups.test.ts', 'cli-api.test.ts', 'cli-auth.test.ts', 'cli-progress.test.ts', 'cli-ratelimit.test.ts',
  'cli-references.test.ts', 'cli-registry.test.ts', 'cli-tables.test.ts',
  'seed-nested-resources.test.ts', 'cli-identities.test.ts', 'cli-roles.test.ts', 'cli-json-fields.test.ts', 'cli-jq.test.ts',
  'cli-faults.test.ts', 'cli-serve-faults.test.ts', 'cli-input-rules.test.ts', 'cli-debug.test.ts',
  'client-paginator.test.ts', 'client-retry.test.ts', 'client-http.test.ts', 'mcp-http.test.ts',
];

function testFiles() {
  const server = readdirSync(join(root, 'test')).filter((f) => /^server-.*\.test\.ts$/.test(f) && !SQLITE_ONLY_SERVER_FILES.has(f)).sort();
  // test/postgres: what needs PostgreSQL itself (replicas); the SQLite leg leaves it out.
  const postgresOnly = readdirSync(join(root, 'test', 'postgres')).filter((f) => f.endsWith('.test.ts')).sort().map((f) => `postgres/${f}`);
  return [...server, ...API_FILES, ...postgresOnly].map((f) => `test/${f}`);
}

const required = process.env.PCTL_REQUIRE_POSTGRES === '1';
const cluster = await startPostgresCluster({ log: (line) => console.log(`postgres leg: ${line}`) });
if (!cluster.available) {
  console.log(`postgres leg SKIPPED: ${cluster.reason}`);
  if (required) console.error('PCTL_REQUIRE_POSTGRES=1: the postgres leg must run (install the postgresql package)');
  process.exit(required ? 1 : 0);
}

const args = process.argv.slice(2);
const files = args.length ? args : testFiles();
console.log(`postgres leg: ava on ${args.length ? args.join(' ') : `${files.length} files`} with PCTL_TEST_DATABASE=${cluster.url}`);
const ava = spawn(process.execPath, [join(root, 'node_modules/ava/entrypoints/cli.mjs'), ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PCTL_TEST_DATABASE: cluster.url },
});
// Ctrl-C reaches ava too (same process group); pg-cluster's own handler stops the cluster.
const code = await new Promise((resolve) => ava.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
await cluster.stop();
process.exit(code);
