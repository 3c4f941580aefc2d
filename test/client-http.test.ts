// The HTTP core against a scripted stub on 127.0.0.1: what goes on the wire, how errors
// come back, timeouts and retries. No test races a timer: attempts have no deadline unless a
// test fires one itself, on an event (the stub has the request).
import test from 'ava';
import type http from 'node:http';
import { ApiError } from '../src/api/errors.js';
import { groups } from '../src/api/resources.js';
import { ApiClient, closeAgent, type ApiClientOptions } from '../src/client/index.js';
import { NetworkError, ResponseError } from '../src/cli/errors.js';
import { freePort, manualDeadline, noDeadline, stub } from './helpers/stub.js';

/** A client of `baseUrl` whose attempts end only when the test says (a hang meets ava's timeout). */
const api = (baseUrl: string, extra: Partial<ApiClientOptions> = {}) => new ApiClient({ baseUrl, timeoutMs: 5000, deadline: noDeadline, ...extra });

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const GROUP = {
  uid: `${'a'.repeat(40)}/0123456789abcdef`,
  name: 'web',
  description: '',
  resourceLimits: {},
  verified: false,
  createTime: '2026-06-01T12:00:00.000Z',
  updateTime: '2026-06-01T12:00:00.000Z',
};

test.after.always(() => closeAgent());

test('bearer token, uid path segments and query encoding on the wire', async (t) => {
  const s = await stub(t, (req, res) => {
    if (req.url.startsWith('/iam/v2/groups?')) json(res, 200, { groups: [GROUP], nextPageToken: '', totalCount: '1' });
    else json(res, 200, GROUP);
  });
  const client = api(`${s.url}/`, { token: 'sekret' });

  const g = await client.get(groups, GROUP.uid);
  t.is(g.name, 'web');
  t.is(s.requests[0]!.url, `/iam/v2/groups/${'a'.repeat(40)}/0123456789abcdef`, 'nested uid as path segments, no double slash');
  t.is(s.requests[0]!.headers.authorization, 'Bearer sekret');

  await client.get(groups, 'odd uid?#');
  t.is(s.requests[1]!.url, '/iam/v2/groups/odd%20uid%3F%23', 'each segment is percent-encoded');

  const page = await client.listPage(groups, { pageSize: 10, orderBy: 'name desc', descendantsOf: 'x/y', name: 'a b' });
  t.is(s.requests[2]!.url, '/iam/v2/groups?page_size=10&order_by=name%20desc&uidp.descendants_of=x%2Fy&name=a%20b');
  t.is(page.totalCount, 1);
  t.is(page.items[0]!.uid, GROUP.uid);
});

test('create posts JSON; update sends the mask and the fields unwrapped; delete accepts an empty body', async (t) => {
  const s = await stub(t, (req, res) => {
    if (req.method === 'DELETE') {
      res.writeHead(200);
      res.end();
    } else json(res, 200, GROUP);
  });
  const client = api(s.url);
  await client.create(groups, { parent: 'p', group: { name: 'web' } });
  t.is(s.requests[0]!.method, 'POST');
  t.is(s.requests[0]!.headers['content-type'], 'application/json');
  t.deepEqual(JSON.parse(s.requests[0]!.body), { parent: 'p', group: { name: 'web' } });
  t.is(s.requests[0]!.headers.authorization, undefined, 'no token, no header');

  await client.update(groups, 'g', { name: 'x', description: '' }, ['name', 'description']);
  t.is(s.requests[1]!.method, 'PATCH');
  t.is(s.requests[1]!.url, '/iam/v2/groups/g?updateMask=name%2Cdescription');
  t.deepEqual(JSON.parse(s.requests[1]!.body), { name: 'x', description: '' });

  await t.notThrowsAsync(client.delete(groups, 'g'));
  t.is(s.requests[2]!.method, 'DELETE');
});

test('AIP-193 error bodies decode into ApiError, with either envelope', async (t) => {
  const status = {
    code: 9,
    message: 'Group g is not empty',
    status: 'FAILED_PRECONDITION',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'FAILED_PRECONDITION', domain: 'platform.api.v2' },
      { '@type': 'type.googleapis.com/google.rpc.PreconditionFailure', violations: [{ type: 'RESOURCE_NOT_EMPTY', description: 'has children' }] },
    ],
  };
  let wrap = false;
  const s = await stub(t, (_req, res) => json(res, 400, wrap ? { error: status } : status));
  const client = api(s.url);
  for (const w of [false, true]) {
    wrap = w;
    const err = await t.throwsAsync(client.delete(groups, 'g'), { instanceOf: ApiError });
    t.is(err.code, 9);
    t.is(err.reason, 'FAILED_PRECONDITION');
    t.is(err.message, 'Group g is not empty');
    t.deepEqual(err.preconditionViolations, [{ type: 'RESOURCE_NOT_EMPTY', description: 'has children' }]);
  }
});

test('a non-AIP error keeps its HTTP status as the code', async (t) => {
  const s = await stub(t, (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not Found</h1>');
  });
  const err = await t.throwsAsync(api(s.url).get(groups, 'g'), { instanceOf: ApiError });
  t.is(err.code, 5);
  t.regex(err.message, /HTTP 404: <h1>Not Found<\/h1>/);
});

test('a response that breaks the schema is an error naming the field', async (t) => {
  const s = await stub(t, (req, res) => {
    if (req.url.includes('?')) json(res, 200, { groups: [GROUP, { ...GROUP, createTime: 'yesterday' }] });
    else json(res, 200, { ...GROUP, name: 42 });
  });
  const client = api(s.url);
  const one = await t.throwsAsync(client.get(groups, 'g'), { instanceOf: ResponseError });
  t.regex(one.message, /unexpected response from GET \/iam\/v2\/groups\/g: name: /);
  const list = await t.throwsAsync(client.listPage(groups, { pageSize: 5 }), { instanceOf: ResponseError });
  t.regex(list.message, /groups\[1\]\.createTime: must be an RFC 3339 timestamp/);
});

test('without schema checks (what -o json prints as it came), a body must still be an object, a list an array of them', async (t) => {
  let body: unknown = { ...GROUP, name: 42 };
  const s = await stub(t, (_req, res) => json(res, 200, body));
  const client = api(s.url, { validate: false });
  t.is(((await client.get(groups, 'g')) as unknown as { name: unknown }).name, 42, 'the field is passed through unchecked');
  body = ['not', 'a', 'resource'];
  const one = await t.throwsAsync(client.get(groups, 'g'), { instanceOf: ResponseError });
  t.is(one.message, 'unexpected response from GET /iam/v2/groups/g: not a JSON object');
  body = { groups: { uid: 'x' } };
  const list = await t.throwsAsync(client.listPage(groups, {}), { instanceOf: ResponseError });
  t.is(list.message, 'unexpected response from GET /iam/v2/groups: groups: must be an array of objects');
});

test('unknown extra fields pass through', async (t) => {
  const s = await stub(t, (_req, res) => json(res, 200, { ...GROUP, futureField: { a: 1 } }));
  const g = (await api(s.url).get(groups, 'g')) as Record<string, unknown>;
  t.deepEqual(g.futureField, { a: 1 });
});

test('a server that never answers times out within --timeout', async (t) => {
  const s = await stub(t, () => {
    /* never respond */
  });
  // The attempt's deadline (asked for with --timeout) passes once the request has arrived.
  const d = manualDeadline();
  const pending = api(s.url, { timeoutMs: 300, deadline: d.deadline }).get(groups, 'g');
  await s.arrived(1);
  d.fire();
  const err = await t.throwsAsync(pending, { instanceOf: NetworkError });
  t.regex(err.message, /timed out after 300ms/);
  t.deepEqual(d.asked, [300]);
});

test('connection refused is a NetworkError naming the server', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  // retries: 0 — a refused connection is otherwise retried with backoff (client-retry.test.ts).
  const err = await t.throwsAsync(api(url, { retries: 0 }).get(groups, 'g'), { instanceOf: NetworkError });
  t.is(err.message, `cannot connect to ${url}: connection refused (is the server running?)`);
});

test('GETs are retried on 503 (honouring Retry-After); writes are not', async (t) => {
  let n = 0;
  const s = await stub(t, (_req, res) => {
    n++;
    if (n === 1) {
      res.writeHead(503, { 'retry-after': '0' });
      res.end();
    } else json(res, n === 2 ? 200 : 503, GROUP);
  });
  const client = api(s.url);
  t.is((await client.get(groups, 'g')).name, 'web');
  t.is(n, 2);
  await t.throwsAsync(client.create(groups, {}), { instanceOf: ApiError });
  t.is(n, 3, 'a POST is sent once');
});

test('the debug trace masks the token', async (t) => {
  const s = await stub(t, (_req, res) => json(res, 200, GROUP));
  const trace: string[] = [];
  await api(s.url, { token: 'very-secret-token', trace: (l) => trace.push(l) }).get(groups, 'g');
  const text = trace.join('\n');
  t.regex(text, /> GET http:\/\/127\.0\.0\.1:\d+\/iam\/v2\/groups\/g/);
  t.regex(text, /> authorization: Bearer \*\*\*/);
  t.regex(text, /< 200/);
  t.false(text.includes('very-secret-token'));
});
