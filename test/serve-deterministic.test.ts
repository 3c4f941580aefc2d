// serve --deterministic SEED: fresh data dirs started with the same seed, on the same URL (the
// issuer, which identities name), answer the same requests with the same bytes; another seed
// gives other uids; a live reset rewinds clock and random stream to where the start left them.
import test from 'ava';
import { rmSync } from 'node:fs';
import { SeededRandom } from '../src/server/base/random.js';
import { DETERMINISTIC_START_MS } from '../src/server/pipeline/deterministic.js';
import { startServer } from '../src/server/index.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

/**
 * One run of requests as the owner, each answer as `METHOD PATH STATUS BODY`: creates of
 * every kind that makes uids or codes, an update, pages with tokens, a delete, a device
 * sign-in's codes, a snapshot (its time is serve's).
 */
async function script(srv: TestServer): Promise<string[]> {
  const out: string[] = [];
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await srv.call(method, path, body);
    out.push(`${method} ${path} ${res.status} ${res.text}`);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const viewer = (await send('GET', '/iam/v2/roles?name=viewer')).roles[0].uid;
  const a = await send('POST', G, { parent: srv.organizationUid, group: { name: 'a' } });
  const b = await send('POST', G, { parent: srv.organizationUid, group: { name: 'b', description: 'second' } });
  const c = await send('POST', G, { parent: a.uid, group: { name: 'c' } });
  const id = await send('POST', '/iam/v2/identities', { parent: a.uid, identity: { name: 'ci', claimMatch: { issuer: srv.url, subject: 'ci' } } });
  await send('POST', '/iam/v2/roleBindings', { parent: b.uid, roleBinding: { identityUid: id.uid, roleUid: viewer } });
  await send('POST', '/iam/v2/groupInvites', { parent: b.uid, groupInvite: { roleUid: viewer, ttl: '3600s' } });
  await send('PATCH', `${G}/${a.uid}`, { description: 'changed' });
  const first = await send('GET', `${G}?page_size=2&order_by=create_time`);
  await send('GET', `${G}?page_size=2&order_by=create_time&page_token=${first.nextPageToken}`);
  await send('GET', `/iam/v2/roleBindings?uidp.descendants_of=${srv.organizationUid}`);
  await send('GET', `/iam/v2/identities/${srv.ownerIdentityUid}`);
  await send('DELETE', `${G}/${c.uid}`);
  const device = await fetch(`${srv.url}/oauth/device_authorization`, { method: 'POST', body: new URLSearchParams({ client_id: 'pctl' }) });
  out.push(`POST /oauth/device_authorization ${device.status} ${await device.text()}`);
  await send('POST', '/_pctl/snapshots', { name: 'mid-run' });
  await send('GET', '/_pctl/snapshots');
  await send('GET', `/iam/v2/groups?uidp.descendants_of=${srv.organizationUid}`);
  return out;
}

/**
 * Two fresh data dirs with `seed`, one after the other on the same port (the URL is the issuer
 * that identities and bindings name); each answers `run`. Another process may take the port in
 * between: then both runs go again on a new one.
 */
async function twoFreshRuns<T>(seed: number, run: (srv: TestServer) => Promise<T>): Promise<[T, T]> {
  for (let attempt = 1; ; attempt++) {
    const first = await startTestServer({ deterministic: seed });
    const a = await run(first).finally(() => first.dispose());
    let second: TestServer;
    try {
      second = await startTestServer({ deterministic: seed, port: first.port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw err;
      continue;
    }
    const b = await run(second).finally(() => second.dispose());
    return [a, b];
  }
}

test('two fresh data dirs with the same seed answer the same requests with the same bytes', async (t) => {
  const [a, b] = await twoFreshRuns(42, async (srv) => ({ organization: srv.organizationUid, owner: srv.ownerIdentityUid, answers: await script(srv) }));
  t.is(a.organization, b.organization);
  t.is(a.owner, b.owner);
  t.is(a.answers.length, b.answers.length);
  for (let i = 0; i < a.answers.length; i++) t.is(b.answers[i], a.answers[i]);
  // It is the clock and the seed that make them so: times from 2026-01-01, one second a request.
  t.regex(a.answers[1]!, /"createTime":"2026-01-01T00:00:02\.000Z"/);
  t.regex(a.answers.find((x) => x.startsWith('POST /iam/v2/groupInvites'))!, /"code":"pctl_invite_[\w-]+"/);
  t.regex(a.answers.find((x) => x.startsWith('GET /iam/v2/groups?page_size=2'))!, /"nextPageToken":"[^"]+"/);
});

test('another seed gives other uids and codes; the times are the same', async (t) => {
  const runs = await Promise.all([1, 2].map(async (seed) => {
    const srv = await startTestServer({ deterministic: seed });
    try {
      const group = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'x' } });
      return { organization: srv.organizationUid, group };
    } finally {
      await srv.dispose();
    }
  }));
  t.not(runs[0]!.organization, runs[1]!.organization);
  t.not(runs[0]!.group.uid, runs[1]!.group.uid);
  t.is(runs[0]!.group.createTime, new Date(DETERMINISTIC_START_MS + 1000).toISOString());
  t.is(runs[1]!.group.createTime, runs[0]!.group.createTime);
});

test('after a live reset the same requests get the same answers as after the start', async (t) => {
  const srv = await startTestServer({ deterministic: 7 });
  t.teardown(() => srv.dispose());
  const first = await script(srv);
  await srv.ok('DELETE', '/_pctl/snapshots/mid-run'); // saved by the first run; the second saves it again
  await srv.ok('POST', '/_pctl/reset');
  const second = await script(srv);
  t.deepEqual(second, first);
});

test("pctl works against a deterministic serve: tokens run on the real clock (pctl checks their expiry against its own), data on serve's", async (t) => {
  const srv = await startTestServer({ deterministic: 3 });
  t.teardown(() => srv.dispose());
  const { cli } = await import('./helpers/cli.js');
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  const created = await pctl(['groups', 'create', 'made', '--parent', srv.organizationUid, '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  t.is(JSON.parse(created.stdout).createTime, new Date(DETERMINISTIC_START_MS + 1000).toISOString());
  const exp = JSON.parse(Buffer.from(srv.ownerToken.split('.')[1]!, 'base64url').toString()).exp * 1000;
  t.true(exp > Date.now(), 'the owner token expires in the future of the real clock');
});

test('SeededRandom: the seed alone decides the stream, however it is drawn; int stays in range', (t) => {
  const whole = new SeededRandom(5).bytes(100);
  const pieces = new SeededRandom(5);
  t.deepEqual(Buffer.concat([pieces.bytes(1), pieces.bytes(31), pieces.bytes(33), pieces.bytes(35)]), whole);
  t.notDeepEqual(new SeededRandom(6).bytes(100), whole);
  const r = new SeededRandom(9);
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const n = r.int(20);
    t.true(Number.isInteger(n) && n >= 0 && n < 20);
    seen.add(n);
  }
  t.is(seen.size, 20);
  const mark = r.position();
  const next = r.bytes(10);
  r.rewind(mark);
  t.deepEqual(r.bytes(10), next);
});

test('deterministic takes a whole number and replaces clock and random; pctl serve --deterministic checks it before starting', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await t.throwsAsync(startServer({ dataDir, port: 0, deterministic: -1 }), { message: /deterministic: must be a whole number/ });
  await t.throwsAsync(startServer({ dataDir, port: 0, deterministic: 1, clock: Date.now }), { message: /replaces clock and random/ });
  const { cli } = await import('./helpers/cli.js');
  const r = await cli({ PCTL_CONFIG_DIR: tempDir('pctl-cfg-') })(['serve', '--port', '0', '--data', dataDir, '--deterministic', 'soon']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^error: Invalid argument: deterministic: must be a whole number \(the seed\), got "soon"$/m);
});
