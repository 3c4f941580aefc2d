// Snapshots and the live reset of a running serve, through its control API as the owner:
// save, list, restore and delete; a restore is one write of the group-commit queue (writes
// before it are replaced, writes after it land on top, nothing in between); caches, the owner
// token and the issuer URL follow it; reset goes back to the data dir's first bootstrap.
import test from 'ava';
import { rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../src/server/store/sqlite.js';
import { records } from '../src/server/domain/kinds/index.js';
import { newChildUid, timestamp } from '../src/server/domain/records.js';
import { systemRandom } from '../src/server/base/random.js';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';

/** Every group, identity, role and role binding the owner can see, as the API sends them. */
async function dump(srv: TestServer): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [key, path] of [['groups', G], ['identities', I], ['roles', '/iam/v2/roles'], ['roleBindings', RB]] as const) {
    const page = await srv.ok('GET', `${path}?page_size=200&order_by=uid`);
    // lastSeenTime moves with every request of its identity (the owner's): not data under test.
    out[key] = (page[key] as Record<string, unknown>[]).map(({ lastSeenTime: _seen, ...rest }) => rest);
    out[`${key}Count`] = [page.totalCount];
  }
  return out;
}

const names = async (srv: TestServer) => ((await srv.ok('GET', `${G}?page_size=200`)).groups as { name: string }[]).map((g) => g.name).sort();

test('save, list, restore: the data comes back exactly; files 0600 in a 0700 dir; .initial is not listed', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team', description: 'before' } });
  const alice = await srv.person('alice', 'viewer', team.uid);
  const before = await dump(srv);

  const saved = await srv.ok('POST', '/_pctl/snapshots', { name: 'base' });
  t.like(saved, { name: 'base' });
  t.true(saved.sizeBytes > 0);
  t.regex(saved.createTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.deepEqual((await srv.ok('GET', '/_pctl/snapshots')).snapshots, [saved]);
  const dir = join(srv.dataDir, 'snapshots');
  t.is(statSync(dir).mode & 0o777, 0o700);
  t.is(statSync(join(dir, 'base.db')).mode & 0o777, 0o600);
  t.is(statSync(join(dir, '.initial.db')).mode & 0o777, 0o600);

  // Changes of every kind after the snapshot: a create, an update, a delete.
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'later' } });
  await srv.ok('PATCH', `${G}/${team.uid}`, { description: 'after' });
  const binding = (await srv.ok('GET', `${RB}?uidp.children_of=${team.uid}`)).roleBindings[0];
  t.is((await srv.call('DELETE', `${RB}/${binding.uid}`)).status, 200);
  t.notDeepEqual(await dump(srv), before);

  t.deepEqual(await srv.ok('POST', '/_pctl/snapshots/base:restore'), saved);
  t.deepEqual(await dump(srv), before);
  t.is((await alice.as('GET', `${G}/${team.uid}`)).status, 200, "alice's binding is back, and so is what it grants");

  t.deepEqual(await srv.ok('DELETE', '/_pctl/snapshots/base'), {});
  t.deepEqual((await srv.ok('GET', '/_pctl/snapshots')).snapshots, []);
  t.is((await srv.call('DELETE', '/_pctl/snapshots/base')).json.code, 5);
});

test('names: a name that is no safe file name is code 3 on `name`; an unknown one 5; an existing one 6 unless overwrite', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  for (const name of ['', '.initial', '../escape', 'a/b', 'UPPER', 'a b', '-dash-first', 'x'.repeat(65), 7, null]) {
    const res = await srv.call('POST', '/_pctl/snapshots', { name });
    t.is(res.status, 400, `${JSON.stringify(name)}: ${res.text}`);
    t.is(res.json.code, 3);
    t.deepEqual(res.json.details.find((d: { fieldViolations?: unknown }) => d.fieldViolations).fieldViolations.map((v: { field: string }) => v.field), ['name']);
  }
  // In the path too, percent-encoded or not: never a file outside the snapshots dir, never the initial state by name.
  for (const path of ['/_pctl/snapshots/..%2Fpctl:restore', '/_pctl/snapshots/.initial:restore', '/_pctl/snapshots/%2E%2E:restore']) {
    const res = await srv.call('POST', path);
    t.is(res.json.code, 3, path);
  }
  t.is((await srv.call('POST', '/_pctl/snapshots/.initial:restore')).json.message, 'Invalid argument: name: must match ^[a-z0-9][a-z0-9._-]{0,63}$: 1 to 64 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit');
  t.is((await srv.call('DELETE', '/_pctl/snapshots/.initial')).json.code, 3);
  t.is((await srv.call('POST', '/_pctl/snapshots', { name: 'ok', overwrite: 'yes' })).json.code, 3);

  const missing = await srv.call('POST', '/_pctl/snapshots/nope:restore');
  t.is(missing.status, 404);
  t.is(missing.json.message, 'Snapshot not found: nope');

  const first = await srv.ok('POST', '/_pctl/snapshots', { name: 'v1.0_final-2' });
  const again = await srv.call('POST', '/_pctl/snapshots', { name: 'v1.0_final-2' });
  t.is(again.status, 409);
  t.is(again.json.code, 6);
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'grown' } });
  const replaced = await srv.ok('POST', '/_pctl/snapshots', { name: 'v1.0_final-2', overwrite: true });
  t.is(replaced.name, first.name);
  await srv.ok('POST', '/_pctl/snapshots/v1.0_final-2:restore');
  t.true((await names(srv)).includes('grown'), 'the overwritten snapshot holds the newer data');
});

test('a restore is one write in the group-commit queue: writes queued before it are replaced, writes after it land on top, a failing one after it undoes nothing', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await srv.ok('POST', '/_pctl/snapshots', { name: 'base' });
  const { store } = srv;
  const group = (name: string) => {
    const t0 = timestamp(Date.now());
    return records.group({ uid: newChildUid(systemRandom, srv.organizationUid), parent: srv.organizationUid, name, createTime: t0 });
  };
  const file = join(srv.dataDir, 'snapshots', 'base.db');
  // Queued in one turn of the event loop: one batch, in this order.
  const before = store.write(() => store.insert(group('queued-before')));
  const restore = store.replaceWith(file, ['page_token_key']);
  const after = store.write(() => store.insert(group('queued-after')));
  const failing = store.write(() => {
    store.insert(group('rolled-back'));
    throw new Error('this write fails');
  });
  await Promise.all([before, restore, after]);
  await t.throwsAsync(failing, { message: 'this write fails' });
  t.deepEqual(await names(srv), ['local', 'queued-after']);
});

test('restore while creates are in flight: the data is the snapshot plus some of the creates, never a half state', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const kept = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'kept' } });
  await srv.ok('POST', '/_pctl/snapshots', { name: 'base' });
  const snapshot = await dump(srv);
  const gone = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'gone' } });

  // Pairs of creates, below the organization (which the snapshot has) and below `gone` (which
  // it has not). The restore is sent once the first pairs are answered, while the rest of the
  // early ones are still in flight, with more following it.
  const create = (parent: string, name: string) => srv.call('POST', G, { parent, group: { name } });
  const sendPairs = (from: number, n: number) => Array.from({ length: n }, (_, i) => Promise.all([create(srv.organizationUid, `c${from + i}`), create(gone.uid, `d${from + i}`)]));
  const answeredFirst = await Promise.all(sendPairs(0, 3));
  const early = sendPairs(3, 12);
  const restoring = srv.call('POST', '/_pctl/snapshots/base:restore');
  const late = sendPairs(15, 10);
  const restored = await restoring;
  t.is(restored.status, 200, restored.text);
  const pairs = [...answeredFirst, ...(await Promise.all([...early, ...late]))];
  const belowOrganization = pairs.map(([c]) => c);
  const belowGone = pairs.map(([, d]) => d);
  for (const res of belowOrganization) t.is(res.status, 200, res.text);
  for (const res of belowGone) t.true(res.status === 200 || res.json.code === 5, res.text);

  const after = await dump(srv);
  const byUid = new Map((after.groups as { uid: string; name: string }[]).map((g) => [g.uid, g]));
  // Everything of the snapshot is there, as it was.
  for (const g of snapshot.groups as { uid: string }[]) t.deepEqual(byUid.get(g.uid), g);
  t.deepEqual(after.identities, snapshot.identities);
  t.deepEqual(after.roleBindings, snapshot.roleBindings);
  // `gone` is not, nor is anything below it: a create below it either committed before the
  // restore (and was replaced) or came after it and found no parent.
  t.false(byUid.has(gone.uid));
  t.false([...byUid.values()].some((g) => g.name.startsWith('d')), 'nothing below a group the snapshot does not hold');
  // A create that is there is exactly what its answer said; the others were replaced.
  const made = belowOrganization.map((res) => res.json as { uid: string; name: string });
  const present = made.filter((g) => byUid.has(g.uid));
  for (const g of present) t.deepEqual(byUid.get(g.uid), g);
  for (const [c] of answeredFirst) t.false(byUid.has(c.json.uid), 'a create answered before the restore was sent is replaced');
  t.log(`${present.length} of ${made.length} creates below the organization landed after the restore; ${belowGone.filter((r) => r.status === 404).length} below gone found no parent`);
  t.is(after.groupsCount![0], String(snapshot.groups!.length + present.length), 'totalCount counts what is there');
  t.true(byUid.has(kept.uid));
});

test('caches follow a restore: a token of an identity made since is refused, a binding deleted since grants again, counts are the snapshot\'s', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  const bob = await srv.person('bob', 'viewer', team.uid);
  await srv.ok('POST', '/_pctl/snapshots', { name: 'base' });
  const countBefore = (await srv.ok('GET', `${G}?page_size=1`)).totalCount;

  const carol = await srv.person('carol', 'viewer', team.uid);
  t.is((await carol.as('GET', `${G}/${team.uid}`)).status, 200);
  const bobsBinding = (await srv.ok('GET', `${RB}?uidp.children_of=${team.uid}`)).roleBindings.find((b: { identity: { uid: string } }) => b.identity.uid === bob.id.uid);
  await srv.ok('DELETE', `${RB}/${bobsBinding.uid}`);
  t.is((await bob.as('GET', `${G}/${team.uid}`)).status, 403);
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'counted' } });
  t.not((await srv.ok('GET', `${G}?page_size=1`)).totalCount, countBefore);

  await srv.ok('POST', '/_pctl/snapshots/base:restore');
  t.is((await carol.as('GET', `${G}/${team.uid}`)).status, 401, 'carol is gone, and the token lookup knows it');
  t.is((await bob.as('GET', `${G}/${team.uid}`)).status, 200, "bob's binding is back, and the grants know it");
  t.is((await srv.ok('GET', `${G}?page_size=1`)).totalCount, countBefore);
});

test('the owner token keeps working after restoring a snapshot saved by a serve on another port: identities follow the issuer URL', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startTestServer({ dataDir });
  const team = await first.ok('POST', G, { parent: first.organizationUid, group: { name: 'team' } });
  const dave = await first.person('dave', 'viewer', team.uid);
  await first.ok('POST', '/_pctl/snapshots', { name: 'base' });
  await first.dispose();

  const second = await startTestServer({ dataDir });
  t.teardown(() => second.dispose());
  t.not(second.url, first.url);
  await second.ok('POST', '/_pctl/snapshots/base:restore');
  const owner = await second.ok('GET', `${I}/${second.ownerIdentityUid}`);
  t.is(owner.claimMatch.issuer, second.url);
  t.is((await second.ok('GET', `${I}/${dave.id.uid}`)).claimMatch.issuer, second.url);
  t.is(second.store.getMeta('issuer'), second.url);
  const token = await second.issueToken(dave.id.uid);
  t.is((await request(second.url, 'GET', `${G}/${team.uid}`, undefined, { authorization: `Bearer ${token}` })).status, 200);
  t.is((await second.call('GET', '/_pctl/snapshots')).status, 200, 'the owner is still the owner');
});

test('reset: back to the seed the data dir was created with (the same uids), after any changes and restores; the owner token keeps working', async (t) => {
  const seed = {
    organizations: [{ name: 'acme', groups: [{ name: 'platform', identities: [{ name: 'ci', claimMatch: { issuer: 'https://ci.example.com', subject: 'deploy' } }] }] }],
    advisories: [{ advisoryId: 'CGA-2026-0001', artifactName: 'nginx' }],
  };
  const srv = await startTestServer({ seed });
  t.teardown(() => srv.dispose());
  const initial = await dump(srv);
  const acme = (initial.groups as { uid: string; name: string }[]).find((g) => g.name === 'acme')!;
  await srv.ok('POST', G, { parent: acme.uid, group: { name: 'extra' } });
  await srv.ok('POST', '/_pctl/snapshots', { name: 'grown' });
  await srv.ok('DELETE', `${I}/${(initial.identities as { uid: string; name: string }[]).find((i) => i.name === 'ci')!.uid}`);

  t.deepEqual(await srv.ok('POST', '/_pctl/reset'), {});
  t.deepEqual(await dump(srv), initial);
  await srv.ok('POST', '/_pctl/snapshots/grown:restore');
  await srv.ok('POST', '/_pctl/reset');
  t.deepEqual(await dump(srv), initial);
  t.is((await srv.ok('GET', '/vulnerabilities/v2/advisories')).advisories.length, 1);
  t.deepEqual((await srv.ok('GET', '/_pctl/snapshots')).snapshots.map((s: { name: string }) => s.name), ['grown'], 'snapshots stay');
});

test('a data dir created before snapshots: reset is 9 FAILED_PRECONDITION, saying so and what to run instead', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await (await startTestServer({ dataDir })).dispose();
  rmSync(join(dataDir, 'snapshots'), { recursive: true });
  const srv = await startTestServer({ dataDir });
  t.teardown(() => srv.dispose());
  const res = await srv.call('POST', '/_pctl/reset');
  t.is(res.status, 400);
  t.is(res.json.code, 9);
  t.regex(res.json.message, /created before pctl serve kept its initial state .*pctl serve reset --data /);
  t.is(res.json.details.find((d: { violations?: unknown }) => d.violations).violations[0].type, 'NO_INITIAL_SNAPSHOT');
});

test('a snapshot that is not a pctl database of this schema is refused with 9, and nothing changes', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await srv.ok('POST', '/_pctl/snapshots', { name: 'good' });
  const dir = join(srv.dataDir, 'snapshots');
  writeFileSync(join(dir, 'junk.db'), 'not a database, not even close '.repeat(200));
  copyFileSync(join(dir, 'good.db'), join(dir, 'future.db'));
  const future = new Database(join(dir, 'future.db'));
  const ours = future.pragma('user_version', { simple: true }) as number;
  future.pragma('user_version = 99');
  future.close();
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'stays' } });
  const before = await dump(srv);
  for (const [name, why] of [['junk', /it is not a pctl database/], ['future', new RegExp(`it has schema version 99, this pctl ${ours};`)]] as const) {
    const res = await srv.call('POST', `/_pctl/snapshots/${name}:restore`);
    t.is(res.json.code, 9, res.text);
    t.regex(res.json.message, why);
    t.regex(res.json.message, /nothing was changed$/);
  }
  t.deepEqual(await dump(srv), before);
  t.is((await srv.call('POST', '/_pctl/snapshots/good:restore')).status, 200, 'the store is fine after refusing');
});

test('a snapshot of an earlier schema with the same tables (only an index differs) restores', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'kept' } });
  await srv.ok('POST', '/_pctl/snapshots', { name: 'now' });
  const saved = await dump(srv);
  const dir = join(srv.dataDir, 'snapshots');
  copyFileSync(join(dir, 'now.db'), join(dir, 'earlier.db'));
  const earlier = new Database(join(dir, 'earlier.db'));
  earlier.exec('DROP INDEX resources_alt; CREATE INDEX resources_alt ON resources (kind, alt_key); PRAGMA user_version = 3');
  earlier.close();
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'gone' } });
  const res = await srv.call('POST', '/_pctl/snapshots/earlier:restore');
  t.is(res.status, 200, res.text);
  t.deepEqual(await dump(srv), saved);
});

test('a save while creates are in flight is one consistent state: a whole database, every group with its parent', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const parents = await Promise.all(Array.from({ length: 5 }, (_, i) => srv.ok('POST', G, { parent: srv.organizationUid, group: { name: `p${i}` } })));
  const creates = parents.flatMap((p, i) => Array.from({ length: 8 }, (_, j) => srv.call('POST', G, { parent: p.uid, group: { name: `c${i}-${j}` } })));
  const saving = srv.ok('POST', '/_pctl/snapshots', { name: 'busy' });
  await Promise.all([saving, ...creates]);
  const db = new Database(join(srv.dataDir, 'snapshots', 'busy.db'), { readonly: true });
  t.teardown(() => db.close());
  t.is(db.pragma('integrity_check', { simple: true }), 'ok');
  t.is(db.pragma('journal_mode', { simple: true }), 'delete', 'one standalone file, no -wal beside it');
  const orphans = db.prepare("SELECT count(*) AS n FROM resources r WHERE parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM resources p WHERE p.uid = r.parent)").get() as { n: number };
  t.is(orphans.n, 0);
  const groups = (db.prepare("SELECT count(*) AS n FROM resources WHERE kind = 'group'").get() as { n: number }).n;
  t.true(groups >= 6 && groups <= 6 + 40, String(groups));
});

test("the control endpoints are the data dir's owner's: another identity, even an owner of the organization, gets 403 on each", async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  await srv.ok('POST', '/_pctl/snapshots', { name: 'base' });
  const admin = await srv.person('admin', 'owner', srv.organizationUid);
  for (const [method, path, body] of [
    ['GET', '/_pctl/snapshots'],
    ['POST', '/_pctl/snapshots', { name: 'mine' }],
    ['POST', '/_pctl/snapshots/base:restore'],
    ['DELETE', '/_pctl/snapshots/base'],
    ['POST', '/_pctl/reset'],
  ] as const) {
    const res = await admin.as(method, path, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.json.code, 7);
  }
  t.deepEqual((await srv.ok('GET', '/_pctl/snapshots')).snapshots.map((s: { name: string }) => s.name), ['base']);
});
