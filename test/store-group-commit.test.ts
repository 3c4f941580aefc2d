// Group commit: writes queued together share one transaction (one fsync), yet each stands
// or falls alone, and none is acknowledged before the COMMIT.
import test from 'ava';
import Database from '../src/server/store/sqlite.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Store, type Record_ } from '../src/server/store/store.js';
import { tempDir } from './helpers/serve.js';

const rec = (uid: string): Record_ => ({
  uid, kind: 'group', parent: null, name: uid, altKey: null,
  createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: {},
});

test('a failing write in a batch is rolled back alone; the others commit, and are visible to another connection when acknowledged', async (t) => {
  const dir = tempDir();
  const store = new Store(dir);
  const reader = new Database(join(dir, 'pctl.db'), { readonly: true });
  t.teardown(() => {
    reader.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const seenByOthers = (uid: string) => Boolean(reader.prepare('SELECT 1 FROM resources WHERE uid = ?').get(uid));

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

test('writes queued in different turns of the event loop commit separately', async (t) => {
  const dir = tempDir();
  const store = new Store(dir);
  t.teardown(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await store.write(() => store.insert(rec('first')));
  await store.write(() => store.insert(rec('second')));
  t.truthy(store.get('first'));
  t.truthy(store.get('second'));
});
