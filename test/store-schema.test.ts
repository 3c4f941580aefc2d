// The SQLite store's own bookkeeping on the write path: a data dir of the previous schema is
// brought up to date at start, and change seqs keep growing whatever a crash left on disk.
import test from 'ava';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../src/server/store/sqlite.js';
import { Store, type Record_ } from '../src/server/store/store.js';
import type { ResourceChange } from '../src/server/store/changes.js';
import { startTestServer, tempDir } from './helpers/serve.js';

const I = '/iam/v2/identities';

test('a data dir whose resources_alt indexes every row (schema 3) is brought up to date at start; lookups by alt key answer as before', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer({ dataDir });
  const claimMatch = { issuer: 'https://ci.example', subject: 'deploy' };
  const bot = await first.ok('POST', I, { parent: first.organizationUid, identity: { name: 'bot', claimMatch } });
  await first.close();
  const old = new Database(join(dataDir, 'pctl.db'));
  old.exec('DROP TABLE resource_counts; DROP INDEX resources_alt; CREATE INDEX resources_alt ON resources (kind, alt_key); PRAGMA user_version = 3');
  old.close();

  const again = await startTestServer({ dataDir });
  t.teardown(() => again.dispose());
  const index = again.store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'resources_alt'").get() as { sql: string };
  t.regex(index.sql, /WHERE alt_key IS NOT NULL$/);
  t.is(again.store.db.pragma('user_version', { simple: true }), 5);
  // The owner's token finds its identity by claim, and a second identity of the same claim is refused.
  const clash = await again.call('POST', I, { parent: again.organizationUid, identity: { name: 'bot-2', claimMatch } });
  t.is(clash.status, 409, clash.text);
  t.regex(clash.json.message, new RegExp(bot.uid));
});

const group = (uid: string): Record_ => ({
  uid, kind: 'group', parent: null, name: uid, altKey: null,
  createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false },
});

test('change seqs keep growing after a crash: a store opening what another left on disk (never closed) numbers above every seq handed out', async (t) => {
  const dir = tempDir();
  const crashed = new Store(dir);
  t.teardown(async () => {
    await crashed.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seqs = (store: Store) => {
    const seen: number[] = [];
    store.changes.subscribe((changes: readonly ResourceChange[]) => seen.push(...changes.map((c) => c.seq)));
    return seen;
  };
  const before = seqs(crashed);
  for (const uid of ['a', 'b', 'c']) await crashed.write(() => crashed.insert(group(uid)));
  // A write that fails takes its seq back with it: the ceiling on disk stays what was committed.
  await t.throwsAsync(crashed.write(() => {
    crashed.insert(group('d'));
    throw new Error('fails');
  }));

  const next = new Store(dir);
  t.teardown(() => next.close());
  const after = seqs(next);
  await next.write(() => next.insert(group('e')));
  await next.write(() => next.remove('a'));
  t.is(before.length, 3);
  t.is(after.length, 2);
  t.true(after[0]! > Math.max(...before), `${after[0]} > ${before.join(', ')}`);
  t.true(after[1]! > after[0]!);
});
