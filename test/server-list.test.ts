// The one list engine, through /iam/v2/groups: ordering, cursors, skip, filters, page tokens.
import test from 'ava';
import { addGroups, insertGroups, startTestServer, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const DAY = 24 * 60 * 60 * 1000;

interface Group { uid: string; name: string; createTime: string; updateTime: string }

/** A clock the test moves by hand; every call also ticks 0 or 1 ms so that some times tie. */
function manualClock(start = Date.parse('2026-11-01T00:00:00.000Z')) {
  let now = start;
  let calls = 0;
  return {
    clock: () => (calls++ % 3 === 0 ? ++now : now),
    advance: (ms: number) => { now += ms; },
  };
}

/**
 * 3 teams and 126 groups under them (through the store: these tests are about listing), with
 * repeating names and create times that sometimes tie, so ties need the uid.
 */
async function seedTree(srv: TestServer) {
  const start = Date.parse('2026-10-01T00:00:00.000Z');
  // One write for all 129: one commit, not 129.
  const teams = await srv.store.write(() => {
    const teamUids = insertGroups(srv.store, srv.organizationUid, 3, (i) => ['alpha', 'beta', 'gamma'][i]!, (i) => start + i);
    for (let i = 0; i < 126; i++) {
      insertGroups(srv.store, teamUids[i % 3]!, 1, () => `svc-${String(i % 40).padStart(2, '0')}`, () => start + 10 + Math.floor((i * 2) / 3));
    }
    return teamUids.map((uid) => ({ uid }));
  });
  // Touch a few through the API so updateTime differs from createTime.
  const some = await srv.call('GET', `${G}?uidp.children_of=${teams[0]!.uid}&page_size=5`);
  for (const g of some.json.groups as Group[]) {
    const res = await srv.call('PATCH', `${G}/${g.uid}`, { description: 'touched' });
    if (res.status !== 200) throw new Error(res.text);
  }
  return { teams };
}

async function listAll(srv: TestServer, query: string, pageSize = 50) {
  const items: Group[] = [];
  const totals = new Set<string>();
  let token = '';
  let pages = 0;
  do {
    const sep = query ? '&' : '';
    const res = await srv.call('GET', `${G}?${query}${sep}page_size=${pageSize}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    if (res.status !== 200) throw new Error(res.text);
    items.push(...res.json.groups);
    totals.add(res.json.totalCount);
    token = res.json.nextPageToken;
    pages++;
  } while (token && pages < 100);
  return { items, totals, pages };
}

const orders: [string | undefined, (g: Group) => string, boolean][] = [
  [undefined, (g) => g.uid, false],
  ['uid', (g) => g.uid, false],
  ['uid desc', (g) => g.uid, true],
  ['name', (g) => g.name, false],
  ['name desc', (g) => g.name, true],
  ['name asc', (g) => g.name, false],
  ['created_at desc', (g) => g.createTime, true],
  ['createTime', (g) => g.createTime, false],
  ['updateTime desc', (g) => g.updateTime, true],
  ['updated_at', (g) => g.updateTime, false],
];

test('every order pages through 130 groups completely, in order, with ties broken by uid', async (t) => {
  const { clock } = manualClock();
  const srv = await startTestServer({ clock });
  t.teardown(() => srv.dispose());
  await seedTree(srv);
  const total = 130; // 126 + 3 teams + the organization

  for (const [orderBy, key, desc] of orders) {
    const q = orderBy ? `order_by=${encodeURIComponent(orderBy)}` : '';
    const { items, totals, pages } = await listAll(srv, q);
    t.is(items.length, total, `${orderBy}: all items`);
    t.is(new Set(items.map((g) => g.uid)).size, total, `${orderBy}: no duplicates`);
    t.deepEqual([...totals], [String(total)], `${orderBy}: totalCount on every page`);
    t.is(pages, 3, `${orderBy}: 50 + 50 + 30`);
    const expected = [...items].sort((a, b) => {
      const c = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
      return desc ? -c : c;
    });
    t.deepEqual(items.map((g) => g.uid), expected.map((g) => g.uid), `${orderBy}: sorted`);
  }
});

test('order_by also accepts the spec spelling sent URL-encoded, and rejects unknown fields', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  for (const g of ['b', 'a', 'c']) await srv.call('POST', G, { parent: srv.organizationUid, group: { name: g } });
  const res = await srv.call('GET', `${G}?uidp.children_of=${srv.organizationUid}&order_by=name%20desc`);
  t.deepEqual(res.json.groups.map((g: Group) => g.name), ['c', 'b', 'a']);
  for (const bad of ['colour', 'name sideways', 'name desc extra']) {
    const r = await srv.call('GET', `${G}?order_by=${encodeURIComponent(bad)}`);
    t.is(r.status, 400, bad);
    t.is(r.json.code, 3);
  }
});

test('page_size: default 50, 0 means default, capped at 200, negative is code 3', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await seedTree(srv);
  t.is((await srv.call('GET', G)).json.groups.length, 50);
  t.is((await srv.call('GET', `${G}?page_size=0`)).json.groups.length, 50);
  t.is((await srv.call('GET', `${G}?page_size=7`)).json.groups.length, 7);
  const capped = await srv.call('GET', `${G}?page_size=500`);
  t.is(capped.json.groups.length, 130);
  t.is(capped.json.nextPageToken, '', 'all fit: last page');
  const neg = await srv.call('GET', `${G}?page_size=-1`);
  t.is(neg.status, 400);
  t.is(neg.json.code, 3);
});

test('page_size above 200 returns 200 items', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await addGroups(srv, srv.organizationUid, 205, (i) => `g${i}`);
  const res = await srv.call('GET', `${G}?page_size=1000`);
  t.is(res.json.groups.length, 200);
  t.is(res.json.totalCount, '206');
  t.truthy(res.json.nextPageToken);
});

test('skip jumps ahead and is echoed as skipped; the cursor continues after the skipped page', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await seedTree(srv);
  const all = (await listAll(srv, 'order_by=name')).items;
  const res = await srv.call('GET', `${G}?order_by=name&skip=60&page_size=10`);
  t.is(res.json.skipped, 60);
  t.deepEqual(res.json.groups.map((g: Group) => g.uid), all.slice(60, 70).map((g) => g.uid));
  t.is(res.json.totalCount, '130');
  const next = await srv.call('GET', `${G}?order_by=name&page_size=10&page_token=${encodeURIComponent(res.json.nextPageToken)}`);
  t.deepEqual(next.json.groups.map((g: Group) => g.uid), all.slice(70, 80).map((g) => g.uid));
  t.is((await srv.call('GET', G)).json.skipped, 0);
  const past = await srv.call('GET', `${G}?skip=1000`);
  t.deepEqual(past.json.groups, []);
  t.is(past.json.nextPageToken, '');
});

test('uidp.descendants_of, uidp.children_of and an exact name filter', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const { teams } = await seedTree(srv);
  const alpha = teams[0]!;
  const nested = await srv.call('POST', G, { parent: `${alpha.uid}`, group: { name: 'deep' } });
  const deeper = await srv.call('POST', G, { parent: nested.json.uid, group: { name: 'deeper' } });

  const desc = await listAll(srv, `uidp.descendants_of=${encodeURIComponent(alpha.uid)}`);
  t.is(desc.items.length, 42 + 2);
  t.true(desc.items.every((g) => g.uid.startsWith(`${alpha.uid}/`)), 'only below alpha, alpha itself excluded');
  t.true(desc.items.some((g) => g.uid === deeper.json.uid), 'grandchildren included');

  const children = await listAll(srv, `uidp.children_of=${encodeURIComponent(alpha.uid)}`);
  t.is(children.items.length, 43);
  t.false(children.items.some((g) => g.uid === deeper.json.uid), 'grandchildren excluded');

  const org = await listAll(srv, `uidp.descendants_of=${srv.organizationUid}`);
  t.is(org.items.length, 131);

  const named = await listAll(srv, 'name=svc-01');
  t.true(named.items.length > 0);
  t.true(named.items.every((g) => g.name === 'svc-01'));
  t.is((await listAll(srv, 'name=svc-0')).items.length, 0, 'exact match only');
  const combined = await listAll(srv, `name=svc-01&uidp.descendants_of=${encodeURIComponent(alpha.uid)}`);
  t.true(combined.items.every((g) => g.uid.startsWith(alpha.uid) && g.name === 'svc-01'));
  t.is((await srv.call('GET', `${G}?name=svc-01`)).json.totalCount, String(named.items.length));
});

test('page tokens: valid for 3 days, then the query restarts from the beginning without error', async (t) => {
  const { clock, advance } = manualClock();
  const srv = await startTestServer({ clock });
  t.teardown(() => srv.dispose());
  await seedTree(srv);
  const first = await srv.call('GET', `${G}?order_by=name&page_size=10`);
  const token = encodeURIComponent(first.json.nextPageToken);

  advance(3 * DAY - 60_000);
  const fresh = await srv.call('GET', `${G}?order_by=name&page_size=10&page_token=${token}`);
  t.is(fresh.status, 200);
  t.notDeepEqual(fresh.json.groups[0], first.json.groups[0], 'a token younger than 3 days continues');

  advance(2 * 60_000);
  const expired = await srv.call('GET', `${G}?order_by=name&page_size=10&page_token=${token}`);
  t.is(expired.status, 200, 'no error');
  t.deepEqual(expired.json.groups.map((g: Group) => g.uid), first.json.groups.map((g: Group) => g.uid), 'restarted from the beginning');
});

test('tampered page tokens and tokens of another query are code 3', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await seedTree(srv);
  const first = await srv.call('GET', `${G}?order_by=name&page_size=10`);
  const token: string = first.json.nextPageToken;
  const [body, sig] = token.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
  payload.k = ['a', 'a'];
  const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
  const flipped = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');

  for (const bad of [forged, flipped, 'garbage', `${token}.x`]) {
    const res = await srv.call('GET', `${G}?order_by=name&page_size=10&page_token=${encodeURIComponent(bad)}`);
    t.is(res.status, 400, bad);
    t.is(res.json.code, 3);
    t.is(res.json.details[1].fieldViolations[0].field, 'page_token');
  }
  for (const other of ['order_by=name%20desc', 'order_by=uid', `order_by=name&uidp.children_of=${srv.organizationUid}`, 'order_by=name&name=x']) {
    const res = await srv.call('GET', `${G}?${other}&page_token=${encodeURIComponent(token)}`);
    t.is(res.status, 400, other);
    t.is(res.json.code, 3);
  }
  // page_size may change between pages.
  t.is((await srv.call('GET', `${G}?order_by=name&page_size=20&page_token=${encodeURIComponent(token)}`)).status, 200);
});

test('totalCount follows writes immediately', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  t.is((await srv.call('GET', G)).json.totalCount, '1');
  const g = await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'x' } });
  t.is((await srv.call('GET', G)).json.totalCount, '2');
  await srv.call('DELETE', `${G}/${g.json.uid}`);
  t.is((await srv.call('GET', G)).json.totalCount, '1');
});

test('a list page is sent as exactly the JSON of its object, its content-length counted in bytes (text beyond ASCII too)', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'unicode', description: 'Ünïcödé – 日本 🙂' } });
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'ascii', description: 'plain' } });
  for (const query of ['', `?uidp.descendants_of=${srv.organizationUid}&order_by=name&page_size=1`]) {
    const res = await srv.call('GET', `${G}${query}`);
    t.is(res.text, JSON.stringify(res.json), query);
    t.is(Number(res.headers.get('content-length')), Buffer.byteLength(res.text), query);
    t.is(res.headers.get('content-type'), 'application/json');
  }
});

test('listed items follow writes at once: a group renamed, a role or identity renamed in the bindings naming it, a group deleted', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const org = srv.organizationUid;
  const g = await srv.ok('POST', G, { parent: org, group: { name: 'before' } });
  const names = async () => (await srv.ok('GET', `${G}?uidp.descendants_of=${org}&order_by=name`)).groups.map((x: Group) => x.name);
  t.deepEqual(await names(), ['before']);
  await srv.ok('PATCH', `${G}/${g.uid}`, { name: 'after', description: 'now described' });
  t.deepEqual(await names(), ['after']);
  t.is((await srv.ok('GET', `${G}?uidp.descendants_of=${org}`)).groups[0].description, 'now described');

  const role = await srv.ok('POST', '/iam/v2/roles', { parent: org, role: { name: 'reader', capabilities: ['groups.list'] } });
  const { id } = await srv.person('pat', 'viewer', g.uid);
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: g.uid, roleBinding: { identityUid: id.uid, roleUid: role.uid } });
  const bindings = async () => (await srv.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${g.uid}&order_by=name`)).roleBindings
    .map((b: { identity: { name: string }; role: { name: string } }) => `${b.identity.name}:${b.role.name}`);
  t.deepEqual(await bindings(), ['pat:reader', 'pat:viewer']);
  await srv.ok('PATCH', `/iam/v2/roles/${role.uid}`, { name: 'auditor' });
  await srv.ok('PATCH', `/iam/v2/identities/${id.uid}`, { name: 'patricia' });
  // Role bindings sort by the role name they were created with; the names shown are the current ones.
  t.deepEqual((await bindings()).sort(), ['patricia:auditor', 'patricia:viewer']);

  const other = await srv.ok('POST', G, { parent: org, group: { name: 'other' } });
  t.deepEqual(await names(), ['after', 'other']);
  await srv.ok('DELETE', `${G}/${other.uid}`);
  t.deepEqual(await names(), ['after']);
});
