// Test helpers: a real serve on port 0 over a temp data dir, with calls as its owner.
import { readFileSync, rmSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/index.js';
import { newChildUid, timestamp } from '../../src/server/domain/records.js';
import { systemRandom } from '../../src/server/base/random.js';
import { Store } from '../../src/server/store/store.js';
import { request, type ApiResponse } from './http.js';
import { tempDir } from './temp.js';

// Also here, where most tests import them from; tests that start no server import the light modules.
export { request, type ApiResponse } from './http.js';
export { tempDir } from './temp.js';

/**
 * Which store the server tests run on: 'postgres' when PCTL_TEST_DATABASE names a running
 * cluster (scripts/test-postgres.mjs sets it), else 'sqlite'. Tests of SQLite-only things (the
 * data dir's files, snapshots, the SQLite lock) skip themselves, visibly, under 'postgres'.
 */
export const storeUnderTest: 'postgres' | 'sqlite' = process.env.PCTL_TEST_DATABASE ? 'postgres' : 'sqlite';

/**
 * Under PostgreSQL, the database that stands for a data dir: a schema of its own on the
 * cluster of PCTL_TEST_DATABASE, the same one each time a test starts a serve on that data
 * dir again (a restart finds its data). Loaded lazily: the SQLite leg never loads pg.
 * Schemas of data dirs a test names itself outlive it; the cluster is thrown away at the end.
 */
const databaseOfDataDir = new Map<string, Promise<string>>();

async function testDatabase(dataDir: string): Promise<string | undefined> {
  const base = process.env.PCTL_TEST_DATABASE;
  if (!base) return undefined;
  let url = databaseOfDataDir.get(dataDir);
  if (!url) {
    url = import('../../scripts/pg-cluster.mjs').then((m) => m.freshDatabaseUrl(base));
    databaseOfDataDir.set(dataDir, url);
  }
  return url;
}

async function dropTestDatabase(dataDir: string): Promise<void> {
  const url = databaseOfDataDir.get(dataDir);
  if (!url) return;
  databaseOfDataDir.delete(dataDir);
  const { dropDatabase } = await import('../../scripts/pg-cluster.mjs');
  await dropDatabase(await url);
}

/** The private JWK serve signs tokens with: DIR/signing-key.jwk, or (PostgreSQL) the database's. */
export function signingJwk(srv: RunningServer): import('jose').JWK {
  const text = storeUnderTest === 'sqlite' ? readFileSync(join(srv.dataDir, 'signing-key.jwk'), 'utf8') : srv.store.getMeta('signing_key')!;
  return JSON.parse(text) as import('jose').JWK;
}

export interface TestServer extends RunningServer {
  /** Calls the API as the owner; `body` is JSON-encoded. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Like call(), for setup steps: the JSON body of a 200, else it throws with the status and body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as the API sent it; tests assert its shape
  ok: (method: string, path: string, body?: unknown) => Promise<any>;
  /** The uid of a role by name (built-in ones included). */
  roleUid(name: string): Promise<string>;
  /** An identity of serve's own issuer (in the organization) bound to `role` on `groupUid`, with a token and a caller. */
  person(name: string, role: string, groupUid: string): Promise<{ id: { uid: string }; token: string; as: (method: string, path: string, body?: unknown) => Promise<ApiResponse> }>;
  /** Stops the server and removes its data dir. */
  dispose(): Promise<void>;
}

/**
 * Webhook deliveries of a test's serve resolve names here, not through DNS: `localhost` is
 * loopback, any other name is not found. Tests create sinks such as https://hooks.example.com/…;
 * no lookup of them may leave the machine. A test that needs other answers passes its own.
 */
const loopbackOnlyResolver: NonNullable<ServeOptions['sinkResolver']> = (hostname, _options, callback) => {
  if (hostname === 'localhost') return void queueMicrotask(() => callback(null, [{ address: '127.0.0.1', family: 4 }]));
  queueMicrotask(() => callback(Object.assign(new Error(`test resolver: ${hostname} is not looked up`), { code: 'ENOTFOUND' }), []));
};

/** A serve with its defaults (fair queuing per caller, as users run it) unless a test names others. */
export async function startTestServer(opts: Partial<ServeOptions> = {}): Promise<TestServer> {
  opts = { sinkResolver: loopbackOnlyResolver, ...opts };
  const dataDir = opts.dataDir ?? tempDir();
  // A test that names its own database keeps it (and drops it itself).
  const database = 'database' in opts ? undefined : await testDatabase(dataDir);
  let srv: RunningServer;
  try {
    srv = await startServer({ port: 0, host: '127.0.0.1', ...opts, dataDir, ...(database ? { database } : {}) });
  } catch (err) {
    if (!opts.dataDir) await dropTestDatabase(dataDir);
    throw err;
  }
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(srv.url, method, path, body, { authorization: `Bearer ${srv.ownerToken}`, ...headers });
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const roleUid = async (name: string) => (await ok('GET', `/iam/v2/roles?name=${encodeURIComponent(name)}`)).roles[0].uid as string;
  const person = async (name: string, role: string, groupUid: string) => {
    const issuer = (await ok('GET', `/iam/v2/identities/${encodeURIComponent(srv.ownerIdentityUid)}`)).claimMatch.issuer as string;
    const id = await ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name, claimMatch: { issuer, subject: name } } });
    await ok('POST', '/iam/v2/roleBindings', { parent: groupUid, roleBinding: { identityUid: id.uid, roleUid: await roleUid(role) } });
    const token = await srv.issueToken(id.uid);
    const as = (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });
    return { id, token, as };
  };
  return Object.assign(srv, {
    call,
    ok,
    roleUid,
    person,
    dispose: async () => {
      await srv.close();
      if (!opts.dataDir) {
        await dropTestDatabase(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  });
}

/**
 * Test data straight through the store, for tests about listing rather than creating: `count`
 * groups under `parent`, named by `name(i)`, created at `time(i)` (ms), in one transaction.
 * Returns their uids in creation order.
 */
export function addGroups(
  srv: TestServer, parent: string, count: number, name: (i: number) => string, time: (i: number) => number = () => Date.now(),
): Promise<string[]> {
  return srv.store.write(() => insertGroups(srv.store, parent, count, name, time));
}

/** addGroups' inserts, for a caller already inside a store write (several batches in one commit). */
export function insertGroups(
  store: Store, parent: string, count: number, name: (i: number) => string, time: (i: number) => number = () => Date.now(),
): string[] {
  return Array.from({ length: count }, (_, i) => {
    const t = timestamp(time(i));
    const rec = { uid: newChildUid(systemRandom, parent), kind: 'group' as const, parent, name: name(i), altKey: null, createTime: t, updateTime: t, data: { description: '', verified: false } };
    store.insert(rec);
    return rec.uid;
  });
}

/** A store over a temp data dir of the test's own, closed and removed after it (for tests below HTTP). */
export function tempStore(t: ExecutionContext): { store: Store; dir: string } {
  const dir = tempDir();
  const store = new Store(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, dir };
}
