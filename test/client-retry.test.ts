// Retries: a scripted node:http stub on 127.0.0.1 answers 503s, 429s with Retry-After, or is
// not there at all; the sleep is injected, so the tests assert the waits without waiting.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../src/api/errors.js';
import { groups } from '../src/api/resources.js';
import { main } from '../src/cli/main.js';
import { NetworkError } from '../src/cli/errors.js';
import { ApiClient, closeAgent } from '../src/client/index.js';
import { backoffDelay, isIdempotent, parseRetryAfter } from '../src/client/retry.js';
import { captureIO, lines } from './helpers/cli.js';
import { tempDir } from './helpers/serve.js';

interface Seen {
  method: string;
  url: string;
}

async function stub(handler: (req: Seen, res: http.ServerResponse, n: number) => void, port = 0) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url! });
      handler({ method: req.method!, url: req.url! }, res, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const GROUP = {
  uid: `${'a'.repeat(40)}/0123456789abcdef`,
  name: 'web',
  description: '',
  resourceLimits: {},
  verified: false,
  createTime: '2026-06-01T12:00:00.000Z',
  updateTime: '2026-06-01T12:00:00.000Z',
};

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const unavailable = (res: http.ServerResponse, headers: Record<string, string> = {}) =>
  json(res, 503, { error: { code: 14, message: 'try again later', status: 'UNAVAILABLE' } }, headers);

/** A client whose waits are recorded, not slept. */
function client(url: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  const waits: number[] = [];
  const notices: string[] = [];
  const c = new ApiClient({
    baseUrl: url,
    timeoutMs: 5000,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    notice: (l) => notices.push(l),
    ...extra,
  });
  return { c, waits, notices };
}

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

test.after.always(() => closeAgent());

test('503 twice then 200: the GET is retried, with a notice before each wait', async (t) => {
  const s = await stub((_req, res, n) => (n <= 2 ? unavailable(res) : json(res, 200, GROUP)));
  t.teardown(s.close);
  const { c, waits, notices } = client(s.url);
  t.is((await c.get(groups, 'g')).name, 'web');
  t.is(s.seen.length, 3);
  t.deepEqual(waits, [250, 500], 'full jitter below 500 ms, then 1 s (random fixed at 0.5)');
  t.deepEqual(notices, [
    'retrying GET /iam/v2/groups/g in 250ms (503 Service Unavailable, attempt 2 of 4)',
    'retrying GET /iam/v2/groups/g in 500ms (503 Service Unavailable, attempt 3 of 4)',
  ]);
});

test('at most 4 attempts by default; the last answer is the error; retries: 0 sends once', async (t) => {
  const s = await stub((_req, res) => unavailable(res));
  t.teardown(s.close);
  const { c, notices } = client(s.url);
  const err = await t.throwsAsync(c.get(groups, 'g'), { instanceOf: ApiError });
  t.is(err.code, 14);
  t.is(s.seen.length, 4);
  t.is(notices.length, 3);
  t.regex(notices[2]!, /attempt 4 of 4\)$/);

  const none = client(s.url, { retries: 0 });
  await t.throwsAsync(none.c.get(groups, 'g'), { instanceOf: ApiError });
  t.is(s.seen.length, 5);
  t.deepEqual(none.notices, []);
});

test('a 503 on POST is not retried', async (t) => {
  const s = await stub((_req, res) => unavailable(res));
  t.teardown(s.close);
  const { c, waits } = client(s.url);
  await t.throwsAsync(c.create(groups, { parent: 'x', group: { name: 'y' } }), { instanceOf: ApiError });
  t.is(s.seen.length, 1, 'a POST is sent once');
  t.deepEqual(waits, []);
});

test('Retry-After: 1 is honoured (1000 ms requested), and 429 is retried too', async (t) => {
  const s = await stub((_req, res, n) => (n === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, GROUP)));
  t.teardown(s.close);
  const { c, waits, notices } = client(s.url);
  await c.get(groups, 'g');
  t.deepEqual(waits, [1000]);
  t.is(notices[0], 'retrying GET /iam/v2/groups/g in 1s (429 Too Many Requests, attempt 2 of 4)');
});

test('Retry-After as an HTTP date, and beyond the 30 s cap', async (t) => {
  const later = new Date(Date.now() + 5000).toUTCString();
  const s = await stub((_req, res, n) => {
    if (n === 1) unavailable(res, { 'retry-after': later });
    else if (n === 2) unavailable(res, { 'retry-after': '3600' });
    else json(res, 200, GROUP);
  });
  t.teardown(s.close);
  const { c, waits } = client(s.url);
  await c.get(groups, 'g');
  t.true(waits[0]! > 2000 && waits[0]! <= 5000, `${waits[0]} ms for a date 5 s ahead (1 s resolution)`);
  t.is(waits[1], 30_000, 'an hour is capped at 30 s');
});

test('idempotency: DELETE and PATCH with an updateMask are retried; PATCH without a mask is not', async (t) => {
  t.true(isIdempotent('GET', 'http://x/a'));
  t.true(isIdempotent('DELETE', 'http://x/a'));
  t.true(isIdempotent('PATCH', 'http://x/a?updateMask=name'));
  t.false(isIdempotent('PATCH', 'http://x/a'));
  t.false(isIdempotent('POST', 'http://x/a?updateMask=name'));

  const s = await stub((req, res, n) => (n % 2 === 1 ? unavailable(res) : json(res, 200, req.method === 'DELETE' ? {} : GROUP)));
  t.teardown(s.close);
  const { c } = client(s.url);
  await c.delete(groups, 'g');
  t.is(s.seen.length, 2);
  await c.update(groups, 'g', { name: 'web' }, ['name']);
  t.is(s.seen.length, 4);
  t.deepEqual(s.seen.map((r) => r.method), ['DELETE', 'DELETE', 'PATCH', 'PATCH']);
  await t.throwsAsync(c.http.request('PATCH', '/iam/v2/groups/g', { body: {} }), { instanceOf: ApiError });
  t.is(s.seen.length, 5, 'a PATCH without updateMask is sent once');
});

test('connection refused, then the server comes up: retried, GET and POST alike (nothing was sent)', async (t) => {
  const port = await freePort();
  let server: Awaited<ReturnType<typeof stub>> | undefined;
  t.teardown(() => server?.close());
  const notices: string[] = [];
  const c = new ApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    timeoutMs: 5000,
    notice: (l) => notices.push(l),
    random: () => 0,
    // The "wait" brings the server up.
    sleep: async () => {
      server ??= await stub((req, res) => json(res, req.method === 'POST' ? 200 : 200, GROUP), port);
    },
  });
  t.is((await c.get(groups, 'g')).name, 'web');
  t.is(notices.length, 1);
  t.regex(notices[0]!, /^retrying GET \/iam\/v2\/groups\/g in 0ms \(connection refused, attempt 2 of 4\)$/);

  // A POST that could not connect never left: it is retried as well.
  await server!.close();
  server = undefined;
  const created = await c.create(groups, { parent: 'p', group: { name: 'web' } });
  t.is(created.name, 'web');
  t.is(server!.seen.length, 1);
  t.is(server!.seen[0]!.method, 'POST');
});

test('connection refused every time: a clean NetworkError after 4 attempts', async (t) => {
  const port = await freePort();
  const { c, waits } = client(`http://127.0.0.1:${port}`);
  const err = await t.throwsAsync(c.get(groups, 'g'), { instanceOf: NetworkError });
  t.regex(err.message, /connection refused/);
  t.is(waits.length, 3);
});

test('a timeout is a clean error and is not retried', async (t) => {
  const s = await stub(() => {
    /* never answers */
  });
  t.teardown(s.close);
  const { c, waits } = client(s.url, { timeoutMs: 200 });
  const err = await t.throwsAsync(c.get(groups, 'g'), { instanceOf: NetworkError });
  t.regex(err.message, /timed out after 200ms/);
  t.deepEqual(waits, []);
  t.is(s.seen.length, 1);
});

test('backoff: full jitter below an exponential ceiling; Retry-After parsing', (t) => {
  t.is(backoffDelay(1, () => 0.999), 499);
  t.is(backoffDelay(3, () => 0.999), 1998);
  t.is(backoffDelay(20, () => 0.999), 7992, 'capped at 8 s');
  t.is(backoffDelay(2, () => 0), 0);
  t.is(parseRetryAfter('2', 0), 2000);
  t.is(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
  t.is(parseRetryAfter('soon', 0), undefined);
});

test('CLI: a flaky server does not break a listing; the notice goes to stderr; --retries 0 fails at once', async (t) => {
  let calls = 0;
  const s = await stub((req, res) => {
    calls++;
    if (calls <= 2) unavailable(res);
    else json(res, 200, { groups: [GROUP], nextPageToken: '', totalCount: '1' });
  });
  t.teardown(s.close);
  const waits: number[] = [];
  const run = async (argv: string[]) => {
    const { io, out, err } = captureIO();
    const clock = { now: () => new Date(), sleep: async (ms: number) => void waits.push(ms) };
    const code = await main(argv, { io, clock, env: { PCTL_API_URL: s.url, PCTL_TOKEN: 'x', PCTL_CONFIG_DIR: tempDir('pctl-cfg-') } });
    return { code, stdout: out(), stderr: err() };
  };
  const r = await run(['groups', 'list', '-o', 'id']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, `${GROUP.uid}\n`);
  const notices = lines(r.stderr);
  t.is(notices.length, 2);
  t.regex(notices[0]!, /^retrying GET \/iam\/v2\/groups in \d+(ms|(\.\d)?s) \(503 Service Unavailable, attempt 2 of 4\)$/);
  t.is(waits.length, 2);

  calls = 0;
  const once = await run(['groups', 'list', '--retries', '0']);
  t.is(once.code, 1);
  t.is(lines(once.stderr).length, 1);
  t.regex(once.stderr, /^error: try again later/);

  const bad = await run(['groups', 'list', '--retries', 'x']);
  t.is(bad.code, 2);
});
