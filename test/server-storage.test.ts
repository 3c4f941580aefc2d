// The server's storage fails (a full disk, an I/O error): the client gets a 503, code 14,
// that says so; nothing is half-written, and reads go on being served. A full disk is made
// real with `PRAGMA max_page_count` on serve's own database: a write that needs one more
// page fails with SQLITE_FULL exactly where a full disk fails it.
import test from 'ava';
import Database from '../src/server/store/sqlite.js';
import { storageFailure } from '../src/server/store/failure.js';
import { DESCRIPTION_MAX } from '../src/api/schemas.js';
import { startTestServer, type ApiResponse, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
/** Longer than a page (4096 bytes): storing it needs a new page. */
const BIG = 'x'.repeat(DESCRIPTION_MAX);

function fillDisk(srv: TestServer): void {
  const pages = srv.store.db.pragma('page_count', { simple: true }) as number;
  srv.store.db.pragma(`max_page_count = ${pages}`);
}

function freeDisk(srv: TestServer): void {
  srv.store.db.pragma('max_page_count = 1073741823');
}

const reasonOf = (res: ApiResponse) => res.json?.details?.find((d: { reason?: string }) => d.reason)?.reason;

test('a full disk: 503, code 14 UNAVAILABLE, STORAGE_FULL; nothing written; reads still served; writes work again once there is room', async (t) => {
  const logged: string[] = [];
  const now = Date.parse('2026-06-01T12:00:00Z');
  const srv = await startTestServer({ clock: () => now, log: (line) => logged.push(line) });
  t.teardown(() => srv.dispose());
  const org = srv.organizationUid;
  const kept = await srv.call('POST', G, { parent: org, group: { name: 'kept', description: 'before' } });
  t.is(kept.status, 200, kept.text);
  const before = (await srv.call('GET', `${G}?page_size=100`)).json;

  fillDisk(srv);
  const create = await srv.call('POST', G, { parent: org, group: { name: 'too-big', description: BIG } });
  t.is(create.status, 503, create.text);
  t.is(create.json.code, 14);
  t.is(create.json.status, 'UNAVAILABLE');
  t.is(reasonOf(create), 'STORAGE_FULL');
  t.regex(create.json.message, /^The server's storage is full .*\(SQLITE_FULL\); the request was not carried out and nothing was written$/);

  const update = await srv.call('PATCH', `${G}/${kept.json.uid}?updateMask=description`, { description: BIG });
  t.is(update.status, 503, update.text);
  t.is(reasonOf(update), 'STORAGE_FULL');

  // Reads: served, and they show the data as it was.
  const after = await srv.call('GET', `${G}?page_size=100`);
  t.is(after.status, 200);
  t.deepEqual(after.json, before, 'nothing was half-written');
  t.is((await srv.call('GET', `${G}/${kept.json.uid}`)).json.description, 'before');
  t.true(logged.some((l) => /^storage error: SQLITE_FULL: /.test(l)), 'the operator sees the cause in the log');
  t.false(logged.some((l) => l.startsWith('internal error')));

  freeDisk(srv);
  const retried = await srv.call('POST', G, { parent: org, group: { name: 'too-big', description: BIG } });
  t.is(retried.status, 200, retried.text);
});

test('storage failures by SQLite code: I/O error and read-only are 503; busy adds Retry-After; a constraint error stays an internal error', (t) => {
  const err = (code: string) => new Database.SqliteError(`${code} happened`, code);
  const io = storageFailure(err('SQLITE_IOERR_FSYNC'))!;
  t.is(io.httpStatus, 503);
  t.is(io.code, 14);
  t.is(io.reason, 'STORAGE_IO_ERROR');
  t.regex(io.message, /I\/O error \(SQLITE_IOERR_FSYNC\)/);
  t.is(storageFailure(err('SQLITE_READONLY_DBMOVED'))!.reason, 'STORAGE_READ_ONLY');
  const busy = storageFailure(err('SQLITE_BUSY'))!;
  t.is(busy.httpStatus, 503);
  t.deepEqual(busy.headers, { 'retry-after': '1' });
  t.is(storageFailure(err('SQLITE_CONSTRAINT_PRIMARYKEY')), undefined);
  t.is(storageFailure(Object.assign(new Error('not sqlite'), { code: 'SQLITE_FULL' })), undefined, 'only what SQLite raised');
});
