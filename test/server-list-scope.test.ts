// A caller's scope is part of the indexed query: each visible subtree is read through its
// own uid range and the subtrees are merged. These tests check the merged pages against a
// brute-force answer, and, by the rows the list engine counts as read (countRowsRead), that a
// list's cost stays flat as the database grows.
import test from 'ava';
import { parseListQuery } from '../src/server/surfaces/list-query.js';
import { compareText, ListEngine, type ListScope } from '../src/server/store/list.js';
import { within } from '../src/server/auth/authorize.js';
import { newChildUid, newOrganizationUid } from '../src/server/domain/records.js';
import { systemRandom } from '../src/server/base/random.js';
import type { Kind, Record_ } from '../src/server/store/store.js';
import { addGroups, startTestServer, storeUnderTest, tempStore } from './helpers/serve.js';

/**
 * org → big (620 groups below it), mid (30), small (5), elsewhere (2,000). Names repeat and
 * include characters where UTF-16 order and SQLite's differ (an emoji vs U+E000), create
 * times tie, so every comparison of the merge is exercised.
 */
function buildTree(t: import('ava').ExecutionContext) {
  const { store } = tempStore(t);
  const org = newOrganizationUid(systemRandom);
  let n = 0;
  const names = ['alpha', 'beta', 'é', '\u{1F600}x', '\uE000y', 'Zed', 'alpha'];
  const add = (parent: string | null, name = names[n % names.length]!, kind: Kind = 'group', uid = parent ? newChildUid(systemRandom, parent) : org) => {
    const create = new Date(Date.UTC(2026, 0, 1) + (n % 89) * 1000).toISOString();
    const update = new Date(Date.UTC(2026, 1, 1) + (n % 13) * 1000).toISOString();
    n++;
    // The store keeps data as JSON and reads none of it: any kind's row does here.
    store.insert({ uid, kind, parent, name, altKey: null, createTime: create, updateTime: update, data: {} } as Record_);
    return uid;
  };
  let big = '', bigChild = '', mid = '', small = '', smallChild = '', elsewhere = '';
  store.transaction(() => {
    add(null, 'org');
    big = add(org, 'big');
    mid = add(org, 'mid');
    small = add(org, 'small');
    elsewhere = add(org, 'elsewhere');
    bigChild = add(big, 'big-child');
    for (let i = 0; i < 300; i++) add(bigChild);
    for (let i = 0; i < 319; i++) add(big);
    for (let i = 0; i < 30; i++) add(mid);
    smallChild = add(small, 'small-child');
    for (let i = 0; i < 4; i++) add(smallChild);
    for (let i = 0; i < 2000; i++) add(elsewhere);
    // Roles: built-in ones outside the hierarchy, custom ones inside and outside the scope.
    for (const name of ['owner', 'viewer', 'editor']) add(null, name, 'role', `builtin-${name}`);
    add(mid, 'mid-role', 'role');
    add(elsewhere, 'elsewhere-role', 'role');
  });
  const all = (kind: Kind) => (store.db.prepare('SELECT uid FROM resources WHERE kind = ?').all(kind) as { uid: string }[]).map((r) => store.get(r.uid)!);
  store.setMeta('page_token_key', 'ab'.repeat(32)); // what ListEngine.ensureTokenKey() writes at a serve's start
  return { store, org, big, bigChild, mid, small, smallChild, elsewhere, all, lists: new ListEngine(store, Date.now, systemRandom) };
}

const scopeOf = (roots: string[], unparented = false): ListScope => ({ roots: [...roots].sort(), unparented, key: roots.join(',') });

const KEY: Record<string, (r: Record_) => string> = {
  uid: (r) => r.uid, name: (r) => r.name, createTime: (r) => r.createTime, updateTime: (r) => r.updateTime,
};

function expected(rows: Record_[], order: string): string[] {
  const [field, dir] = order.split(' ');
  const key = KEY[field!]!;
  const sign = dir === 'desc' ? -1 : 1;
  return [...rows].sort((a, b) => sign * (compareText(key(a), key(b)) || compareText(a.uid, b.uid))).map((r) => r.uid);
}

function pageAll(lists: ListEngine, kind: Kind, query: Record<string, string>, scope: ListScope, pageSize: number) {
  const uids: string[] = [];
  const totals = new Set<number>();
  let token = '';
  let pages = 0;
  do {
    const q = new URLSearchParams({ ...query, page_size: String(pageSize) });
    if (token) q.set('page_token', token);
    const page = lists.list(parseListQuery(q), { kind, scope });
    uids.push(...page.items.map((r) => r.uid));
    totals.add(page.totalCount);
    token = page.nextPageToken;
  } while (token && ++pages < 1000);
  return { uids, totals: [...totals] };
}

const ORDERS = ['uid', 'uid desc', 'name', 'name desc', 'createTime', 'updateTime desc'];

test('a list over several granted subtrees pages completely, in order, with an exact totalCount, for every order and filter', (t) => {
  const { org, big, bigChild, mid, small, smallChild, elsewhere, all, lists } = buildTree(t);
  const groups = all('group');
  // big is large enough to be read through the sort index, mid and smallChild through their ranges.
  const scope = scopeOf([big, mid, smallChild]);
  const visible = groups.filter((g) => scope.roots.some((r) => within(g.uid, r)));
  t.is(visible.length, 620 + 1 + 31 + 5);

  const cases: [string, Record<string, string>, (g: Record_) => boolean][] = [
    ['no filter', {}, () => true],
    ['descendants_of the organization', { 'uidp.descendants_of': org }, (g) => g.uid.startsWith(`${org}/`)],
    ['descendants_of a group inside a granted one', { 'uidp.descendants_of': bigChild }, (g) => g.uid.startsWith(`${bigChild}/`)],
    ['descendants_of a group above a granted one', { 'uidp.descendants_of': small }, (g) => g.uid.startsWith(`${small}/`)],
    ['descendants_of a group outside the scope', { 'uidp.descendants_of': elsewhere }, () => false],
    ['children_of a granted group', { 'uidp.children_of': mid }, (g) => g.parent === mid],
    ['children_of a group whose granted children are visible', { 'uidp.children_of': org }, (g) => g.parent === org],
    ['children_of a group above a granted child', { 'uidp.children_of': small }, (g) => g.parent === small],
    ['children_of a group outside the scope', { 'uidp.children_of': elsewhere }, () => false],
    ['children_of and descendants_of', { 'uidp.children_of': bigChild, 'uidp.descendants_of': big }, (g) => g.parent === bigChild],
    ['children_of outside descendants_of', { 'uidp.children_of': bigChild, 'uidp.descendants_of': mid }, () => false],
    ['name', { name: 'alpha' }, (g) => g.name === 'alpha'],
    ['name and descendants_of', { name: '\uE000y', 'uidp.descendants_of': org }, (g) => g.name === '\uE000y'],
  ];
  for (const [what, query, keep] of cases) {
    const matching = visible.filter(keep);
    for (const order of ORDERS) {
      for (const pageSize of [200, 37]) {
        const { uids, totals } = pageAll(lists, 'group', { ...query, order_by: order }, scope, pageSize);
        t.deepEqual(uids, expected(matching, order), `${what}, ${order}, pages of ${pageSize}: every visible match once, in order`);
        t.deepEqual(totals, [matching.length], `${what}, ${order}: totalCount on every page`);
      }
    }
  }
});

test('skip, from the start or (past the middle) from the end: the same slice a full listing has; past the end an empty page that echoes skipped', (t) => {
  const { big, mid, smallChild, all, lists } = buildTree(t);
  for (const scope of [scopeOf([big, mid, smallChild]), scopeOf([big]), scopeOf([mid])]) {
    const visible = all('group').filter((g) => scope.roots.some((r) => within(g.uid, r)));
    const n = visible.length;
    for (const order of ['name desc', 'createTime', 'uid']) {
      const full = expected(visible, order);
      for (const skip of [0, 1, 15, Math.floor(n / 2), n - 25, n - 21, n - 20, n - 19, n - 1, n, n + 5, 1_000_000]) {
        const what = `${scope.key.length > 100 ? 'three subtrees' : `${n} rows`}, ${order}, skip ${skip}`;
        const page = lists.list(parseListQuery(new URLSearchParams({ order_by: order, skip: String(skip), page_size: '20' })), { kind: 'group', scope });
        t.deepEqual(page.items.map((r) => r.uid), full.slice(skip, skip + 20), what);
        t.is(page.skipped, skip);
        t.is(page.totalCount, n);
        t.is(page.nextPageToken === '', skip + 20 >= n, `${what}: a next page exactly when one remains`);
        if (page.nextPageToken) {
          const next = lists.list(parseListQuery(new URLSearchParams({ order_by: order, page_token: page.nextPageToken, page_size: '20' })), { kind: 'group', scope });
          t.deepEqual(next.items.map((r) => r.uid), full.slice(skip + 20, skip + 40), `${what}: the cursor continues`);
        }
      }
    }
  }
});

test('roles: built-in ones merge with the custom roles of the granted subtrees; no grant, no rows', (t) => {
  const { mid, small, all, lists } = buildTree(t);
  const scope = scopeOf([mid, small], true);
  const visible = all('role').filter((r) => r.parent === null || scope.roots.some((g) => within(r.uid, g)));
  t.deepEqual(visible.map((r) => r.name).sort(), ['editor', 'mid-role', 'owner', 'viewer']);
  for (const order of ORDERS) {
    const { uids, totals } = pageAll(lists, 'role', { order_by: order }, scope, 3);
    t.deepEqual(uids, expected(visible, order), order);
    t.deepEqual(totals, [4]);
  }
  const none = lists.list(parseListQuery(new URLSearchParams()), { kind: 'role', scope: scopeOf([]) });
  t.deepEqual(none.items, []);
  t.is(none.totalCount, 0);
});

test('a viewer of a small subtree: every list reads the same rows when the organization grows tenfold', async (t) => {
  const srv = await startTestServer({ countListRows: true });
  t.teardown(() => srv.dispose());
  const org = srv.organizationUid;
  const [team, other] = await addGroups(srv, org, 2, (i) => ['team', 'other'][i]!);
  const [sub] = await addGroups(srv, team!, 1, () => 'sub');
  await addGroups(srv, sub!, 6, (i) => `leaf-${i}`);
  const vera = await srv.person('vera', 'viewer', sub!);
  const rowsRead = async () => (await srv.ok('GET', '/_pctl/list-stats')).rowsRead as number;
  const queries = ['', 'order_by=name', 'order_by=createTime%20desc&skip=3', 'order_by=updateTime&skip=2000', `uidp.descendants_of=${sub}&order_by=name%20desc`,
    `uidp.children_of=${sub}`, `uidp.children_of=${team}&order_by=name`, 'name=leaf-2&order_by=createTime', 'skip=9800&order_by=name%20desc'];
  /** The rows each query reads, asked once after the groups were last written. */
  const costs = async () => {
    // The number of groups (what the index choice weighs a subtree against) is counted once
    // per write of groups, by the first list that reads a page, for all: not what one query costs.
    t.is((await vera.as('GET', '/iam/v2/groups?name=leaf-0')).status, 200);
    const cost: Record<string, number> = {};
    for (const query of queries) {
      const before = await rowsRead();
      const res = await vera.as('GET', `/iam/v2/groups?${query}`);
      t.is(res.status, 200, query);
      t.true(Number(res.json.totalCount) <= 7, query);
      cost[query] = (await rowsRead()) - before;
    }
    return cost;
  };
  await addGroups(srv, other!, 300, (i) => `noise-${i}`);
  const atN = await costs();
  await addGroups(srv, other!, 2700, (i) => `noise-${300 + i}`);
  // Writes outside the viewer's subtree leave its pages and counts as they were: read again,
  // nothing. (A PostgreSQL replica runs each write against its mirror and rolls that back,
  // which drops every cache: there the lists are read again.)
  if (storeUnderTest === 'sqlite') t.deepEqual(Object.values(await costs()), queries.map(() => 0), 'rows read after writes elsewhere');
  // A write inside it: each list is read again, and costs what it cost with a tenth of the groups.
  const [leaf] = (await srv.ok('GET', `/iam/v2/groups?uidp.children_of=${sub}&name=leaf-0`)).groups as { uid: string }[];
  await srv.ok('PATCH', `/iam/v2/groups/${encodeURIComponent(leaf!.uid)}?update_mask=description`, { description: 'changed' });
  const atTenN = await costs();
  t.deepEqual(atTenN, atN, 'rows read with 3,000 other groups, and with 300');
  // Counting the subtree's 7 groups and reading a page of them, with room to spare; a walk of
  // every group would read at least 300.
  for (const query of queries) t.true(atN[query]! <= 40, `${query}: ${atN[query]} rows read`);
});

test('the children of a group, and the rows outside the hierarchy, come in order from an index: a next page reads a page of rows, however many there are (but by updateTime)', (t) => {
  const { store } = tempStore(t);
  const org = newOrganizationUid(systemRandom);
  const parent = newChildUid(systemRandom, org);
  let n = 0;
  const add = (parentUid: string | null, kind: Kind) => {
    const time = new Date(Date.UTC(2026, 0, 1) + (n % 89) * 1000).toISOString();
    store.insert({ uid: parentUid ? newChildUid(systemRandom, parentUid) : `builtin-${n}`, kind, parent: parentUid, name: `n-${(n * 7919) % 1000}`, altKey: null, createTime: time, updateTime: time, data: {} } as Record_);
    n++;
  };
  const other = newChildUid(systemRandom, org);
  // The parent's children, as many groups elsewhere (walking every group in order would pass
  // them), and roles outside the hierarchy.
  const grow = (count: number) => store.transaction(() => {
    for (let i = 0; i < count; i++) {
      add(parent, 'group');
      add(other, 'group');
      add(null, 'role');
    }
  });
  store.transaction(() => {
    store.insert({ uid: org, kind: 'group', parent: null, name: 'org', altKey: null, createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false } });
    store.insert({ uid: parent, kind: 'group', parent: org, name: 'parent', altKey: null, createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false } });
    store.insert({ uid: other, kind: 'group', parent: org, name: 'other', altKey: null, createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', data: { description: '', verified: false } });
  });
  store.setMeta('page_token_key', 'ab'.repeat(32)); // what ListEngine.ensureTokenKey() writes at a serve's start
  const lists = new ListEngine(store, Date.now, systemRandom, { countRowsRead: true });
  const cases: [Kind, Record<string, string>][] = [['group', { 'uidp.children_of': parent }], ['role', {}]];
  const orders = ['', 'uid desc', 'name', 'name desc', 'createTime', 'createTime desc'];
  /** The rows the second page of each listing reads (the first counted the matches). */
  const costs = () => {
    const cost: Record<string, number> = {};
    for (const [kind, query] of cases) {
      for (const order of orders) {
        const params = { ...query, ...(order ? { order_by: order } : {}), page_size: '20' };
        const first = lists.list(parseListQuery(new URLSearchParams(params)), { kind });
        const before = lists.rowsRead!;
        const second = lists.list(parseListQuery(new URLSearchParams({ ...params, page_token: first.nextPageToken })), { kind });
        t.is(second.items.length, 20);
        cost[`${kind} ${JSON.stringify(query)} ${order}`] = lists.rowsRead! - before;
      }
    }
    return cost;
  };
  grow(200);
  const atN = costs();
  grow(1800);
  const atTenN = costs();
  t.deepEqual(atTenN, atN, 'rows a next page reads among 2,000 children (and roles), and among 200');
  for (const [what, rows] of Object.entries(atN)) t.true(rows <= 22, `${what}: ${rows} rows read (a page, the next page's first row, and the cursor's row)`);
});
