// Several serves on one PostgreSQL database are replicas of one state. Only the postgres
// leg runs this directory (scripts/test-postgres.mjs: a throwaway cluster, PCTL_TEST_DATABASE).
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { rmSync } from 'node:fs';
import { sharedTestDatabase } from '../helpers/postgres.js';
import { startTestServer, request, tempDir, type TestServer } from '../helpers/serve.js';
import { Client, G, RB, cleanup, killHard, listAll, parentOf, startServe, stopServe } from '../stress/helpers.js';

// Serial: each test starts several servers, and the kill test measures a burst.
const pgTest = test.serial;

test.after.always(cleanup);

/** `n` in-process replicas on one fresh database, stopped at the end of the test. */
async function replicas(t: ExecutionContext, n: number): Promise<TestServer[]> {
  const database = await sharedTestDatabase(t);
  const out: TestServer[] = [];
  for (let i = 0; i < n; i++) {
    const srv = await startTestServer({ database });
    t.teardown(() => srv.dispose());
    out.push(srv);
  }
  return out;
}

pgTest('replicas share one organization, owner and signing key: a token one issues, every other accepts', async (t) => {
  const [a, b, c] = await replicas(t, 3);
  t.is(b!.organizationUid, a!.organizationUid);
  t.is(c!.ownerIdentityUid, a!.ownerIdentityUid);
  // The owner token of A, on B and C.
  for (const srv of [b!, c!]) t.is((await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${a!.ownerToken}` })).status, 200);
  // A token B issues for an identity made on A, used on C.
  const viewer = await a!.person('viewer-x', 'viewer', a!.organizationUid);
  const token = await b!.issueToken(viewer.id.uid);
  t.is((await request(c!.url, 'GET', G, undefined, { authorization: `Bearer ${token}` })).status, 200);
});

pgTest('create on A, read on B at once: every write acknowledged by one replica is seen by the next request to another', async (t) => {
  const [a, b] = await replicas(t, 2);
  for (let i = 0; i < 40; i++) {
    const [writer, reader] = i % 2 ? [a!, b!] : [b!, a!];
    const g = await writer.ok('POST', G, { parent: a!.organizationUid, group: { name: `g${i}` } });
    const got = await reader.call('GET', `${G}/${encodeURIComponent(g.uid)}`);
    t.is(got.status, 200, `read ${i} on the other replica`);
    const upd = await reader.call('PATCH', `${G}/${encodeURIComponent(g.uid)}?update_mask=description`, { description: `d${i}` });
    t.is(upd.status, 200, upd.text);
    t.is((await writer.ok('GET', `${G}/${encodeURIComponent(g.uid)}`)).description, `d${i}`);
  }
  const onA = await a!.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(a!.organizationUid)}&page_size=1`);
  const onB = await b!.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(a!.organizationUid)}&page_size=1`);
  t.is(onA.totalCount, '40');
  t.is(onB.totalCount, '40');
});

pgTest('page with A, continue with B: page tokens are honoured by every replica, and the pages join up', async (t) => {
  const [a, b, c] = await replicas(t, 3);
  const org = a!.organizationUid;
  for (let i = 0; i < 25; i++) await [a!, b!, c!][i % 3]!.ok('POST', G, { parent: org, group: { name: `p${String(i).padStart(2, '0')}` } });
  const names: string[] = [];
  let token = '';
  let hop = 0;
  do {
    const srv = [a!, b!, c!][hop++ % 3]!;
    const page = await srv.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(org)}&order_by=name&page_size=4${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    t.is(page.totalCount, '25');
    names.push(...page.groups.map((g: { name: string }) => g.name));
    token = page.nextPageToken ?? '';
  } while (token);
  t.deepEqual(names, Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`));
});

pgTest('caches follow writes made elsewhere: a binding deleted on A stops granting on B; a group deleted on A is gone on B', async (t) => {
  const [a, b] = await replicas(t, 2);
  const team = await a!.ok('POST', G, { parent: a!.organizationUid, group: { name: 'team' } });
  const viewer = await a!.person('v', 'viewer', team.uid);
  const onB = (path: string) => request(b!.url, 'GET', path, undefined, { authorization: `Bearer ${viewer.token}` });
  t.is((await onB(`${G}/${encodeURIComponent(team.uid)}`)).status, 200); // B caches the grant
  const binding = (await a!.ok('GET', `${RB}?uidp.children_of=${encodeURIComponent(team.uid)}`)).roleBindings[0];
  await a!.ok('DELETE', `${RB}/${encodeURIComponent(binding.uid)}`);
  t.is((await onB(`${G}/${encodeURIComponent(team.uid)}`)).status, 403);
  await a!.ok('DELETE', `${G}/${encodeURIComponent(team.uid)}`);
  t.is((await b!.call('GET', `${G}/${encodeURIComponent(team.uid)}`)).status, 404);
});

pgTest('20 clients over 3 replicas: every acknowledged create is on every replica, one role binding per identity and role', async (t) => {
  const servers = await replicas(t, 3);
  const org = servers[0]!.organizationUid;
  const editorRole = await servers[0]!.roleUid('editor');
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await servers[i % 3]!.person(`p${i}`, 'viewer', org)).id.uid);
  const created: string[] = [];
  const bound = new Map<string, number>();
  let next = 0;
  const worker = async (w: number) => {
    const srv = servers[w % 3]!;
    while (next < 300) {
      const i = next++;
      if (i % 10 === 0) {
        // The same four bindings, asked for 30 times over three replicas: one each lands.
        const identityUid = ids[(i / 10) % 4]!;
        const res = await srv.call('POST', RB, { parent: org, roleBinding: { identityUid, roleUid: editorRole } });
        t.true(res.status === 200 || res.json.code === 6, res.text);
        if (res.status === 200) bound.set(identityUid, (bound.get(identityUid) ?? 0) + 1);
        continue;
      }
      const parent = created.length && i % 2 ? created[(i * 7919) % created.length]! : org;
      const res = await srv.call('POST', G, { parent, group: { name: `c${i}` } });
      t.is(res.status, 200, res.text);
      if (res.status === 200) created.push(res.json.uid);
    }
  };
  await Promise.all(Array.from({ length: 20 }, (_, w) => worker(w)));
  t.deepEqual([...bound.values()], [1, 1, 1, 1]);
  for (const srv of servers) {
    const c = new Client(srv.url, srv.ownerToken, 4);
    const { items, totals } = await listAll(c, G, 'groups');
    const bindings = await listAll(c, RB, 'roleBindings', { 'uidp.children_of': org });
    await c.close();
    t.deepEqual(totals, [String(items.length)]);
    const uids = new Set(items.map((g) => g.uid as string));
    t.deepEqual(created.filter((uid) => !uids.has(uid)), [], `acknowledged creates missing on ${srv.url}`);
    for (const uid of uids) t.true(!uid.includes('/') || uids.has(parentOf(uid)!), `orphan ${uid} on ${srv.url}`);
    t.is(bindings.items.filter((b) => (b.role as { uid: string }).uid === editorRole).length, 4);
  }
});

pgTest('deleting a group on A while B creates its child: one of them wins, never an orphan', async (t) => {
  const [a, b] = await replicas(t, 2);
  const outcomes = { deleted: 0, kept: 0 };
  for (let k = 0; k < 30; k++) {
    const g = await a!.ok('POST', G, { parent: a!.organizationUid, group: { name: `race${k}` } });
    const [del, child] = await Promise.all([
      a!.call('DELETE', `${G}/${encodeURIComponent(g.uid)}`),
      b!.call('POST', G, { parent: g.uid, group: { name: 'child' } }),
    ]);
    if (del.status === 200) {
      t.is(child.status, 404, `the group was deleted, yet its child was created: ${child.text}`);
      outcomes.deleted++;
    } else {
      t.is(del.json.code, 9, del.text);
      t.is(child.status, 200, child.text);
      outcomes.kept++;
    }
    const children = await b!.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(g.uid)}`);
    const exists = (await a!.call('GET', `${G}/${encodeURIComponent(g.uid)}`)).status === 200;
    t.is(children.totalCount, exists ? '1' : '0');
  }
  t.log(`delete won ${outcomes.deleted}, create won ${outcomes.kept} of 30 races`);
});

pgTest('kill -9 a replica mid-burst: every acknowledged write is there, and the other replicas keep serving', async (t) => {
  const database = await sharedTestDatabase(t);
  const dirs = [tempDir('pctl-replica-a-'), tempDir('pctl-replica-b-')];
  t.teardown(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
  const victim = await startServe(dirs[0]!, { database });
  const survivor = await startServe(dirs[1]!, { database });
  t.teardown(() => stopServe(survivor).then(() => undefined));
  const cv = new Client(victim.url, victim.token, 10);
  const cs = new Client(survivor.url, survivor.token, 10);
  t.teardown(() => Promise.all([cv.close().catch(() => {}), cs.close()]).then(() => undefined));
  const first = await cs.req('GET', `${G}?page_size=1`);
  t.is(first.status, 200, first.text);
  const org = first.json.groups[0].uid as string;
  const acked: string[] = [];
  let killed = false;
  let next = 0;
  const worker = async (c: Client, isVictim: boolean) => {
    while (next < 600) {
      const i = next++;
      try {
        const res = await c.req('POST', G, { parent: org, group: { name: `k${i}` } });
        if (res.status === 200) acked.push(res.json.uid);
        else t.fail(`${res.status} ${res.text}`);
      } catch {
        if (!(isVictim && killed)) throw new Error(`create k${i} failed without a kill`);
        return;
      }
      if (acked.length === 200 && !killed) {
        killed = true;
        await killHard(victim.child);
      }
    }
  };
  await Promise.all([...Array.from({ length: 10 }, () => worker(cv, true)), ...Array.from({ length: 10 }, () => worker(cs, false))]);
  t.true(killed);
  const { items } = await listAll(cs, G, 'groups');
  const uids = new Set(items.map((g) => g.uid as string));
  const lost = acked.filter((uid) => !uids.has(uid));
  t.deepEqual(lost, [], 'acknowledged creates missing after the kill');
  t.log(`${acked.length} creates acknowledged, the victim killed after 200; all present on the survivor`);
  // A replica started again on the same database catches up and serves the same state.
  const again = await startServe(dirs[0]!, { database });
  t.teardown(() => stopServe(again).then(() => undefined));
  const ca = new Client(again.url, again.token, 2);
  t.is((await listAll(ca, G, 'groups')).items.length, items.length);
  await ca.close();
});

pgTest('replicas started at the same moment bootstrap once: one organization, one owner, one signing key', async (t) => {
  const database = await sharedTestDatabase(t);
  const started = await Promise.all([0, 1, 2].map(() => startTestServer({ database })));
  for (const srv of started) t.teardown(() => srv.dispose());
  t.is(new Set(started.map((s) => s.organizationUid)).size, 1);
  t.is(new Set(started.map((s) => s.ownerIdentityUid)).size, 1);
  const orgs = await started[2]!.ok('GET', `${G}?page_size=10`);
  t.is(orgs.groups.filter((g: { uid: string }) => !g.uid.includes('/')).length, 1, 'one organization');
  const kids = await Promise.all(started.map((s) => request(s.url, 'GET', '/.well-known/jwks.json').then((r) => r.json?.keys?.[0]?.kid as string | undefined)));
  t.is(new Set(kids).size, 1, `one signing key: ${kids.join(', ')}`);
});

pgTest('a replica joining a bootstrapped database does not wait for another replica\'s start', async (t) => {
  const database = await sharedTestDatabase(t);
  const first = await startTestServer({ database });
  t.teardown(() => first.dispose());
  // Another replica in the middle of its start: it holds the start lock.
  const starting = new pg.Client({ connectionString: database });
  await starting.connect();
  t.teardown(() => starting.end());
  await starting.query("SELECT pg_advisory_lock(hashtext('pctl serve ' || current_schema()))");
  const joined = await startTestServer({ database });
  t.teardown(() => joined.dispose());
  t.is(joined.organizationUid, first.organizationUid);
  const made = await first.ok('POST', G, { parent: first.organizationUid, group: { name: 'seen-by-the-joiner' } });
  t.is((await joined.call('GET', `${G}/${encodeURIComponent(made.uid)}`)).status, 200);
});

pgTest('a database that fails under a running serve: 503, code 14, Retry-After, nothing half-written; never a 500', async (t) => {
  const database = await sharedTestDatabase(t);
  const srv = await startTestServer({ database });
  t.teardown(() => srv.dispose());
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'before' } });
  // Take the tables away underneath it (the schema the URL selects).
  const schema = /search_path=([a-z0-9_]+)/.exec(decodeURIComponent(database))![1]!;
  const admin = new pg.Client({ connectionString: process.env.PCTL_TEST_DATABASE });
  await admin.connect();
  await admin.query(`ALTER SCHEMA ${schema} RENAME TO ${schema}_away`);
  try {
    for (const [method, body] of [['GET', undefined], ['POST', { parent: srv.organizationUid, group: { name: 'during' } }]] as const) {
      const res = await srv.call(method, G, body);
      t.is(res.status, 503, `${method}: ${res.text}`);
      t.is(res.json.code, 14);
      t.is(res.headers.get('retry-after'), '1');
      t.regex(res.json.message, /database failed .*nothing was written/);
    }
  } finally {
    await admin.query(`ALTER SCHEMA ${schema}_away RENAME TO ${schema}`);
    await admin.end();
  }
  // Back: the write that failed is not there, the one before is.
  const names = (await srv.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(srv.organizationUid)}`)).groups.map((g: { name: string }) => g.name);
  t.deepEqual(names, ['before']);
});

pgTest('a replica behind the log\'s pruned start loads everything again, and misses nothing', async (t) => {
  const database = await sharedTestDatabase(t);
  const [a, b] = [await startTestServer({ database }), await startTestServer({ database })];
  t.teardown(() => Promise.all([a.dispose(), b.dispose()]).then(() => undefined));
  const org = a.organizationUid;
  t.is((await b.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(org)}`)).totalCount, '0');
  const made: string[] = [];
  for (let i = 0; i < 5; i++) made.push((await a.ok('POST', G, { parent: org, group: { name: `late${i}` } })).uid);
  // What pruning does once the log is long: the entries B has not read are gone, all but the last.
  const schema = /search_path=([a-z0-9_]+)/.exec(decodeURIComponent(database))![1]!;
  const admin = new pg.Client({ connectionString: process.env.PCTL_TEST_DATABASE });
  await admin.connect();
  try {
    await admin.query(`DELETE FROM ${schema}.changes WHERE seq < (SELECT max(seq) FROM ${schema}.changes)`);
  } finally {
    await admin.end();
  }
  const seen = await b.ok('GET', `${G}?uidp.children_of=${encodeURIComponent(org)}&page_size=10`);
  t.is(seen.totalCount, '5');
  t.deepEqual(seen.groups.map((g: { uid: string }) => g.uid).sort(), [...made].sort());
  // And it follows the log from there on.
  const next = await a.ok('POST', G, { parent: org, group: { name: 'after' } });
  t.is((await b.call('GET', `${G}/${encodeURIComponent(next.uid)}`)).status, 200);
});

pgTest('--public-url: replicas behind a load balancer issue tokens in its name, and each accepts the others\'', async (t) => {
  const database = await sharedTestDatabase(t);
  const publicUrl = 'https://pctl.example.test';
  const [a, b] = [await startTestServer({ database, publicUrl }), await startTestServer({ database, publicUrl })];
  t.teardown(() => Promise.all([a.dispose(), b.dispose()]).then(() => undefined));
  const disc = await request(b.url, 'GET', '/.well-known/openid-configuration');
  t.is(disc.json.issuer, publicUrl);
  t.is(JSON.parse(Buffer.from(a.ownerToken.split('.')[1]!, 'base64url').toString()).iss, publicUrl);
  const viewer = await a.person('behind-lb', 'viewer', a.organizationUid);
  t.is((await request(b.url, 'GET', G, undefined, { authorization: `Bearer ${viewer.token}` })).status, 200);
  t.is((await request(a.url, 'GET', G, undefined, { authorization: `Bearer ${await b.issueToken(viewer.id.uid)}` })).status, 200);
});
