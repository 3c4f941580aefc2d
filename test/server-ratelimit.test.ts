// Limits per caller (identity, else client address). By default fair queuing: each caller
// has a few requests served at once, more wait their turn, and only a full queue (or a wait
// past its bound) is refused. On request (`rateLimit: RATE/UNIT`), a token bucket per caller
// that emulates the API's rate limits. Over either: 429, code 8, reason RATE_LIMITED,
// Retry-After; every answer carries the RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers-11). The buckets run on serve's injected clock: time
// moves only when a test moves it. test/server-fair-queue.test.ts has the queue's order.
import test from 'ava';
import { existsSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_FAIR_QUEUING, formatRateLimit, parseRateLimit, type FairQueuing, type RateLimit } from '../src/server/pipeline/ratelimit.js';
import { cli } from './helpers/cli.js';
import { request, startTestServer, tempDir, type ApiResponse, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

async function frozen(t: import('ava').ExecutionContext, rateLimit: RateLimit | FairQueuing | undefined) {
  let now = Date.parse('2026-06-01T12:00:00Z');
  const srv = await startTestServer({ rateLimit, clock: () => now });
  t.teardown(() => srv.dispose());
  return { srv, advance: (ms: number) => void (now += ms) };
}

const reasonOf = (res: ApiResponse) => res.json?.details?.find((d: { reason?: string }) => d.reason)?.reason;
const fields = (res: ApiResponse) => ({ policy: res.headers.get('ratelimit-policy'), limit: res.headers.get('ratelimit') });

async function getOrg(srv: TestServer) {
  return srv.call('GET', `${G}/${srv.organizationUid}`);
}

test('over the limit: 429, code 8 RESOURCE_EXHAUSTED, reason RATE_LIMITED, Retry-After; the fields on every answer', async (t) => {
  const { srv, advance } = await frozen(t, { limit: 3, windowSeconds: 1, burst: 3 });
  const seen: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await getOrg(srv);
    t.is(res.status, 200);
    t.is(fields(res).policy, '"default";q=3;w=1');
    seen.push(fields(res).limit!);
  }
  t.deepEqual(seen, ['"default";r=2;t=1', '"default";r=1;t=1', '"default";r=0;t=1']);

  const refused = await getOrg(srv);
  t.is(refused.status, 429);
  t.is(refused.json.code, 8);
  t.is(refused.json.status, 'RESOURCE_EXHAUSTED');
  t.is(reasonOf(refused), 'RATE_LIMITED');
  t.regex(refused.json.message, /^Rate limit exceeded: each caller may make 3 requests per second; retry in 1 s$/);
  t.is(refused.headers.get('retry-after'), '1');
  t.deepEqual(fields(refused), { policy: '"default";q=3;w=1', limit: '"default";r=0;t=1' });

  // A refused request costs nothing: after Retry-After the caller is let in again.
  advance(1000);
  const again = await getOrg(srv);
  t.is(again.status, 200);
  t.is(fields(again).limit, '"default";r=2;t=1', 'the bucket refilled to 3 in that second; this request took one');
});

test('errors count and carry the fields too: a 404 and a 400 are answers like any other', async (t) => {
  const { srv } = await frozen(t, { limit: 2, windowSeconds: 1, burst: 2 });
  const missing = await srv.call('GET', `${G}/nope`);
  t.is(missing.status, 404);
  t.is(fields(missing).limit, '"default";r=1;t=1');
  const bad = await srv.call('POST', G, 'not json');
  t.is(bad.status, 400);
  t.is(fields(bad).limit, '"default";r=0;t=1');
  t.is((await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'x' } })).status, 429, 'the third is refused, POST as well');
  t.is((await srv.call('GET', `${G}?page_size=1`)).status, 429);
});

test('each identity has its own bucket; requests without a valid token are counted by client address', async (t) => {
  const { srv } = await frozen(t, { limit: 2, windowSeconds: 1, burst: 2 });
  const created = await srv.call('POST', '/iam/v2/identities', {
    parent: srv.organizationUid,
    identity: { name: 'ci', claimMatch: { issuer: srv.url, subject: 'ci-bot' } },
  });
  t.is(created.status, 200, created.text);
  t.is((await getOrg(srv)).status, 200);
  t.is((await getOrg(srv)).status, 429, 'the owner has used its two');

  // Another identity is not held back by the owner (it may read nothing: a 403, from its own bucket).
  const other = await srv.issueToken(created.json.uid);
  const asOther = await request(srv.url, 'GET', `${G}/${srv.organizationUid}`, undefined, { authorization: `Bearer ${other}` });
  t.not(asOther.status, 429);
  t.is(fields(asOther).limit, '"default";r=1;t=1');

  // No token, a bad token, the public OIDC routes: one bucket, the client's address.
  const anonymous = [
    await request(srv.url, 'GET', G),
    await request(srv.url, 'GET', G, undefined, { authorization: 'Bearer not-a-token' }),
    await request(srv.url, 'GET', '/.well-known/openid-configuration'),
  ];
  t.deepEqual(anonymous.map((r) => r.status), [401, 401, 429]);
  t.is(reasonOf(anonymous[2]!), 'RATE_LIMITED');
  t.is(anonymous[1]!.headers.get('ratelimit'), '"default";r=0;t=1');
});

test('a burst above the rate, and a window of a minute: the policy says both, Retry-After waits for one request', async (t) => {
  const { srv, advance } = await frozen(t, { limit: 2, windowSeconds: 60, burst: 3 });
  const statuses: number[] = [];
  let last!: ApiResponse;
  for (let i = 0; i < 4; i++) {
    last = await getOrg(srv);
    statuses.push(last.status);
  }
  t.deepEqual(statuses, [200, 200, 200, 429]);
  t.is(last.headers.get('ratelimit-policy'), '"default";q=2;w=60;pctl-burst=3');
  t.is(last.headers.get('retry-after'), '30', 'two per minute: one every 30 s');
  t.is(last.headers.get('ratelimit'), '"default";r=0;t=30');
  t.regex(last.json.message, /2 requests per minute \(3 at once\)/);

  advance(29_999);
  t.is((await getOrg(srv)).status, 429, 'not a millisecond early');
  advance(1);
  const back = await getOrg(srv);
  t.is(back.status, 200);
  t.is(back.headers.get('ratelimit'), '"default";r=0;t=30');
  advance(90_000);
  t.is((await getOrg(srv)).headers.get('ratelimit'), '"default";r=2;t=30', 'full again (3), one taken: 30 s until full');
});

test('rateLimit off: no limit and no fields', async (t) => {
  const { srv } = await frozen(t, { limit: 1, windowSeconds: 1, burst: 1 });
  t.is((await getOrg(srv)).status, 200);
  t.is((await getOrg(srv)).status, 429);
  const off = await startTestServer({ rateLimit: 'off', clock: () => 0 });
  t.teardown(() => off.dispose());
  for (let i = 0; i < 3; i++) {
    const res = await off.call('GET', `${G}/${off.organizationUid}`);
    t.is(res.status, 200);
    t.is(res.headers.get('ratelimit'), null);
  }
});

test('--rate-limit syntax', (t) => {
  t.deepEqual(parseRateLimit('fair'), DEFAULT_FAIR_QUEUING);
  t.deepEqual(parseRateLimit('50/s'), { limit: 50, windowSeconds: 1, burst: 50 });
  t.deepEqual(parseRateLimit('6000/m,200'), { limit: 6000, windowSeconds: 60, burst: 200 });
  t.deepEqual(parseRateLimit(' 10 / hour , 20 '), { limit: 10, windowSeconds: 3600, burst: 20 });
  t.is(parseRateLimit('OFF'), 'off');
  for (const bad of ['50', '50/d', '0/s', '5/s,0', 'fast', '1.5/s', '-1/s']) {
    t.throws(() => parseRateLimit(bad), { message: /RATE\/UNIT|from 1 to/ }, bad);
  }
  t.is(formatRateLimit({ limit: 50, windowSeconds: 1, burst: 200 }), '50/s,200');
  t.is(formatRateLimit(DEFAULT_FAIR_QUEUING), 'fair');
});

test('a request too malformed to parse is not counted, but its answer reports the caller\'s bucket', async (t) => {
  const { srv } = await frozen(t, { limit: 5, windowSeconds: 1, burst: 5 });
  await request(srv.url, 'GET', G); // a 401, counted against this address: 4 left
  const { port } = new URL(srv.url);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
    let text = '';
    socket.setEncoding('utf8').on('data', (c: string) => { text += c; }).on('end', () => resolve(text)).on('error', reject);
  });
  t.regex(raw, /^HTTP\/1\.1 400 /);
  t.regex(raw, /\r\nratelimit-policy: "default";q=5;w=1\r\n/);
  t.regex(raw, /\r\nratelimit: "default";r=4;t=1\r\n/);
});

test('pctl serve: a bad --rate-limit is a usage error (exit 2) before anything is started; the help shows the default', async (t) => {
  const data = tempDir('pctl-rl-data-');
  t.teardown(() => rmSync(data, { recursive: true, force: true }));
  const pctl = cli({ PCTL_CONFIG_DIR: tempDir('pctl-rl-cfg-') });
  const bad = await pctl(['serve', '--port', '0', '--data', data, '--rate-limit', '100/day']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /Invalid argument: rate-limit: must be fair, RATE\/UNIT\[,BURST\] with UNIT s, m or h \(e\.g\. 100\/s, 6000\/m, 50\/s,200\) or off, got "100\/day"/);
  t.false(existsSync(join(data, 'pctl.db')), 'no data dir was opened');
  const help = (await pctl(['serve', '--help'])).stdout.replace(/\s+/g, ' ');
  const { perCaller, queue } = DEFAULT_FAIR_QUEUING;
  t.true(help.includes(`fair, fair queuing: ${perCaller} requests served at once, ${queue} more wait their turn`), help);
  t.true(help.includes('(default: fair)'), help);
});

// ---- Fair queuing (the default) ------------------------------------------------------------

const FAIR_POLICY = (p: FairQueuing) => `"fair";q=${p.perCaller};qu="concurrent-requests";pctl-queue=${p.queue}`;

interface H2Answer { status: number; headers: http2.IncomingHttpHeaders; json: any } // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON as the API sent it; tests assert its shape

/** One HTTP/2 session to serve: a request's body can be sent in parts, and the answers read as they come. */
function h2session(t: import('ava').ExecutionContext, url: string) {
  const session = http2.connect(url);
  t.teardown(() => void session.destroy());
  return (method: string, path: string, token: string, body?: string) => {
    const stream = session.request(
      { ':method': method, ':path': path, authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      { endStream: body === undefined },
    );
    if (body !== undefined) stream.write(body);
    const answer = new Promise<H2Answer>((resolve, reject) => {
      let headers: http2.IncomingHttpHeaders = {};
      let text = '';
      stream.on('response', (h) => { headers = h; });
      stream.setEncoding('utf8').on('data', (c: string) => { text += c; });
      stream.on('end', () => resolve({ status: Number(headers[':status']), headers, json: text ? JSON.parse(text) : undefined }));
      stream.on('error', reject);
    });
    return { stream, answer };
  };
}

test('by default, fair queuing: a sequential client is never refused, whatever its speed (300 creates, 1,000 GETs)', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const statuses = new Map<number, number>();
  const count = (res: ApiResponse) => statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const first = await getOrg(srv);
  t.deepEqual(fields(first), { policy: FAIR_POLICY(DEFAULT_FAIR_QUEUING), limit: `"fair";r=${DEFAULT_FAIR_QUEUING.perCaller - 1}` });
  for (let i = 0; i < 300; i++) count(await srv.call('POST', G, { parent: srv.organizationUid, group: { name: `g${i}` } }));
  for (let i = 0; i < 1000; i++) count(await getOrg(srv));
  t.deepEqual(Object.fromEntries(statuses), { 200: 1300 });
});

test('by default, 30 concurrent requests of one caller are slowed, not refused', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => srv.call('POST', G, { parent: srv.organizationUid, group: { name: `c${i}` } })));
  t.deepEqual(answers.map((r) => r.status), answers.map(() => 200));
  t.is((await srv.ok('GET', `${G}?page_size=1`)).totalCount, '31', 'the organization and the 30');
});

test('fair queuing: a slow upload holds no seat; the caller\'s other requests are served meanwhile', async (t) => {
  const srv = await startTestServer({ rateLimit: { perCaller: 1, total: 1, queue: 1, maxWaitMs: 60_000 } });
  t.teardown(() => srv.dispose());
  const send = h2session(t, srv.url);
  const org = `${G}/${srv.organizationUid}`;
  t.is((await send('GET', org, srv.ownerToken).answer).status, 200);
  const create = send('POST', G, srv.ownerToken, `{"parent":"${srv.organizationUid}",`);
  for (let i = 0; i < 3; i++) {
    const read = await send('GET', org, srv.ownerToken).answer;
    t.is(read.status, 200, 'the only seat is free: the create is not let in before its body is there');
    t.is(read.headers.ratelimit, '"fair";r=0');
  }
  create.stream.end('"group":{"name":"slow"}}');
  const created = await create.answer;
  t.is(created.status, 200);
  t.is(created.json.name, 'slow');
});

test('the control API and the console are never limited: a rate of 1 request an hour, spent', async (t) => {
  const { srv } = await frozen(t, { limit: 1, windowSeconds: 3600, burst: 1 });
  t.is((await getOrg(srv)).status, 200);
  t.is((await getOrg(srv)).status, 429);
  for (const path of ['/_pctl/requests', '/_pctl/faults', '/_pctl/requests']) {
    const res = await srv.call('GET', path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('ratelimit'), null, `${path}: not counted`);
  }
  // The console's files, by client address: unlimited; the address's other public routes are limited.
  for (let i = 0; i < 3; i++) t.is((await request(srv.url, 'GET', '/')).status, 200);
  t.is((await request(srv.url, 'GET', '/.well-known/openid-configuration')).status, 200);
  t.is((await request(srv.url, 'GET', '/.well-known/openid-configuration')).status, 429);
});
