// `pctl auth login` end to end: serve's authorize/token/userinfo endpoints, with a headless
// HTTP client playing the browser while the real CLI runs in-process and waits on its
// loopback server; and every refusal of the authorization-code + PKCE flow.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { closeAgent } from '../src/client/http.js';
import { browser, csrfOf } from './helpers/browser.js';
import { captureIO, cli, type RunResult } from './helpers/cli.js';
import { request, startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';

// The two tests that run the CLI are serial: each main() owns the process's HTTP agent.
test.after.always(async () => {
  await closeAgent();
});

interface Fixture {
  srv: TestServer;
  alice: { uid: string; name: string };
  outsider: { uid: string };
  weird: { uid: string };
}

async function setup(clock?: () => number): Promise<Fixture> {
  const srv = await startTestServer(clock ? { clock } : {});
  const post = async (path: string, body: unknown) => {
    const res = await srv.call('POST', path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const roles = (await srv.call('GET', '/iam/v2/roles')).json.roles as { uid: string; name: string }[];
  const viewer = roles.find((r) => r.name === 'viewer')!.uid;
  const alice = await post(I, { parent: srv.organizationUid, identity: { name: 'alice', claimMatch: { issuer: srv.url, subject: 'alice' } } });
  await post(RB, { parent: srv.organizationUid, roleBinding: { identityUid: alice.uid, roleUid: viewer } });
  const outsider = await post(I, {
    parent: srv.organizationUid,
    identity: { name: 'ci-bot', claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app' } },
  });
  const weird = await post(I, { parent: srv.organizationUid, identity: { name: '<img src=x onerror=alert(1)>', claimMatch: { issuer: srv.url, subject: 'weird' } } });
  return { srv, alice, outsider, weird };
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(base: string, params: Record<string, string>): string {
  const url = new URL('/oauth/authorize', base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

const tokenRequest = (base: string, form: Record<string, string>) =>
  request(base, 'POST', '/oauth/token', new URLSearchParams(form).toString(), { 'content-type': 'application/x-www-form-urlencoded' });

/** Runs the authorize steps headlessly for a made-up loopback client: returns the code. */
async function getCode(srv: TestServer, identityUid: string, redirectUri = 'http://127.0.0.1:9/callback', state = 'st-1') {
  const { verifier, challenge } = pkce();
  const b = browser();
  const first = await b.go(authorizeUrl(srv.url, {
    response_type: 'code', client_id: 'pctl', redirect_uri: redirectUri, state, code_challenge: challenge, code_challenge_method: 'S256',
  }));
  const csrf = csrfOf(first.html);
  await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'owner', owner_token: srv.ownerToken });
  const done = await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'pick', identity: identityUid, action: 'allow' });
  if (done.status !== 303) throw new Error(`expected a redirect, got ${done.status}: ${done.html}`);
  const location = new URL(done.headers.get('location')!);
  return { code: location.searchParams.get('code')!, verifier, redirectUri, location };
}

/** Starts `pctl auth login --no-browser` in-process; resolves the sign-in URL once it is printed. */
function startLogin(argv: string[], env: Record<string, string>) {
  const { io, out, err, untilErr } = captureIO();
  const done: Promise<RunResult> = (async () => {
    const started = performance.now();
    const code = await main(argv, { io, env });
    return { code, stdout: out(), stderr: err(), ms: performance.now() - started };
  })();
  // The write that prints the URL resolves this; a login that ends first rejects it.
  const url = Promise.race([
    untilErr(/(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/).then((m) => m[1]!),
    done.then((r) => Promise.reject(new Error(`login ended (exit ${r.code}) without a sign-in URL on stderr: ${r.stderr}`))),
  ]);
  return { url, done, err };
}

test.serial('auth login end to end: browser sign-in, then status, token, a command with the saved token, logout', async (t) => {
  const { srv, alice, outsider, weird } = await setup();
  t.teardown(() => srv.dispose());
  const configDir = tempDir('pctl-auth-');
  const env = { PCTL_CONFIG_DIR: configDir };
  const pctl = cli(env);

  const disc = await request(srv.url, 'GET', '/.well-known/openid-configuration');
  t.is(disc.json.authorization_endpoint, `${srv.url}/oauth/authorize`);
  t.is(disc.json.token_endpoint, `${srv.url}/oauth/token`);
  t.is(disc.json.userinfo_endpoint, `${srv.url}/oauth/userinfo`);

  const login = startLogin(['--api-url', srv.url, 'auth', 'login', '--no-browser'], env);
  const signIn = new URL(await login.url);
  t.is(signIn.searchParams.get('client_id'), 'pctl');
  t.is(signIn.searchParams.get('code_challenge_method'), 'S256');
  t.regex(signIn.searchParams.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  t.truthy(signIn.searchParams.get('state'));

  const b = browser();
  const ownerStep = await b.go(signIn.toString());
  t.is(ownerStep.status, 200);
  t.regex(ownerStep.headers.get('content-type')!, /^text\/html/);
  t.regex(ownerStep.headers.get('content-security-policy')!, /default-src 'none'/);
  t.is(ownerStep.headers.get('x-frame-options'), 'DENY');
  t.false(/<script|<link|src="http/i.test(ownerStep.html), 'self-contained: no scripts, no external assets');
  t.regex(ownerStep.html, /owner token/);
  const csrf = csrfOf(ownerStep.html);

  // A wrong owner token (a valid token of another identity) is refused and never echoed.
  const aliceToken = await srv.issueToken(alice.uid);
  const wrong = await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'owner', owner_token: aliceToken });
  t.is(wrong.status, 401);
  t.regex(wrong.html, /not the owner token/);
  t.false(wrong.html.includes(aliceToken));
  t.is(b.jar.size, 0, 'no session for a failed proof');
  // Picking before proving is refused.
  t.is((await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'pick', identity: alice.uid })).status, 401);

  const pick = await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'owner', owner_token: srv.ownerToken });
  t.is(pick.status, 200);
  t.false(pick.html.includes(srv.ownerToken), 'the owner token is not echoed');
  t.true(pick.html.includes(`value="${alice.uid}"`), 'identities of this issuer are listed');
  t.true(pick.html.includes(`value="${srv.ownerIdentityUid}"`));
  t.false(pick.html.includes(outsider.uid), 'identities of other issuers are not');
  t.true(pick.html.includes('&#60;img src=x onerror=alert(1)&#62;'), 'names are escaped');
  t.false(pick.html.includes('<img src=x'), 'nothing interpolated raw');
  t.true(pick.html.includes(weird.uid) || pick.html.includes(weird.uid.replace(/</g, '&#60;')));
  t.is(csrfOf(pick.html), csrf);
  t.true(b.jar.has('pctl_signin'), 'a sign-in session cookie');
  t.regex(pick.headers.get('set-cookie')!, /HttpOnly; SameSite=Strict/);

  // An identity of another issuer cannot be posted either.
  t.is((await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'pick', identity: outsider.uid })).status, 400);

  const redirect = await b.go(`${srv.url}/oauth/authorize`, { csrf, step: 'pick', identity: alice.uid, action: 'allow' });
  t.is(redirect.status, 303);
  const location = new URL(redirect.headers.get('location')!);
  t.is(`${location.origin}${location.pathname}`, signIn.searchParams.get('redirect_uri')!);
  t.is(location.searchParams.get('state'), signIn.searchParams.get('state'));
  t.truthy(location.searchParams.get('code'));

  // The browser follows the redirect to the CLI's loopback server.
  const landed = await b.go(location.toString());
  t.is(landed.status, 200);
  t.regex(landed.html, /You can close this tab/);

  const result = await login.done;
  t.is(result.code, 0, result.stderr);
  t.regex(result.stderr, new RegExp(`Logged in to ${srv.url.replace(/\./g, '\\.')} as alice \\(${alice.uid}\\); token saved in profile "127\\.0\\.0\\.1"`));
  t.is(result.stdout, '');

  // The CLI's loopback server is gone once the login is over.
  await t.throwsAsync(b.go(location.toString()), undefined, 'the loopback server has stopped');

  // Saved: the profile holds the URL and the token, in a 0600 file.
  const file = join(configDir, 'config.json');
  t.is(statSync(file).mode & 0o777, 0o600);
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  t.is(saved.currentProfile, '127.0.0.1');
  t.is(saved.profiles['127.0.0.1'].apiUrl, srv.url);
  const token = saved.profiles['127.0.0.1'].token as string;
  t.false(result.stderr.includes(token), 'the token is not printed');

  const status = await pctl(['auth', 'status']);
  t.is(status.code, 0, status.stderr);
  t.regex(status.stdout, /Profile: +127\.0\.0\.1/);
  t.regex(status.stdout, new RegExp(`Issuer: +${srv.url.replace(/\./g, '\\.')}`));
  t.regex(status.stdout, /Subject: +alice/);
  t.regex(status.stdout, new RegExp(`Identity: +alice \\(${alice.uid}\\)`));
  t.regex(status.stdout, /Expires: +\d{4}-\d\d-\d\dT/);
  t.false(status.stdout.includes(token) || status.stderr.includes(token));
  const json = JSON.parse((await pctl(['auth', 'status', '-o', 'json'])).stdout);
  t.like(json, { profile: '127.0.0.1', apiUrl: srv.url, issuer: srv.url, subject: 'alice', identity: { uid: alice.uid, name: 'alice' }, tokenSource: 'profile' });
  // Read from the token, not against the wall clock: 8 h from the moment it was issued.
  const issued = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
  t.is(issued.exp - issued.iat, 8 * 3600, '8h lifetime by default');
  t.is(Date.parse(json.expireTime), issued.exp * 1000);

  const debug = await pctl(['auth', 'status', '--debug']);
  t.is(debug.code, 0);
  t.regex(debug.stderr, /authorization: Bearer \*\*\*/);
  t.false(debug.stderr.includes(token), '--debug masks the token');

  const printed = await pctl(['auth', 'token']);
  t.is(printed.stdout, `${token}\n`);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  t.like(claims, { iss: srv.url, sub: 'alice', aud: 'pctl' });

  // A command with the saved token: alice is a viewer.
  const list = await pctl(['groups', 'list', '-o', 'json']);
  t.is(list.code, 0, list.stderr);
  t.true(Array.isArray(JSON.parse(list.stdout)));
  const create = await pctl(['groups', 'create', 'nope', '--parent', srv.organizationUid]);
  t.is(create.code, 4, 'a viewer may not create');

  // userinfo straight from the API.
  const info = await request(srv.url, 'GET', '/oauth/userinfo', undefined, { authorization: `Bearer ${token}` });
  t.deepEqual(info.json, { sub: 'alice', iss: srv.url, identity: { uid: alice.uid, name: 'alice' } });
  t.is((await request(srv.url, 'GET', '/oauth/userinfo')).status, 401);

  const logout = await pctl(['auth', 'logout']);
  t.is(logout.code, 0);
  t.regex(logout.stderr, /Logged out/);
  t.false('token' in JSON.parse(readFileSync(file, 'utf8')).profiles['127.0.0.1']);
  const after = await pctl(['auth', 'status']);
  t.is(after.code, 4);
  t.regex(after.stderr, /^error: not logged in: profile 127\.0\.0\.1 holds no token; run pctl auth login\n$/);
  t.is((await pctl(['auth', 'token'])).code, 4);
  t.regex((await pctl(['auth', 'logout'])).stderr, /already logged out/);

  // Signing in again (the profile keeps its URL): the browser's session skips the owner token.
  const again = startLogin(['auth', 'login', '--no-browser'], env);
  const second = await b.go(await again.url);
  t.is(second.status, 200);
  t.false(second.html.includes('name="owner_token"'), 'proved once: straight to the identity picker');
  const back = await b.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(second.html), step: 'pick', identity: srv.ownerIdentityUid, action: 'allow' });
  t.is(back.status, 303);
  await b.go(back.headers.get('location')!);
  const result2 = await again.done;
  t.is(result2.code, 0, result2.stderr);
  t.regex(result2.stderr, /as owner/);
  t.is(JSON.parse((await pctl(['auth', 'status', '-o', 'json'])).stdout).identity.uid, srv.ownerIdentityUid);
});

test.serial('the CLI refuses an answer whose state does not match, and a cancelled sign-in; nothing is saved', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const configDir = tempDir('pctl-auth-');
  const env = { PCTL_CONFIG_DIR: configDir };

  const login = startLogin(['--api-url', srv.url, 'auth', 'login', '--no-browser'], env);
  const signIn = new URL(await login.url);
  const redirectUri = signIn.searchParams.get('redirect_uri')!;
  // A forged callback (someone else's code, a wrong state) reaches the loopback server first.
  const forged = await fetch(`${redirectUri}?code=stolen&state=not-the-state`);
  t.is(forged.status, 400);
  const result = await login.done;
  t.is(result.code, 4);
  t.regex(result.stderr, /^error: the sign-in answer does not match this login \(state mismatch/m);
  t.throws(() => statSync(join(configDir, 'config.json')), undefined, 'nothing saved');

  const login2 = startLogin(['--api-url', srv.url, 'auth', 'login', '--no-browser'], env);
  const b = browser();
  const page = await b.go(await login2.url);
  const cancel = await b.go(`${srv.url}/oauth/authorize`, { csrf: csrfOf(page.html), action: 'deny' });
  t.is(cancel.status, 303);
  const location = new URL(cancel.headers.get('location')!);
  t.is(location.searchParams.get('error'), 'access_denied');
  await b.go(location.toString());
  const result2 = await login2.done;
  t.is(result2.code, 4);
  t.regex(result2.stderr, /^error: sign-in failed \(access_denied/m);
});

test('authorize refuses unknown clients and non-loopback redirect URIs with a page, never a redirect', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const { challenge } = pkce();
  const params = { response_type: 'code', client_id: 'pctl', state: 's', code_challenge: challenge, code_challenge_method: 'S256' };
  const bad = [
    'https://evil.example/callback',
    'http://evil.example:8080/callback',
    'http://127.0.0.1.evil.example:80/callback',
    'https://127.0.0.1:8443/callback',
    'http://127.0.0.1/callback',
    'http://user:pw@127.0.0.1:9/callback',
    'http://127.0.0.1:9/callback#frag',
    'http://[::2]:9/callback',
    'http://[::ffff:7f00:1]:9/callback',
    'javascript:alert(1)',
    '',
  ];
  for (const redirectUri of bad) {
    const res = await browser().go(authorizeUrl(srv.url, { ...params, redirect_uri: redirectUri }));
    t.is(res.status, 400, redirectUri);
    t.is(res.headers.get('location'), null, `${redirectUri}: not redirected`);
    t.regex(res.html, /redirect_uri is refused/, redirectUri);
    t.false(res.html.includes('<script'), redirectUri);
  }
  const evilClient = await browser().go(authorizeUrl(srv.url, { ...params, client_id: 'other', redirect_uri: 'http://127.0.0.1:9/cb' }));
  t.is(evilClient.status, 400);
  t.regex(evilClient.html, /Unknown client_id/);
  for (const ok of ['http://127.0.0.1:9/cb', 'http://localhost:51234/callback?x=1', 'http://[::1]:9/cb', 'http://[0:0:0:0:0:0:0:1]:9/']) {
    t.is((await browser().go(authorizeUrl(srv.url, { ...params, redirect_uri: ok }))).status, 200, ok);
  }
  // A loopback client without PKCE (or with plain) gets the error back at its redirect URI.
  for (const [k, v] of [['code_challenge_method', 'plain'], ['code_challenge', 'short']] as const) {
    const res = await browser().go(authorizeUrl(srv.url, { ...params, redirect_uri: 'http://127.0.0.1:9/cb', [k]: v }));
    t.is(res.status, 303);
    const loc = new URL(res.headers.get('location')!);
    t.is(loc.origin, 'http://127.0.0.1:9');
    t.is(loc.searchParams.get('error'), 'invalid_request');
    t.is(loc.searchParams.get('state'), 's');
  }
  // A stale or made-up form token.
  const stale = await browser().go(`${srv.url}/oauth/authorize`, { csrf: 'made-up', step: 'owner', owner_token: srv.ownerToken });
  t.is(stale.status, 400);
  t.regex(stale.html, /expired or was already used/);
});

test('token endpoint: PKCE verifier, single use, client and redirect binding, RFC 6749 errors', async (t) => {
  const { srv, alice } = await setup();
  t.teardown(() => srv.dispose());
  const exchange = (form: Record<string, string>) => tokenRequest(srv.url, form);
  const base = (c: { code: string; verifier: string; redirectUri: string }) => ({
    grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, client_id: 'pctl', code_verifier: c.verifier,
  });

  // Bad verifier: refused, and the code is spent.
  const a = await getCode(srv, alice.uid);
  t.is(a.location.searchParams.get('state'), 'st-1');
  const badVerifier = await exchange({ ...base(a), code_verifier: pkce().verifier });
  t.is(badVerifier.status, 400);
  t.deepEqual(Object.keys(badVerifier.json).sort(), ['error', 'error_description']);
  t.is(badVerifier.json.error, 'invalid_grant');
  t.regex(badVerifier.json.error_description, /code_verifier does not match/);
  t.is(badVerifier.headers.get('cache-control'), 'no-store');
  t.is((await exchange(base(a))).json.error, 'invalid_grant', 'a code is spent by a failed attempt too');

  // Good exchange, then reuse.
  const b = await getCode(srv, alice.uid);
  const ok = await exchange(base(b));
  t.is(ok.status, 200, ok.text);
  t.is(ok.json.token_type, 'Bearer');
  t.is(ok.json.expires_in, 8 * 3600);
  for (const jwt of [ok.json.access_token, ok.json.id_token]) {
    t.like(JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()), { iss: srv.url, sub: 'alice', aud: 'pctl' });
  }
  t.is(JSON.parse(Buffer.from(ok.json.id_token.split('.')[1], 'base64url').toString()).name, 'alice');
  const works = await request(srv.url, 'GET', '/iam/v2/groups', undefined, { authorization: `Bearer ${ok.json.access_token}` });
  t.is(works.status, 200);
  const reused = await exchange(base(b));
  t.is(reused.status, 400);
  t.is(reused.json.error, 'invalid_grant');
  t.regex(reused.json.error_description, /unknown or was already used/);

  // Bound to the redirect URI and the client.
  const c = await getCode(srv, alice.uid);
  t.regex((await exchange({ ...base(c), redirect_uri: 'http://127.0.0.1:10/callback' })).json.error_description, /redirect_uri does not match/);
  const d = await getCode(srv, alice.uid);
  t.regex((await exchange({ ...base(d), client_id: 'other' })).json.error_description, /another client_id/);
  const e = await getCode(srv, alice.uid);
  t.regex((await exchange({ ...base(e), code_verifier: 'short' })).json.error_description, /43 to 128/);

  t.is((await exchange({ grant_type: 'password', username: 'x' })).json.error, 'unsupported_grant_type');
  t.is((await exchange({ grant_type: 'authorization_code', code: 'made-up' })).json.error, 'invalid_grant');
});

test('an authorization code expires after 60 seconds (injected clock)', async (t) => {
  // serve's clock stands still but for the steps below: the real time between minting a code
  // and using it (long on a loaded machine) does not count.
  const start = Date.now();
  let offset = 0;
  const { srv, alice } = await setup(() => start + offset);
  t.teardown(() => srv.dispose());
  const fresh = await getCode(srv, alice.uid);
  offset = 59_000;
  const form = (c: typeof fresh) => ({ grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, client_id: 'pctl', code_verifier: c.verifier });
  t.is((await tokenRequest(srv.url, form(fresh))).status, 200, 'still good at 59 s');
  offset = 0;
  const stale = await getCode(srv, alice.uid);
  offset = 61_000;
  const res = await tokenRequest(srv.url, form(stale));
  t.is(res.status, 400);
  t.is(res.json.error, 'invalid_grant');
  t.regex(res.json.error_description, /expired/);
});
