// --debug / PCTL_DEBUG: request and response lines, timing and headers on stderr; bodies only
// with PCTL_DEBUG=api; no credential anywhere in the trace (the owner token, JWTs and token
// fields in bodies), and stdout exactly as without tracing.
import test from 'ava';
import { redactText } from '../src/api/redact.js';
import { cli, lines, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';
import { stub } from './helpers/stub.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;
let org: string;

// A JWT-shaped value (header.payload.signature), as a user might paste into a description.
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzb21lb25lIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
  org = srv.organizationUid;
});

test.after.always(() => stop?.());

test('--debug: request line, headers, status with timing, response headers; no bodies; no token', async (t) => {
  const plain = await pctl(['groups', 'get', org, '-o', 'json']);
  const r = await pctl(['groups', 'get', org, '-o', 'json', '--debug']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, plain.stdout, 'stdout is untouched by the trace');
  const err = r.stderr;
  t.regex(err, new RegExp(`^> GET ${srv.url}/iam/v2/groups/${org}$`, 'm'));
  t.regex(err, /^> authorization: Bearer \*\*\*$/m);
  t.regex(err, /^< 200 OK \(\d+ ms, \d+ bytes\)$/m);
  t.regex(err, /^< content-type: application\/json/m);
  t.notRegex(err, /^[<>] \{/m, 'no bodies without PCTL_DEBUG=api');
  t.false(err.includes(srv.ownerToken));

  const env = await pctl(['groups', 'get', org, '-o', 'json'], { env: { PCTL_DEBUG: '1' } });
  t.regex(env.stderr, /^> GET /m, 'PCTL_DEBUG=1 traces too');
});

test('PCTL_DEBUG=api adds bodies, with JWTs masked in both directions; stdout keeps the real value', async (t) => {
  const r = await pctl(['groups', 'create', 'jwt-holder', '--parent', org, '--description', `pasted ${JWT}`, '-o', 'json'], {
    env: { PCTL_DEBUG: 'api' },
  });
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).description, `pasted ${JWT}`);
  const bodies = lines(r.stderr).filter((l) => /^[<>] \{/.test(l));
  t.is(bodies.length, 2, r.stderr);
  t.regex(bodies[0]!, /^> \{"parent":.*"description":"pasted eyJ\*\*\*"/);
  t.regex(bodies[1]!, /^< \{.*"description":"pasted eyJ\*\*\*"/);
  t.false(r.stderr.includes(JWT.slice(0, 20)));
  t.false(r.stderr.includes(srv.ownerToken));
});

test('token fields in bodies are masked (a token endpoint answering through pctl api)', async (t) => {
  const secret = { access_token: 'pctl_abcdef123456', id_token: JWT, token: 'plain-secret-value', refresh_token: 'r-secret', expires_in: 3600 };
  const { url } = await stub(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'session=cookie-secret' });
    res.end(JSON.stringify(secret));
  });
  const r = await pctl(['api', 'POST', '/oauth/token?code=auth-code-secret', '-f', 'password=hunter2', '--api-url', url], {
    env: { PCTL_DEBUG: 'api', PCTL_TOKEN: 'pctl_owner_secret' },
  });
  t.is(r.code, 0, r.stderr);
  for (const leaked of ['pctl_abcdef123456', 'plain-secret-value', 'r-secret', 'cookie-secret', 'auth-code-secret', 'hunter2', 'pctl_owner_secret', JWT.slice(0, 20)]) {
    t.false(r.stderr.includes(leaked), `${leaked} leaked into the trace:\n${r.stderr}`);
  }
  t.regex(r.stderr, /"expires_in":3600/, 'the rest of the body is shown');
  t.regex(r.stderr, /"access_token":"\*\*\*"/);
  t.regex(r.stderr, /^< set-cookie: \*\*\*$/m);
});

test('redaction rules', (t) => {
  t.is(redactText('{"token": "abc", "name":"x"}'), '{"token":"***","name":"x"}', 'JSON is masked as a value, and shown as JSON again');
  t.is(redactText('grant_type=authorization_code&code=xyz&code_verifier=v1'), 'grant_type=authorization_code&code=***&code_verifier=***');
  t.is(redactText(`Bearer ${JWT}`), 'Bearer eyJ***');
  t.is(redactText('see pctl_0123abcd now'), 'see pctl_*** now');
  t.is(redactText('{"name":"eyJ"}'), '{"name":"eyJ"}', 'too short to be a token');
});
