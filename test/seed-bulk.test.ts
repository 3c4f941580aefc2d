// A large seed loads as a bulk load (the list indexes built after its rows): its lists page in
// order with exact totals; a bulk load that fails leaves nothing behind, its indexes included.
import test from 'ava';
import { rmSync } from 'node:fs';
import { systemRandom } from '../src/server/base/random.js';
import { parseSeedText, type SeedDocument, type SeedGroup } from '../src/server/data/seed.js';
import { ListEngine } from '../src/server/store/list.js';
import { insertGroups, startTestServer, tempDir, tempStore } from './helpers/serve.js';

/** An organization of `teams` teams of `perTeam` groups each (past the bulk-load threshold when large). */
function bigSeed(teams: number, perTeam: number): SeedDocument {
  const groups: SeedGroup[] = Array.from({ length: teams }, (_, i) => ({
    name: `team-${i}`,
    groups: Array.from({ length: perTeam }, (__, k) => ({ name: `g-${String((k * 7919) % perTeam).padStart(5, '0')}` })),
  }));
  return { organizations: [{ name: 'big', groups }] };
}

test('a seed of 6,000 groups: every list pages in order with its exact total, and the data dir serves again after a restart', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // Read from JSON text, as a generated seed file is.
  const seed = await parseSeedText(JSON.stringify(bigSeed(4, 1500)));
  let srv = await startTestServer({ dataDir, seed });
  const team = (await srv.ok('GET', '/iam/v2/groups?name=team-2')).groups[0].uid as string;
  const check = async () => {
    t.is(Number((await srv.ok('GET', '/iam/v2/groups?page_size=1')).totalCount), 1 + 4 + 6000);
    const names: string[] = [];
    let token = '';
    do {
      const page = await srv.ok('GET', `/iam/v2/groups?uidp.descendants_of=${encodeURIComponent(team)}&order_by=name%20desc&page_size=200${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
      t.is(Number(page.totalCount), 1500);
      names.push(...(page.groups as { name: string }[]).map((g) => g.name));
      token = page.nextPageToken as string;
    } while (token);
    t.deepEqual(names, Array.from({ length: 1500 }, (_, k) => `g-${String(1499 - k).padStart(5, '0')}`));
  };
  await check();
  await srv.close();
  srv = await startTestServer({ dataDir });
  t.teardown(() => srv.close());
  await check();
});

test('a bulk load that fails commits nothing: its rows are gone and the lists read through their indexes as before', async (t) => {
  const { store } = tempStore(t);
  store.setMeta('page_token_key', 'ab'.repeat(32)); // what ListEngine.ensureTokenKey() writes at a serve's start
  const lists = new ListEngine(store, Date.now, systemRandom);
  await store.write(() => insertGroups(store, 'org', 3, (i) => `kept-${i}`));
  const failed = store.write(() => store.bulkLoad(() => {
    insertGroups(store, 'org', 2000, (i) => `lost-${i}`);
    throw new Error('a rule refused the last entry');
  }));
  await t.throwsAsync(failed, { message: 'a rule refused the last entry' });
  for (const order of ['name', 'createTime desc', 'updateTime', 'uid']) {
    const page = lists.list(new URLSearchParams({ order_by: order, 'uidp.descendants_of': 'org' }), { kind: 'group' });
    t.is(page.totalCount, 3, order);
    t.deepEqual(page.items.map((g) => g.name).sort(), ['kept-0', 'kept-1', 'kept-2'], order);
  }
});
