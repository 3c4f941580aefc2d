// GET /healthz, serve's readiness probe: no token, over HTTP/1.1 and HTTP/2, GET and HEAD, and
// the truth whatever is injected for the API under test (faults, limits, the journal).
import test from 'ava';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { parseFaultSpec } from '../src/api/faults.js';
import { request, startTestServer, storeUnderTest } from './helpers/serve.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const ready = { status: 'ok', version, store: { engine: storeUnderTest, ready: true } };

test('GET /healthz answers 200 with the version and the store without a token; HEAD the same headers, no body', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());

  const got = await request(srv.url, 'GET', '/healthz');
  t.is(got.status, 200);
  t.deepEqual(got.json, ready);
  t.is(got.headers.get('content-type'), 'application/json');
  t.is(got.headers.get('cache-control'), 'no-store');

  // A bad token changes nothing: the probe never reads it.
  const withBadToken = await request(srv.url, 'GET', '/healthz?probe=1', undefined, { authorization: 'Bearer nonsense' });
  t.is(withBadToken.status, 200);
  t.deepEqual(withBadToken.json, ready);

  const head = await request(srv.url, 'HEAD', '/healthz');
  t.is(head.status, 200);
  t.is(head.text, '');
  t.is(head.headers.get('content-length'), String(Buffer.byteLength(got.text)));

  const post = await request(srv.url, 'POST', '/healthz', {});
  t.is(post.status, 405);
  t.is(post.headers.get('allow'), 'GET, HEAD');
  t.is(post.json.details[0].reason, 'METHOD_NOT_ALLOWED');

  // The API itself still wants a token.
  t.is((await request(srv.url, 'GET', '/iam/v2/groups')).status, 401);
});

test('GET and HEAD /healthz over HTTP/2 (h2c)', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const session = http2.connect(srv.url);
  t.teardown(() => session.close());
  const ask = (method: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': '/healthz' }, { endStream: true });
    let status = 0;
    let body = '';
    stream.on('response', (h) => { status = Number(h[':status']); });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => { body += chunk; });
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
  });
  const get = await ask('GET');
  t.is(get.status, 200);
  t.deepEqual(JSON.parse(get.body), ready);
  t.deepEqual(await ask('HEAD'), { status: 200, body: '' });
});

test('a probe sees the truth: injected faults and the limits for the API never reach /healthz, and the journal leaves it out', async (t) => {
  const now = Date.now();
  const srv = await startTestServer({
    // Every call answered 503 UNAVAILABLE.
    faults: [parseFaultSpec('error=14')],
    // One request a minute per caller, on a clock that stands still: probes past the first would be refused.
    rateLimit: { limit: 1, windowSeconds: 60, burst: 1 },
    clock: () => now,
  });
  t.teardown(() => srv.dispose());

  for (let i = 0; i < 5; i++) {
    const got = await request(srv.url, 'GET', '/healthz');
    t.is(got.status, 200, `probe ${i + 1}`);
    t.deepEqual(got.json, ready);
  }
  // What the fault does to the API.
  t.is((await srv.call('GET', '/iam/v2/groups')).status, 503);
  const journal = await srv.ok('GET', '/_pctl/requests?limit=50');
  t.deepEqual(journal.requests.map((r: { path: string }) => r.path), ['/iam/v2/groups']);
});

test('probes leave a deterministic serve as it was: the same requests after them get the same answers as without them', async (t) => {
  const createAfter = async (probes: number) => {
    const srv = await startTestServer({ deterministic: 42 });
    t.teardown(() => srv.dispose());
    for (let i = 0; i < probes; i++) t.is((await request(srv.url, 'GET', '/healthz')).status, 200);
    return srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'after-probes' } });
  };
  const [probed, unprobed] = await Promise.all([createAfter(5), createAfter(0)]);
  t.deepEqual(probed, unprobed);
});
