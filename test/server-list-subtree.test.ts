// A large subtree is read through the sort index and a small one through its uid range
// (list.ts picks by the match count); both must page in exactly the requested order.
import test from 'ava';
import { parseListQuery } from '../src/server/surfaces/list-query.js';
import { ListEngine } from '../src/server/store/list.js';
import { newChildUid, newOrganizationUid } from '../src/server/domain/records.js';
import { systemRandom } from '../src/server/base/random.js';
import { tempStore } from './helpers/serve.js';

test('descendants_of pages completely and in order, for a subtree above and below the index switch', (t) => {
  const { store } = tempStore(t);
  const org = newOrganizationUid(systemRandom);
  const big = newChildUid(systemRandom, org);
  const small = newChildUid(systemRandom, org);
  let i = 0;
  const add = (parent: string, name: string) => {
    const time = new Date(Date.UTC(2026, 0, 1) + (i++ % 97) * 1000).toISOString();
    const uid = newChildUid(systemRandom, parent);
    store.insert({ uid, kind: 'group', parent, name, altKey: null, createTime: time, updateTime: time, data: { description: '', verified: false } });
    return uid;
  };
  store.transaction(() => {
    for (const [uid, name] of [[org, 'org'], [big, 'big'], [small, 'small']] as const) {
      store.insert({ uid, kind: 'group', parent: uid === org ? null : org, name, altKey: null, createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false } });
    }
    for (let n = 0; n < 2600; n++) add(big, `g-${(n * 7919) % 1000}`);
    for (let n = 0; n < 40; n++) add(small, `s-${n % 7}`);
  });
  store.setMeta('page_token_key', 'ab'.repeat(32)); // what ListEngine.ensureTokenKey() writes at a serve's start
  const lists = new ListEngine(store, Date.now, systemRandom);

  for (const [root, expected] of [[big, 2600], [small, 40]] as const) {
    for (const order of ['name', 'name desc', 'created_at desc', 'updateTime']) {
      const seen: { uid: string; key: string }[] = [];
      let token = '';
      do {
        const q = new URLSearchParams({ 'uidp.descendants_of': root, order_by: order, page_size: '200' });
        if (token) q.set('page_token', token);
        const page = lists.list(parseListQuery(q), { kind: 'group' });
        t.is(page.totalCount, expected);
        for (const r of page.items) seen.push({ uid: r.uid, key: order.startsWith('name') ? r.name : order.startsWith('created') ? r.createTime : r.updateTime });
        token = page.nextPageToken;
      } while (token);
      t.is(seen.length, expected, `${order}: every item`);
      t.is(new Set(seen.map((s) => s.uid)).size, expected, `${order}: no repeats`);
      const desc = order.endsWith('desc');
      const sorted = [...seen].sort((a, b) => (a.key === b.key ? (a.uid < b.uid ? -1 : 1) : a.key < b.key ? -1 : 1) * (desc ? -1 : 1));
      t.deepEqual(seen.map((s) => s.uid), sorted.map((s) => s.uid), `${order}: in order`);
      t.true(seen.every((s) => s.uid.startsWith(`${root}/`)), `${order}: only the subtree`);
    }
  }
});
