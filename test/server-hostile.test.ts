// Quick regressions for what the stress fuzz (test/stress/fuzz.test.ts) found: each of these
// was a 500, a bare body-less 400, or a 200 for text that was then stored differently.
import test from 'ava';
import { connect } from 'node:net';
import { startTestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

function isStatus(t: import('ava').ExecutionContext, body: unknown, code: number) {
  const s = body as { code: unknown; message: unknown; details: unknown };
  t.is(s?.code, code);
  t.is(typeof s?.message, 'string');
  t.true(Array.isArray(s?.details));
}

test('prototype property names as query parameters or order_by are 400, not 500', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  for (const q of ['constructor=x', '__proto__=x', 'toString=1', 'hasOwnProperty=a', 'order_by=constructor', 'order_by=__proto__%20desc']) {
    const res = await srv.call('GET', `${G}?${q}`);
    t.is(res.status, 400, q);
    isStatus(t, res.json, 3);
  }
});

test('a page token whose signature is the right length in characters but not in bytes is 400, not 500', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const res = await srv.call('GET', `${G}?page_token=${encodeURIComponent(`eyJ9.é${'a'.repeat(42)}`)}`);
  t.is(res.status, 400);
  isStatus(t, res.json, 3);
});

test('a body with an unpaired surrogate escape is refused, not stored as something else', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const res = await srv.call('POST', '/iam/v2/identities', `{"parent":"${srv.organizationUid}","identity":{"name":"a\\ud800b","claimMatch":{"issuer":"https://x.example","subject":"s"}}}`);
  t.is(res.status, 400);
  isStatus(t, res.json, 3);
  const pair = await srv.call('POST', '/iam/v2/identities', `{"parent":"${srv.organizationUid}","identity":{"name":"a\\ud83d\\ude00b","claimMatch":{"issuer":"https://x.example","subject":"s"}}}`);
  t.is(pair.status, 200, 'a proper surrogate pair is fine');
  t.is((await srv.call('GET', `/iam/v2/identities/${pair.json.uid}`)).json.name, 'a😀b');
});

test('U+0000, quotes and backslashes in any string the API accepts are stored and read back as sent, on every store', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const subject = 'a\u0000b \' " \\ \u{1F600}';
  const made = await srv.call('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'nul', description: subject, claimMatch: { issuer: 'https://x.example', subject } } });
  t.is(made.status, 200, made.text);
  const got = (await srv.call('GET', `/iam/v2/identities/${made.json.uid}`)).json;
  t.is(got.claimMatch.subject, subject);
  t.is(got.description, subject);
});

test('requests the HTTP parser rejects (unknown method, bad request line) still get a google.rpc.Status body', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  for (const raw of ['FOO /iam/v2/groups HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n', 'GET / HTTP/1.1\r\nHo st: x\r\n\r\n']) {
    const text = await new Promise<string>((resolve) => {
      let out = '';
      const sock = connect(srv.port, '127.0.0.1', () => sock.write(raw));
      sock.on('data', (d) => { out += d.toString(); });
      sock.on('close', () => resolve(out));
      sock.on('error', () => {});
    });
    t.regex(text, /^HTTP\/1\.1 400 /, raw);
    isStatus(t, JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)), 3);
  }
});
