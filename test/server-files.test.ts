// What serve and the CLI leave on disk is private whatever the umask: the data dir 0700, its
// database files 0600, the config dir 0700. And a page token signed with the real key but
// holding a malformed payload is a client error (code 3), never a 500.
import test from 'ava';
import { createHmac } from 'node:crypto';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { saveProfile } from '../src/config/index.js';
import { startTestServer, storeUnderTest, tempDir } from './helpers/serve.js';

const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs fn under a permissive umask (000), as the review did; restores it after. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

// Serial: the umask is per process, and the other tests of this file must not run under it.
test.serial('a new data dir is 0700 and pctl.db, -wal and -shm are 0600, even under umask 000', async (t) => {
  const dir = join(tempDir(), 'fresh');
  await withUmask(0, async () => {
    const srv = await startTestServer({ dataDir: dir });
    t.teardown(() => srv.dispose());
    t.is((await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'x' } })).status, 200);
    t.is(mode(dir), 0o700);
    // On PostgreSQL the data dir holds the owner token only; the rest is in the database.
    const files = storeUnderTest === 'sqlite' ? ['pctl.db', 'pctl.db-wal', 'pctl.db-shm', 'owner.token', 'signing-key.jwk'] : ['owner.token'];
    for (const f of files) t.is(mode(join(dir, f)), 0o600, f);
  });
});

// SQLite only: the database files in the data dir.
if (storeUnderTest === 'sqlite') test.serial('an existing data dir and database files of an older pctl are tightened at start', async (t) => {
  const dir = tempDir();
  const first = await startTestServer({ dataDir: dir });
  await first.close();
  chmodSync(dir, 0o755);
  for (const f of ['pctl.db', 'pctl.db-wal', 'pctl.db-shm']) {
    try {
      chmodSync(join(dir, f), 0o644);
    } catch {
      // -wal and -shm are gone after a clean close
    }
  }
  const srv = await startTestServer({ dataDir: dir });
  t.teardown(() => srv.dispose());
  t.is(mode(dir), 0o700);
  t.is(mode(join(dir, 'pctl.db')), 0o600);
});

test.serial('an existing data dir open to others that holds other files is refused and left alone (never chmod /tmp)', async (t) => {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'someone-elses'));
  await t.throwsAsync(startTestServer({ dataDir: dir }), { message: /is open to other users and holds other files \(someone-elses\)/ });
  t.is(mode(dir), 0o755);
});

test.serial('the config dir pctl creates is 0700 and config.json 0600, even under umask 000', async (t) => {
  const base = tempDir();
  const configDir = join(base, 'nested', 'pctl');
  await withUmask(0, async () => {
    saveProfile('p', { apiUrl: 'http://127.0.0.1:1', token: 't' }, { configDir });
  });
  t.is(mode(configDir), 0o700);
  t.is(mode(join(configDir, 'config.json')), 0o600);
  // A dir the user made stays as they made it.
  const own = join(base, 'own');
  mkdirSync(own, { mode: 0o750 });
  chmodSync(own, 0o750);
  saveProfile('p', { apiUrl: 'http://127.0.0.1:1', token: 't' }, { configDir: own });
  t.is(mode(own), 0o750);
});

test('page tokens signed with the real key but malformed inside are code 3, not 500', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const key = Buffer.from(srv.store.getMeta('page_token_key')!, 'hex');
  const forge = (payload: string) => {
    const body = Buffer.from(payload).toString('base64url');
    return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
  };
  const payloads = ['not json', '42', 'null', '[]', '{}', '{"q":"x"}', '{"q":1,"k":["a","b"],"t":1}', '{"q":"x","k":"ab","t":1}', '{"q":"x","k":[1,2],"t":1}', '{"q":"x","k":["a","b"],"t":"soon"}'];
  for (const payload of payloads) {
    const res = await srv.call('GET', `/iam/v2/groups?page_token=${encodeURIComponent(forge(payload))}`);
    t.is(res.status, 400, payload);
    t.is(res.json.code, 3, payload);
    t.regex(res.json.message, /page_token/, payload);
  }
});
