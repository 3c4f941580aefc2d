// When the disk fails under serve (full, I/O error), a write is 503 UNAVAILABLE saying the
// storage failed, not a bare 500; nothing is half-written; reads go on. And --log never
// writes a token that came in the URL.
import test from 'ava';
import { startTestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

test('disk full: a create is 503, code 14, "storage failed"; nothing of it is stored; reads still work', async (t) => {
  const logged: string[] = [];
  const srv = await startTestServer({ log: (line) => logged.push(line) });
  t.teardown(() => srv.dispose());
  // A database that may not grow by a single page behaves as a full disk does (SQLITE_FULL).
  const pages = srv.store.db.pragma('page_count', { simple: true }) as number;
  srv.store.db.pragma(`max_page_count = ${pages}`);

  let failed: Awaited<ReturnType<typeof srv.call>> | undefined;
  const created: string[] = [];
  for (let i = 0; i < 5000 && !failed; i++) {
    const res = await srv.call('POST', G, { parent: srv.organizationUid, group: { name: `filler-${i}`, description: 'x'.repeat(2000) } });
    if (res.status === 200) created.push(res.json.name);
    else failed = res;
  }
  t.truthy(failed, 'the database never filled up');
  t.is(failed!.status, 503);
  t.is(failed!.json.code, 14);
  t.is(failed!.json.status, 'UNAVAILABLE');
  t.regex(failed!.json.message, /storage failed \(the disk is full\); nothing was changed/);
  t.is(failed!.headers.get('retry-after'), '5');
  t.like(failed!.json.details[0], { reason: 'STORAGE_UNAVAILABLE', metadata: { cause: 'SQLITE_FULL' } });
  t.true(logged.includes('storage error: database or disk is full (SQLITE_FULL)'), 'the operator sees the cause in the log');

  // Every acknowledged create is there, the refused one is not, and reads are served.
  const list = await srv.call('GET', `${G}?uidp.children_of=${srv.organizationUid}&page_size=200&order_by=name`);
  t.is(list.status, 200);
  const names = (list.json.groups as { name: string }[]).map((g) => g.name);
  t.deepEqual(names.filter((n) => n.startsWith('filler-')).sort(), [...created].sort());
  t.is(list.json.totalCount, String(names.length));
  t.is((await srv.call('GET', `${G}/${srv.organizationUid}`)).status, 200);

  // Space again: writes work again.
  srv.store.db.pragma(`max_page_count = ${pages * 100}`);
  t.is((await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'after' } })).status, 200);
});

test('--log masks a token sent in the query string or the path', async (t) => {
  const logged: string[] = [];
  const srv = await startTestServer({ log: (line) => logged.push(line) });
  t.teardown(() => srv.dispose());
  const jwt = srv.ownerToken;
  await srv.call('GET', `${G}?access_token=${jwt}&page_size=1`);
  await srv.call('GET', `${G}/${jwt}`);
  const requestLines = logged.filter((l) => l.startsWith('GET '));
  t.is(requestLines.length, 2);
  t.true(logged.every((l) => !l.includes(jwt.slice(20))), logged.join('\n'));
  t.regex(requestLines[0]!, /^GET \/iam\/v2\/groups\?access_token=\*\*\*&page_size=1 400 /);
  t.regex(requestLines[1]!, /^GET \/iam\/v2\/groups\/eyJ\*\*\* 404 /);
});
