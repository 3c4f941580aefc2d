// Group commit: writes queued together share one transaction (one fsync), yet each stands
// or falls alone, and none is acknowledged before the COMMIT.
import test from 'ava';
import Database from '../src/server/store/sqlite.js';
import { join } from 'node:path';
import type { Record_ } from '../src/server/store/store.js';
import { tempStore } from './helpers/serve.js';

const identity = (uid: string): Record_<'identity'> => ({
  uid, kind: 'identity', parent: null, name: uid, altKey: null,
  createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', claimMatch: {}, lastSeenTime: '2026-01-01T00:00:00.000Z' },
});

const rec = (uid: string): Record_<'group'> => ({
  uid, kind: 'group', parent: null, name: uid, altKey: null,
  createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false },
});

test('a failing write in a batch is rolled back alone; the others commit, and are visible to another connection when acknowledged', async (t) => {
  const { store, committed: seenByOthers } = storeWithReader(t);

  const a = store.write(() => store.insert(rec('a')));
  const b = store.write(() => {
    store.insert(rec('b'));
    throw new Error('b fails after writing');
  });
  const c = store.write(() => {
    t.truthy(store.get('a'), 'a later write in the batch sees an earlier one');
    store.insert(rec('c'));
    return 'c done';
  });
  t.false(seenByOthers('a'), 'nothing is committed before the batch runs');

  await a;
  t.true(seenByOthers('a'), 'acknowledged means committed');
  await t.throwsAsync(b, { message: 'b fails after writing' });
  t.is(await c, 'c done');
  t.true(seenByOthers('c'));
  t.false(seenByOthers('b'), 'the failed write left nothing behind');
  t.is(store.get('b'), undefined);
});

test('a lone write that fails is rolled back (it has no savepoint of its own), and the next one commits', async (t) => {
  const { store, committed } = storeWithReader(t);
  const lone = store.write(() => {
    store.insert(rec('lone'));
    throw new Error('lone fails after writing');
  });
  await t.throwsAsync(lone, { message: 'lone fails after writing' });
  t.false(committed('lone'));
  t.is(store.get('lone'), undefined);
  t.is(await store.write(() => {
    store.insert(rec('next'));
    return 'next done';
  }), 'next done');
  t.true(committed('next'));
});

test('writes queued in different turns of the event loop commit separately', async (t) => {
  const { store } = tempStore(t);
  await store.write(() => store.insert(rec('first')));
  await store.write(() => store.insert(rec('second')));
  t.truthy(store.get('first'));
  t.truthy(store.get('second'));
});

test('a row read before a write is read afresh after it commits, and as it was when the write is rolled back', async (t) => {
  const { store } = tempStore(t);
  await store.write(() => store.insert(rec('x')));
  t.is(store.get('x')?.name, 'x');
  t.is(store.get('y'), undefined);
  await store.write(() => store.update({ ...rec('x'), name: 'renamed' }));
  t.is(store.get('x')?.name, 'renamed');
  await t.throwsAsync(store.write(() => {
    store.update({ ...rec('x'), name: 'rolled back' });
    store.insert(rec('y'));
    t.is(store.get('x')?.name, 'rolled back', 'the write sees its own changes');
    throw new Error('undone');
  }));
  t.is(store.get('x')?.name, 'renamed');
  t.is(store.get('y'), undefined);
  await store.write(() => store.insert(rec('y')));
  t.truthy(store.get('y'), 'a uid read as missing is found once inserted');
  await store.write(() => store.remove('x'));
  t.is(store.get('x'), undefined);
});

/** A store and a second connection that sees only what is committed. */
function storeWithReader(t: import('ava').ExecutionContext) {
  const { store, dir } = tempStore(t);
  const reader = new Database(join(dir, 'pctl.db'), { readonly: true });
  t.teardown(() => reader.close());
  const committed = (uid: string) => Boolean(reader.prepare('SELECT 1 FROM resources WHERE uid = ?').get(uid));
  return { store, committed };
}

const codeOf = async (p: Promise<unknown>) => p.then(() => 'acknowledged', (e: Error & { code?: string }) => e.code ?? String(e));

test('a write that fills the disk takes its whole batch down (SQLite ends the transaction): none acknowledged, none on disk, each told SQLITE_FULL', async (t) => {
  const { store, committed } = storeWithReader(t);
  await store.write(() => store.insert(rec('existing')));
  store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true }) as number}`);

  const a = store.write(() => store.insert(rec('a')));
  const big = store.write(() => store.insert({ ...rec('big'), data: { description: 'x'.repeat(20_000), verified: false } }));
  const c = store.write(() => store.insert(rec('c')));
  t.deepEqual(await Promise.all([codeOf(a), codeOf(big), codeOf(c)]), ['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL']);
  for (const uid of ['a', 'big', 'c']) {
    t.false(committed(uid), `${uid} is not on disk`);
    t.is(store.get(uid), undefined, `${uid} is not seen by the server either`);
  }
  t.truthy(store.get('existing'), 'what was committed before stays, and reads work');

  store.db.pragma('max_page_count = 1073741823');
  await store.write(() => store.insert(rec('later')));
  t.true(committed('later'), 'the next batch commits once there is room');
});

test('a COMMIT that fails rejects every write of the batch; none is acknowledged or on disk', async (t) => {
  const { store, committed } = storeWithReader(t);
  // A real COMMIT failure, as an I/O error at fsync would be: a deferred foreign key that one
  // write of the batch leaves broken is checked only at COMMIT, which fails for the batch.
  store.db.pragma('foreign_keys = ON');
  store.db.exec('CREATE TABLE owners (id TEXT PRIMARY KEY); CREATE TABLE owned (owner TEXT REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED)');
  const writes = [
    store.write(() => store.insert(rec('a'))),
    store.write(() => {
      store.insert(rec('b'));
      store.db.prepare('INSERT INTO owned (owner) VALUES (?)').run('nobody');
    }),
    store.write(() => store.insert(rec('c'))),
  ];
  t.deepEqual(await Promise.all(writes.map(codeOf)), ['SQLITE_CONSTRAINT_FOREIGNKEY', 'SQLITE_CONSTRAINT_FOREIGNKEY', 'SQLITE_CONSTRAINT_FOREIGNKEY']);
  for (const uid of ['a', 'b', 'c']) {
    t.false(committed(uid));
    t.is(store.get(uid), undefined);
  }
  await store.write(() => store.insert(rec('d')));
  t.true(committed('d'), 'the next batch commits');
});

test('versionOf(kinds) moves with writes (and deletes) of those kinds only, and with any failed batch', async (t) => {
  const { store } = tempStore(t);
  const identities = () => store.versionOf(['identity']);
  const before = identities();
  await store.write(() => store.insert(rec('g1')));
  t.is(identities(), before, 'a group written: identity caches stay valid');
  await store.write(() => store.insert(identity('i1')));
  const afterIdentity = identities();
  t.not(afterIdentity, before);
  await store.write(() => store.update({ ...identity('i1'), name: 'renamed' }));
  t.not(identities(), afterIdentity, 'an update of that kind');
  const beforeRemove = identities();
  await store.write(() => store.remove('g1'));
  t.is(identities(), beforeRemove, 'a group deleted: identity caches stay valid');
  await store.write(() => store.remove('i1'));
  t.not(identities(), beforeRemove, 'an identity deleted');
  const beforeFailure = identities();
  await store.close();
  await t.throwsAsync(store.write(() => store.insert(rec('g2'))));
  t.not(identities(), beforeFailure, 'a batch that did not commit: whatever it wrote is gone');
});
