// The write rules under concurrency across serve processes: two `pctl serve --database` on one
// PostgreSQL database race deletes of a group against creates of its children and of role
// bindings in it, and the same binding against itself. Whichever wins, the rules hold: no
// orphan (a child or binding whose group is gone) and no duplicate binding, on either replica.
// Only the postgres leg runs this directory (scripts/test-postgres.mjs).
import test from 'ava';
import { rmSync } from 'node:fs';
import { sharedTestDatabase } from '../helpers/postgres.js';
import { Client, G, I, RB, ROLES, cleanup, listAll, parentOf, startServe, stopServe, tempDir } from '../stress/helpers.js';

test.after.always(cleanup);

const ROUNDS = 15;

test.serial('two serve processes race deletes against child and binding creates, and a binding against itself: no orphan, no duplicate', async (t) => {
  const database = await sharedTestDatabase(t);
  const dirs = [tempDir('pctl-race-a-'), tempDir('pctl-race-b-')];
  t.teardown(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
  const a = await startServe(dirs[0]!, { database });
  t.teardown(() => stopServe(a).then(() => undefined));
  const b = await startServe(dirs[1]!, { database });
  t.teardown(() => stopServe(b).then(() => undefined));
  const ca = new Client(a.url, a.token, 4);
  const cb = new Client(b.url, b.token, 4);
  t.teardown(() => Promise.all([ca.close(), cb.close()]).then(() => undefined));

  const ok = async (c: Client, method: string, path: string, body?: unknown) => {
    const res = await c.req(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const org = (await ok(ca, 'GET', `${G}?page_size=1`)).groups[0].uid as string;
  const viewerRole = (await ok(ca, 'GET', `${ROLES}?name=viewer`)).roles[0].uid as string;
  const editorRole = (await ok(ca, 'GET', `${ROLES}?name=editor`)).roles[0].uid as string;
  const person = await ok(ca, 'POST', I, { parent: org, identity: { name: 'racer', claimMatch: { issuer: 'https://issuer.test', subject: 'racer' } } });
  const tally = { childDeleteWon: 0, childCreateWon: 0, bindingDeleteWon: 0, bindingCreateWon: 0, sameBindingRaces: 0 };

  for (let k = 0; k < ROUNDS; k++) {
    // A group deleted on A while B creates a child in it.
    const g1 = await ok(ca, 'POST', G, { parent: org, group: { name: `child-race-${k}` } });
    const [del1, child] = await Promise.all([
      ca.req('DELETE', `${G}/${encodeURIComponent(g1.uid)}`),
      cb.req('POST', G, { parent: g1.uid, group: { name: 'child' } }),
    ]);
    if (del1.status === 200) {
      t.is(child.status, 404, `the group was deleted, yet its child was created: ${child.text}`);
      tally.childDeleteWon++;
    } else {
      t.is(del1.json?.code, 9, del1.text);
      t.is(child.status, 200, child.text);
      tally.childCreateWon++;
    }

    // A group deleted on B while A binds a role in it.
    const g2 = await ok(ca, 'POST', G, { parent: org, group: { name: `binding-race-${k}` } });
    const [bind, del2] = await Promise.all([
      ca.req('POST', RB, { parent: g2.uid, roleBinding: { identityUid: person.uid, roleUid: viewerRole } }),
      cb.req('DELETE', `${G}/${encodeURIComponent(g2.uid)}`),
    ]);
    if (del2.status === 200) {
      t.is(bind.status, 404, `the group was deleted, yet a binding was made in it: ${bind.text}`);
      tally.bindingDeleteWon++;
    } else {
      t.is(del2.json?.code, 9, del2.text);
      t.is(bind.status, 200, bind.text);
      tally.bindingCreateWon++;
    }

    // The same binding asked for on both at once: one is made, the other is ALREADY_EXISTS.
    const [x, y] = await Promise.all([
      ca.req('POST', RB, { parent: org, roleBinding: { identityUid: person.uid, roleUid: editorRole } }),
      cb.req('POST', RB, { parent: org, roleBinding: { identityUid: person.uid, roleUid: editorRole } }),
    ]);
    t.deepEqual([x.status, y.status].sort(), [200, 409], `${x.text} / ${y.text}`);
    const made = x.status === 200 ? x.json : y.json;
    tally.sameBindingRaces++;
    await ok(k % 2 ? ca : cb, 'DELETE', `${RB}/${encodeURIComponent(made.uid as string)}`);
  }
  t.log(JSON.stringify(tally));

  // Both replicas hold the same state, with no orphan and no duplicate binding.
  for (const c of [ca, cb]) {
    const groups = await listAll(c, G, 'groups');
    const uids = new Set(groups.items.map((g) => g.uid as string));
    for (const uid of uids) t.true(!uid.includes('/') || uids.has(parentOf(uid)!), `orphan group ${uid} on ${c.url}`);
    const bindings = await listAll(c, RB, 'roleBindings');
    const seen = new Set<string>();
    for (const binding of bindings.items) {
      const uid = binding.uid as string;
      t.true(uids.has(parentOf(uid)!), `orphan binding ${uid} on ${c.url}`);
      const key = `${parentOf(uid)} ${(binding.identity as { uid: string }).uid} ${(binding.role as { uid: string }).uid}`;
      t.false(seen.has(key), `duplicate binding ${key} on ${c.url}`);
      seen.add(key);
    }
    t.is(bindings.items.filter((x) => (x.role as { uid: string }).uid === viewerRole && (x.identity as { uid: string }).uid === person.uid).length, tally.bindingCreateWon);
    t.is(groups.items.filter((x) => x.name === 'child').length, tally.childCreateWon);
  }
});
