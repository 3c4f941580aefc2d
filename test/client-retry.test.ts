// Retries: a scripted stub on 127.0.0.1 answers 503s, 429s with Retry-After, or is not there
// at all; the sleep and the deadline are injected, so the tests assert the waits without
// waiting and a timeout fires on an event, never on a loaded machine's timer.
import test from 'ava';
import type http from 'node:http';
import { ApiError } from '../src/api/errors.js';
import { groups } from '../src/api/resources.js';
import { main } from '../src/cli/main.js';
import { NetworkError } from '../src/cli/errors.js';
import { ApiClient, closeAgent } from '../src/client/index.js';
import { backoffDelay, isIdempotent, parseRetryAfter } from '../src/client/retry.js';
import { captureIO, lines } from './helpers/cli.js';
import { tempDir } from './helpers/temp.js';
import { freePort, manualDeadline, noDeadline, stub } from './helpers/stub.js';

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

/** A client whose waits are recorded, not slept, and whose attempts have no timer (see the timeout test). */
function client(url: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  const waits: number[] = [];
  const notices: string[] = [];
  const c = new ApiClient({
    baseUrl: url,
    timeoutMs: 5000,
    deadline: noDeadline,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    notice: (l) => notices.push(l),
    ...extra,
  });
  return { c, waits, notices };
}

test.after.always(() => closeAgent());

test('503 twice then 200: the GET is retried, with a notice before each wait', async (t) => {
  const s = await stub(t, (_req, res, n) => (n <= 2 ? unavailable(res) : json(res, 200, GROUP)));
  const { c, waits, notices } = client(s.url);
  t.is((await c.get(groups, 'g')).name, 'web');
  t.is(s.requests.length, 3);
  t.deepEqual(waits, [250, 500], 'full jitter below 500 ms, then 1 s (random fixed at 0.5)');
  t.deepEqual(notices, [
    'retrying GET /iam/v2/groups/g in 250ms (503 Service Unavailable, attempt 2 of 4)',
    'retrying GET /iam/v2/groups/g in 500ms (503 Service Unavailable, attempt 3 of 4)',
  ]);
});

test('at most 4 attempts by default; the last answer is the error; retries: 0 sends once', async (t) => {
  const s = await stub(t, (_req, res) => unavailable(res));
  const { c, notices } = client(s.url);
  const err = await t.throwsAsync(c.get(groups, 'g'), { instanceOf: ApiError });
  t.is(err.code, 14);
  t.is(s.requests.length, 4);
  t.is(notices.length, 3);
  t.regex(notices[2]!, /attempt 4 of 4\)$/);

  const none = client(s.url, { retries: 0 });
  await t.throwsAsync(none.c.get(groups, 'g'), { instanceOf: ApiError });
  t.is(s.requests.length, 5);
  t.deepEqual(none.notices, []);
});

test('a 503 on POST is not retried', async (t) => {
  const s = await stub(t, (_req, res) => unavailable(res));
  const { c, waits } = client(s.url);
  await t.throwsAsync(c.create(groups, { parent: 'x', group: { name: 'y' } }), { instanceOf: ApiError });
  t.is(s.requests.length, 1, 'a POST is sent once');
  t.deepEqual(waits, []);
});

test('a 429 on POST is retried after Retry-After: a rate limiter refused it before acting on it', async (t) => {
  const s = await stub(t, (_req, res, n) => (n === 1 ? json(res, 429, {}, { 'retry-after': '2' }) : json(res, 200, GROUP)));
  const { c, waits, notices } = client(s.url);
  await c.create(groups, { parent: 'x', group: { name: 'y' } });
  t.is(s.requests.length, 2);
  t.deepEqual(waits, [2000]);
  t.is(notices[0], 'retrying POST /iam/v2/groups in 2s (429 Too Many Requests, attempt 2 of 4)');
});

test('Retry-After: 1 is honoured (1000 ms requested), and 429 is retried too', async (t) => {
  const s = await stub(t, (_req, res, n) => (n === 1 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, GROUP)));
  const { c, waits, notices } = client(s.url);
  await c.get(groups, 'g');
  t.deepEqual(waits, [1000]);
  t.is(notices[0], 'retrying GET /iam/v2/groups/g in 1s (429 Too Many Requests, attempt 2 of 4)');
});

test('Retry-After as an HTTP date, and beyond the 30 s cap', async (t) => {
  // The client's clock is fixed: the wait is exactly the distance to the date, however slow the machine.
  const now = Date.parse('2026-06-01T12:00:00.000Z');
  const later = new Date(now + 5000).toUTCString();
  const s = await stub(t, (_req, res, n) => {
    if (n === 1) unavailable(res, { 'retry-after': later });
    else if (n === 2) unavailable(res, { 'retry-after': '3600' });
    else json(res, 200, GROUP);
  });
  const { c, waits } = client(s.url, { now: () => now });
  await c.get(groups, 'g');
  t.is(waits[0], 5000, 'a date 5 s ahead');
  t.is(waits[1], 30_000, 'an hour is capped at 30 s');
});

test('idempotency: DELETE and PATCH with an updateMask are retried; PATCH without a mask is not', async (t) => {
  t.true(isIdempotent('GET', 'http://x/a'));
  t.true(isIdempotent('DELETE', 'http://x/a'));
  t.true(isIdempotent('PATCH', 'http://x/a?updateMask=name'));
  t.false(isIdempotent('PATCH', 'http://x/a'));
  t.false(isIdempotent('POST', 'http://x/a?updateMask=name'));

  const s = await stub(t, (req, res, n) => (n % 2 === 1 ? unavailable(res) : json(res, 200, req.method === 'DELETE' ? {} : GROUP)));
  const { c } = client(s.url);
  await c.delete(groups, 'g');
  t.is(s.requests.length, 2);
  await c.update(groups, 'g', { name: 'web' }, ['name']);
  t.is(s.requests.length, 4);
  t.deepEqual(s.requests.map((r) => r.method), ['DELETE', 'DELETE', 'PATCH', 'PATCH']);
  await t.throwsAsync(c.http.request('PATCH', '/iam/v2/groups/g', { body: {} }), { instanceOf: ApiError });
  t.is(s.requests.length, 5, 'a PATCH without updateMask is sent once');
});

test('connection refused fails at once with the hint: no wait, no retry notice, GET and POST alike', async (t) => {
  const port = await freePort();
  for (const send of [(c: ApiClient) => c.get(groups, 'g'), (c: ApiClient) => c.create(groups, { parent: 'p', group: { name: 'web' } })]) {
    const { c, waits, notices } = client(`http://127.0.0.1:${port}`);
    const err = await t.throwsAsync(send(c), { instanceOf: NetworkError });
    t.regex(err.message, /connection refused \(is the server running\?\)/);
    t.deepEqual(waits, [], 'no backoff');
    t.deepEqual(notices, [], 'no "retrying" lines');
  }
});

test('a timeout is a clean error and is not retried', async (t) => {
  const s = await stub(t, () => {
    /* never answers */
  });
  // The deadline passes once the stub has the request: an event, not a 200 ms timer that a
  // loaded machine could run out before the request even arrives.
  const d = manualDeadline();
  const { c, waits } = client(s.url, { timeoutMs: 200, deadline: d.deadline });
  const pending = c.get(groups, 'g');
  await s.arrived(1);
  d.fire();
  const err = await t.throwsAsync(pending, { instanceOf: NetworkError });
  t.regex(err.message, /timed out after 200ms/);
  t.deepEqual(d.asked, [200], 'one attempt, bounded by --timeout');
  t.deepEqual(waits, []);
  t.is(s.requests.length, 1);
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
  const s = await stub(t, (_req, res) => {
    calls++;
    if (calls <= 2) unavailable(res);
    else json(res, 200, { groups: [GROUP], nextPageToken: '', totalCount: '1' });
  });
  const waits: number[] = [];
  const run = async (argv: string[]) => {
    const { io, out, err } = captureIO();
    const clock = { now: () => new Date(), sleep: async (ms: number) => void waits.push(ms), deadline: noDeadline };
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
