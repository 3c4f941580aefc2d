// totalCount comes from counts the writes keep, and cached pages are dropped by the writes in
// their scope alone: after any create or delete, at any depth, every list's total is the number
// of items it pages through, and no page is served from before a write that changed it.
import test from 'ava';
import Database from '../src/server/store/sqlite.js';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestServer, storeUnderTest, tempDir, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const q = encodeURIComponent;

/** The totalCount a list answers, and the items it pages through to the end (what it really holds). */
async function totals(call: (path: string) => Promise<{ totalCount: string; nextPageToken: string; [k: string]: unknown }>, path: string, key: string): Promise<{ total: number; items: number }> {
  const sep = path.includes('?') ? '&' : '?';
  const first = await call(`${path}${sep}page_size=3`);
  let items = (first[key] as unknown[]).length;
  for (let page = first; page.nextPageToken;) {
    page = await call(`${path}${sep}page_size=3&page_token=${q(page.nextPageToken)}`);
    items += (page[key] as unknown[]).length;
  }
  return { total: Number(first.totalCount), items };
}

async function tree(srv: TestServer) {
  const org = srv.organizationUid;
  const group = async (parent: string, name: string) => (await srv.ok('POST', G, { parent, group: { name } })).uid as string;
  const a = await group(org, 'a');
  const b = await group(org, 'b');
  const sub = await group(a, 'sub');
  const leaves = [await group(sub, 'leaf-1'), await group(sub, 'leaf-2')];
  return { org, a, b, sub, leaves, group };
}

test('totalCount at every scope follows creates and deletes at any depth: the number of items the list pages through', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const { org, a, b, sub, leaves, group } = await tree(srv);
  const owner = (path: string) => srv.ok('GET', path);
  const viewer = await srv.person('vera', 'viewer', a);
  const asVera = async (path: string) => {
    const res = await viewer.as('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  // Each list with the number of groups it holds now; every check also pages through it.
  const lists = (): [string, (p: string) => Promise<never>, string, string][] => [
    ['every group', owner, G, 'groups'],
    ['below the organization', owner, `${G}?uidp.descendants_of=${q(org)}&order_by=name`, 'groups'],
    ['below a', owner, `${G}?uidp.descendants_of=${q(a)}`, 'groups'],
    ['below sub', owner, `${G}?uidp.descendants_of=${q(sub)}&order_by=createTime%20desc`, 'groups'],
    ['below b', owner, `${G}?uidp.descendants_of=${q(b)}`, 'groups'],
    ["a's children", owner, `${G}?uidp.children_of=${q(a)}`, 'groups'],
    ["sub's children", owner, `${G}?uidp.children_of=${q(sub)}&order_by=name`, 'groups'],
    ['the organizations', owner, `${G}?uidp.children_of=${q(org)}`, 'groups'],
    ["vera's groups (a and below)", asVera, G, 'groups'],
    ["vera's groups below sub", asVera, `${G}?uidp.descendants_of=${q(sub)}`, 'groups'],
    ['identities below sub', owner, `${I}?uidp.descendants_of=${q(sub)}`, 'identities'],
  ] as never;
  const check = async (expected: number[], what: string) => {
    const got: number[] = [];
    for (const [name, call, path, key] of lists()) {
      const { total, items } = await totals(call, path, key);
      t.is(total, items, `${what}: ${name}: totalCount is what the list holds`);
      got.push(total);
    }
    t.deepEqual(got, expected, what);
  };
  //               all  org  a  sub  b  a/  sub/ org/ vera vsub ids
  await check([6, 5, 3, 2, 0, 1, 2, 2, 4, 2, 0], 'the tree');
  const deep = await group(leaves[0]!, 'deep');
  await check([7, 6, 4, 3, 0, 1, 2, 2, 5, 3, 0], 'a group two levels below sub');
  await group(b, 'b-1');
  await check([8, 7, 4, 3, 1, 1, 2, 2, 5, 3, 0], 'a group below b');
  const id = await srv.ok('POST', I, { parent: sub, identity: { name: 'bot', claimMatch: { issuer: 'https://ci.example', subject: 'bot' } } });
  await check([8, 7, 4, 3, 1, 1, 2, 2, 5, 3, 1], 'an identity in sub (groups unchanged)');
  await srv.ok('DELETE', `${G}/${q(deep)}`);
  await check([7, 6, 3, 2, 1, 1, 2, 2, 4, 2, 1], 'the deep group deleted');
  await srv.ok('DELETE', `${I}/${q(id.uid as string)}`);
  await srv.ok('DELETE', `${G}/${q(leaves[1]!)}`);
  await check([6, 5, 2, 1, 1, 1, 1, 2, 3, 1, 0], 'a leaf and the identity deleted');
});

test('a write drops the cached pages of its scopes and no others: no list is served from before a write that changed it', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const { a, b, sub, leaves, group } = await tree(srv);
  const names = async (path: string) => ((await srv.ok('GET', path)).groups as { name: string }[]).map((g) => g.name);
  const belowA = `${G}?uidp.descendants_of=${q(a)}&order_by=name`;
  const belowB = `${G}?uidp.descendants_of=${q(b)}&order_by=name`;
  const subChildren = `${G}?uidp.children_of=${q(sub)}&order_by=name`;
  const all = `${G}?order_by=name&page_size=200`;
  t.deepEqual(await names(belowA), ['leaf-1', 'leaf-2', 'sub']);
  t.deepEqual(await names(belowB), []);
  t.deepEqual(await names(subChildren), ['leaf-1', 'leaf-2']);
  t.is((await names(all)).length, 6);

  await group(b, 'b-1'); // elsewhere: a's lists stay as they are
  t.deepEqual(await names(belowA), ['leaf-1', 'leaf-2', 'sub']);
  t.deepEqual(await names(belowB), ['b-1']);
  t.true((await names(all)).includes('b-1'));

  // A rename deep inside a: every list that shows it, at every level, shows the new name.
  await srv.ok('PATCH', `${G}/${q(leaves[0]!)}?update_mask=name`, { name: 'leaf-0' });
  t.deepEqual(await names(belowA), ['leaf-0', 'leaf-2', 'sub']);
  t.deepEqual(await names(subChildren), ['leaf-0', 'leaf-2']);
  t.true((await names(all)).includes('leaf-0'));
  t.deepEqual(await names(belowB), ['b-1']);

  await group(leaves[1]!, 'deeper');
  t.deepEqual(await names(belowA), ['deeper', 'leaf-0', 'leaf-2', 'sub']);
  t.deepEqual(await names(subChildren), ['leaf-0', 'leaf-2'], 'a grandchild is not a child');
  await srv.ok('DELETE', `${G}/${q(leaves[0]!)}`);
  t.deepEqual(await names(belowA), ['deeper', 'leaf-2', 'sub']);
  t.deepEqual(await names(subChildren), ['leaf-2']);
  t.false((await names(all)).includes('leaf-0'));
});

// SQLite only: a data dir's schema, and its snapshots.
if (storeUnderTest === 'sqlite') test('a data dir from before the counts were kept is counted once at start: its totals are right', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer({ dataDir });
  const { a } = await tree(first);
  await first.close();
  const old = new Database(join(dataDir, 'pctl.db'));
  old.exec('DROP TABLE resource_counts; PRAGMA user_version = 4');
  old.close();
  const again = await startTestServer({ dataDir });
  t.teardown(() => again.dispose());
  t.is(Number((await again.ok('GET', G)).totalCount), 6);
  t.is(Number((await again.ok('GET', `${G}?uidp.descendants_of=${q(a)}`)).totalCount), 3);
  t.is(Number((await again.ok('GET', `${G}?uidp.children_of=${q(a)}`)).totalCount), 1);
});

if (storeUnderTest === 'sqlite') test('a snapshot restored: the totals are those of the restored data', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const { a, sub, group } = await tree(srv);
  await srv.ok('POST', '/_pctl/snapshots', { name: 'before' });
  for (let i = 0; i < 4; i++) await group(sub, `more-${i}`);
  t.is(Number((await srv.ok('GET', `${G}?uidp.descendants_of=${q(a)}`)).totalCount), 7);
  await srv.ok('POST', '/_pctl/snapshots/before:restore');
  t.is(Number((await srv.ok('GET', `${G}?uidp.descendants_of=${q(a)}`)).totalCount), 3);
  t.is(Number((await srv.ok('GET', G)).totalCount), 6);
});
