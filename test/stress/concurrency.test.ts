// Concurrency: 50 parallel keep-alive clients against a real `pctl serve` child for a bounded
// while, creating and deleting groups, identities and role bindings, patching and listing.
// Then a consistency check: every child under an existing parent, every role binding's
// identity and role present, totalCount equal to the real count (paged through), and the
// data set exactly what the successful writes say it should be. Finally a second `serve`
// on the same data dir must be refused with a clear message.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, G, I, RB, ROLES, cleanup, listAll, parentOf, prng, runServeExpectingExit, startServe, stopServe, tempDir } from './helpers.js';

const WORKERS = 50;
const DURATION_MS = Number(process.env.STRESS_DURATION_MS ?? 10_000);

test.after.always(cleanup);

/** Statuses a well-behaved server may answer when other clients race it. */
const EXPECTED_CONFLICTS = new Set([404, 409, 400]);

test.serial(`${WORKERS} parallel writers and readers for ${DURATION_MS / 1000} s leave a consistent data set; a second serve is refused`, async (t) => {
  const dataDir = tempDir('pctl-stress-conc-');
  const srv = await startServe(dataDir);
  const c = new Client(srv.url, srv.token, WORKERS);
  t.teardown(() => c.close().catch(() => {}));
  const org = (await c.req('GET', `${G}?page_size=1`)).json.groups[0].uid as string;
  const roles = (await c.req('GET', ROLES)).json.roles.map((x: { uid: string }) => x.uid) as string[];

  // What the successful writes say: uid → alive. Identity deletes take their bindings along.
  const groups = new Set<string>([org]);
  const identities = new Set<string>();
  const bindings = new Map<string, string>(); // binding uid → identity uid
  const deletedGroups = new Set<string>();
  const deletedIdentities = new Set<string>();
  const deletedBindings = new Set<string>();
  const counts = new Map<string, number>();
  const unexpected: string[] = [];
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const pick = <T>(r: ReturnType<typeof prng>, s: Iterable<T>): T | undefined => {
    const xs = [...s];
    return xs.length ? xs[r.int(xs.length)] : undefined;
  };
  let seq = 0;
  let ops = 0;
  const stopAt = performance.now() + DURATION_MS;

  const check = (op: string, res: { status: number; text: string; json: { code?: number; details?: { reason?: string }[] } }, allowed: number[] = []) => {
    ops++;
    if (res.status === 200) return bump(`${op} 200`), true;
    const reason = res.json?.details?.[0]?.reason ?? '';
    const ok = allowed.includes(res.status) && EXPECTED_CONFLICTS.has(res.status);
    bump(`${op} ${res.status}${reason ? ` ${reason}` : ''}`);
    if (!ok || typeof res.json?.code !== 'number') unexpected.push(`${op}: ${res.status} ${res.text.slice(0, 300)}`);
    return false;
  };

  const worker = async (w: number) => {
    const r = prng(1000 + w);
    while (performance.now() < stopAt && unexpected.length < 20) {
      const roll = r.int(100);
      try {
        if (roll < 20) {
          const parent = r.chance(0.3) ? org : pick(r, groups) ?? org;
          const res = await c.req('POST', G, { parent, group: { name: `g ${w}.${seq++}`, description: `by worker ${w}` } });
          // 404: the parent was deleted by another client meanwhile.
          if (check('create group', res, [404])) groups.add(res.json.uid);
        } else if (roll < 32) {
          const parent = pick(r, groups) ?? org;
          const n = seq++;
          const res = await c.req('POST', I, { parent, identity: { name: `id ${n}`, claimMatch: { issuer: 'https://issuer.example/conc', subject: `sub-${w}-${n}` } } });
          if (check('create identity', res, [404])) identities.add(res.json.uid);
        } else if (roll < 42) {
          const parent = pick(r, groups) ?? org;
          const identity = pick(r, identities);
          if (!identity) continue;
          const res = await c.req('POST', RB, { parent, roleBinding: { identityUid: identity, roleUid: r.pick(roles) } });
          // 404: group or identity deleted meanwhile; 409: this identity already has this role here.
          // (An identity delete whose answer overtook this one has already taken the binding along.)
          if (check('create roleBinding', res, [404, 409]) && !deletedIdentities.has(identity)) bindings.set(res.json.uid, identity);
        } else if (roll < 50) {
          const uid = pick(r, groups);
          if (!uid) continue;
          const res = await c.req('PATCH', `${G}/${r.chance(0.5) ? uid : encodeURIComponent(uid)}`, { description: `patched by ${w} at ${seq++}` });
          check('patch group', res, [404]);
        } else if (roll < 55) {
          const uid = pick(r, identities);
          if (!uid) continue;
          const res = await c.req('PATCH', `${I}/${uid}?updateMask=name`, { name: `renamed ${seq++}` });
          check('patch identity', res, [404]);
        } else if (roll < 62) {
          const uid = pick(r, groups);
          if (!uid || uid === org) continue;
          const res = await c.req('DELETE', `${G}/${uid}`);
          // 400 FAILED_PRECONDITION: not empty; 404: deleted by another client.
          if (check('delete group', res, [400, 404])) {
            groups.delete(uid);
            deletedGroups.add(uid);
          } else if (res.status === 400 && res.json?.code !== 9) {
            unexpected.push(`delete group: 400 but not FAILED_PRECONDITION: ${res.text}`);
          }
        } else if (roll < 66) {
          const uid = pick(r, identities);
          if (!uid) continue;
          const res = await c.req('DELETE', `${I}/${uid}`);
          if (check('delete identity', res, [404])) {
            identities.delete(uid);
            deletedIdentities.add(uid);
            for (const [b, id] of bindings) if (id === uid) bindings.delete(b);
          }
        } else if (roll < 70) {
          const uid = pick(r, bindings.keys());
          if (!uid) continue;
          const res = await c.req('DELETE', `${RB}/${uid}`);
          if (check('delete roleBinding', res, [404])) {
            bindings.delete(uid);
            deletedBindings.add(uid);
          }
        } else if (roll < 88) {
          // Lists: scoped or not, sorted various ways, one or two pages.
          const path = r.pick([G, G, I, RB]);
          const plural = path === G ? 'groups' : path === I ? 'identities' : 'roleBindings';
          const q = new URLSearchParams({ page_size: String(1 + r.int(60)) });
          if (r.chance(0.4)) q.set('order_by', r.pick(['name', 'name desc', 'created_at desc', 'uid']));
          if (r.chance(0.4)) q.set('uidp.descendants_of', pick(r, groups) ?? org);
          const res = await c.req('GET', `${path}?${q.toString()}`);
          if (check(`list ${plural}`, res) && res.json.nextPageToken) {
            q.set('page_token', res.json.nextPageToken);
            check(`list ${plural} page 2`, await c.req('GET', `${path}?${q.toString()}`));
          }
        } else {
          const uid = pick(r, r.chance(0.5) ? groups : identities);
          if (!uid) continue;
          const res = await c.req('GET', `${groups.has(uid) ? G : I}/${uid}`);
          check('get', res, [404]);
        }
      } catch (e) {
        unexpected.push(`transport: ${(e as Error).message}`);
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  const seconds = (performance.now() - t0) / 1000;
  t.deepEqual(unexpected.slice(0, 10), [], 'no 5xx, no transport error, only the conflicts concurrency explains');
  t.is(srv.child.exitCode, null, 'serve is still running');

  // ---- consistency, after the storm ----
  const all = {
    groups: await listAll(c, G, 'groups', {}, 200),
    identities: await listAll(c, I, 'identities', {}, 200),
    bindings: await listAll(c, RB, 'roleBindings', {}, 200),
  };
  const gSet = new Set(all.groups.items.map((x) => x.uid as string));
  const iSet = new Set(all.identities.items.map((x) => x.uid as string));
  const bSet = new Set(all.bindings.items.map((x) => x.uid as string));
  const roleSet = new Set(roles);
  t.is(gSet.size, all.groups.items.length, 'no group twice across pages');
  t.is(iSet.size, all.identities.items.length, 'no identity twice across pages');
  t.is(bSet.size, all.bindings.items.length, 'no role binding twice across pages');
  t.deepEqual(all.groups.totals, [String(gSet.size)], 'groups: totalCount equals the real count');
  t.deepEqual(all.identities.totals, [String(iSet.size)], 'identities: totalCount equals the real count');
  t.deepEqual(all.bindings.totals, [String(bSet.size)], 'role bindings: totalCount equals the real count');

  const orphanGroups = [...gSet].filter((u) => u !== org && !gSet.has(parentOf(u)!));
  const orphanIdentities = [...iSet].filter((u) => !gSet.has(parentOf(u)!));
  const badBindings = all.bindings.items.filter((b) => !gSet.has(parentOf(b.uid as string)!) || !gSet.has((b.group as { uid: string }).uid)
    || !iSet.has((b.identity as { uid: string }).uid) || !roleSet.has((b.role as { uid: string }).uid) || !(b.role as { name: string }).name || !(b.identity as { name: string }).name);
  t.deepEqual(orphanGroups, [], 'every group under an existing parent');
  t.deepEqual(orphanIdentities, [], 'every identity under an existing group');
  t.deepEqual(badBindings.map((b) => b.uid), [], "every role binding's group, identity and role present");

  // Exactly what the 200s said: created and not deleted (the bootstrap owner and its binding aside).
  const ownerBindings = all.bindings.items.filter((b) => (b.role as { name: string }).name === 'owner' && (b.group as { uid: string }).uid === org);
  const expectGroups = new Set(groups);
  const expectIdentities = new Set([...identities, ...ownerBindings.map((b) => (b.identity as { uid: string }).uid)]);
  const expectBindings = new Set([...bindings.keys(), ...ownerBindings.map((b) => b.uid as string)]);
  const diff = (a: Set<string>, b: Set<string>) => ({ extra: [...a].filter((x) => !b.has(x)).slice(0, 5), missing: [...b].filter((x) => !a.has(x)).slice(0, 5) });
  t.deepEqual(diff(gSet, expectGroups), { extra: [], missing: [] }, 'groups are exactly those created and not deleted');
  t.deepEqual(diff(iSet, expectIdentities), { extra: [], missing: [] }, 'identities are exactly those created and not deleted');
  t.deepEqual(diff(bSet, expectBindings), { extra: [], missing: [] }, 'role bindings are exactly those created and not deleted (nor taken along by their identity)');
  for (const u of deletedGroups) t.false(gSet.has(u));

  // Scoped counts agree with the full listing, for a few subtrees; small pages too.
  const subtrees = [org, ...[...gSet].filter((u) => u !== org).slice(0, 5)];
  for (const root of subtrees) {
    const scoped = await listAll(c, G, 'groups', { 'uidp.descendants_of': root, order_by: 'name desc' }, 7);
    const real = [...gSet].filter((u) => u.startsWith(`${root}/`));
    t.deepEqual(scoped.totals, [String(real.length)], `descendants_of ${root}: totalCount`);
    t.deepEqual(scoped.items.map((x) => x.uid).sort(), real.sort(), `descendants_of ${root}: the same groups`);
    const children = await listAll(c, I, 'identities', { 'uidp.children_of': root }, 5);
    t.deepEqual(children.items.map((x) => x.uid).sort(), [...iSet].filter((u) => parentOf(u) === root).sort(), `children_of ${root}: identities`);
  }

  // ---- a second serve on the same data dir is refused, clearly, and the first keeps going ----
  const second = await runServeExpectingExit(dataDir);
  t.not(second.code, 0, 'the second serve exits non-zero');
  t.regex(second.stderr, /already using/i);
  t.true(second.stderr.includes(String(srv.pid)), 'the message names the pid holding the data dir');
  t.regex(second.stderr, /^error: /m, 'one error line, the CLI way');
  t.notRegex(second.stderr, /\n\s+at /, 'no stack trace');
  t.notRegex(second.stdout, /http:\/\//, 'the second serve never announced a URL');
  t.is(Number.parseInt(readFileSync(join(dataDir, 'serve.pid'), 'utf8'), 10), srv.pid, 'the pid file still names the first serve');
  t.is((await c.req('GET', `${G}/${org}`)).status, 200, 'the first serve still answers');

  t.notRegex(srv.stderr(), /internal error/i, 'serve logged no internal error');
  const stopped = await stopServe(srv);
  t.is(stopped.code, 0, 'serve shuts down cleanly');

  const summary = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}: ${v}`).join(', ');
  t.log(`${ops} requests from ${WORKERS} clients in ${seconds.toFixed(1)} s = ${Math.round(ops / seconds)} ops/s; ${summary}`);
  t.log(`after: ${gSet.size} groups, ${iSet.size} identities, ${bSet.size} role bindings; deleted ${deletedGroups.size} groups, ${deletedIdentities.size} identities, ${deletedBindings.size} bindings; ` +
    `consistency: 0 orphans, totalCount = paged count on every list; second serve: exit ${second.code}, "${second.stderr.trim().split('\n')[0]}"`);
});
