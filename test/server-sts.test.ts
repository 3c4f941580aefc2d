// Signing in as the vendor's clients do: the audiences serve answers for, the token exchange
// (/sts/exchange, the SDK's form POST, JSON, GET), claimMatch patterns, refresh tokens that
// rotate, Auth/Validate (/auth/v1/ok), and issuers found through discovery.
import test from 'ava';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Auth } from '../src/gen/platform/auth/v1/auth.platform_pb.js';
import { SecurityTokenService } from '../src/gen/platform/oidc/v1/oidc.platform_pb.js';
import { GroupsService } from '../src/gen/chainguard/platform/iam/v2/groups_pb.js';
import { issueTestIssuerToken } from '../src/server/auth/authenticate.js';
import { importSigningKey, mintToken } from '../src/server/auth/tokens.js';
import { request, signingJwk, startTestServer } from './helpers/serve.js';
import { browser, csrfOf } from './helpers/browser.js';

const GH = 'https://token.actions.githubusercontent.com';
const I = '/iam/v2/identities';

async function server(t: import('ava').ExecutionContext, opts: Parameters<typeof startTestServer>[0] = {}) {
  const srv = await startTestServer({ trustTestIssuers: true, ...opts });
  t.teardown(() => srv.dispose());
  const key = await importSigningKey(signingJwk(srv));
  const apps = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'apps' } });
  /** An identity in the organization, bound to viewer on apps. */
  const identity = async (name: string, claimMatch: Record<string, unknown>) => {
    const id = await srv.ok('POST', I, { parent: srv.organizationUid, identity: { name, claimMatch } });
    await srv.ok('POST', '/iam/v2/roleBindings', { parent: apps.uid, roleBinding: { identityUid: id.uid, roleUid: await srv.roleUid('viewer') } });
    return id.uid as string;
  };
  /** A GitHub-Actions-shaped token (pctl serve token --as-issuer). */
  const ghToken = (subject: string, claims: Record<string, string> = {}, audience = [srv.url], now = Date.now()) =>
    issueTestIssuerToken(key, { issuer: GH, subject, audience, claims, ttlSeconds: 600, now });
  return { srv, key, apps, identity, ghToken };
}

/** A POST as the SDK's HTTP/1 fallback sends it: form-encoded fields, the token as bearer. */
async function form(url: string, path: string, bearer: string, fields: [string, string][]) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test('audiences: serve takes its own tokens for pctl, its URL and --audience, and refuses any other audience', async (t) => {
  const { srv, key } = await server(t, { audiences: ['https://api.example.test'] });
  const owner = (await srv.ok('GET', `${I}/${srv.ownerIdentityUid}`)).claimMatch.subject as string;
  const tokenFor = (audience: string) => mintToken(key, { issuer: srv.url, subject: owner, ttlSeconds: 600, now: Date.now(), audience });
  for (const aud of ['pctl', srv.url, `${srv.url}/`, 'https://api.example.test']) {
    t.is((await request(srv.url, 'GET', '/iam/v2/groups', undefined, bearer(await tokenFor(aud)))).status, 200, aud);
  }
  const refused = await request(srv.url, 'GET', '/iam/v2/groups', undefined, bearer(await tokenFor('https://elsewhere.test')));
  t.is(refused.status, 401);
  t.is(refused.json.code, 16);
  t.regex(refused.json.message, /audience "https:\/\/elsewhere.test" is not one this server answers for/);
});

test('the provider flow over REST: a workload token exchanged (form POST) for a pattern identity, the API called, refreshed, validated', async (t) => {
  const { srv, identity, ghToken, apps } = await server(t);
  const uid = await identity('deployer', { issuer: GH, subjectPattern: 'repo:acme/app:ref:refs/heads/.*', claims: { repository: 'acme/app' } });
  const id = await ghToken('repo:acme/app:ref:refs/heads/main', { repository: 'acme/app' });

  const exchanged = await form(srv.url, '/sts/exchange', id, [['aud', srv.url], ['identity', uid]]);
  t.is(exchanged.status, 200, JSON.stringify(exchanged.json));
  const { token, refreshToken, expiry } = exchanged.json as { token: string; refreshToken: string; expiry: string };
  t.true(Date.parse(expiry) > Date.now());
  // What the vendor's clients read of a refresh token: base64 JSON with exp.
  t.true((JSON.parse(Buffer.from(refreshToken, 'base64').toString()) as { exp: number }).exp > Date.now() / 1000);

  const groups = await request(srv.url, 'GET', `/iam/v2/groups/${apps.uid}`, undefined, bearer(token));
  t.is(groups.status, 200);
  // viewer only: writes are refused.
  t.is((await request(srv.url, 'POST', '/iam/v2/groups', { parent: apps.uid, group: { name: 'x' } }, bearer(token))).status, 403);

  const who = await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(token));
  t.is(who.status, 200);
  t.is(who.json.issuer, srv.url);
  t.is(who.json.subject, uid);
  t.deepEqual(who.json.audience, [srv.url]);
  t.true(Date.parse(who.json.expiry) > Date.now());
  t.is(who.json.capabilities[0].group.id, apps.uid);
  t.is(who.json.capabilities[0].role.name, 'viewer');
  t.true(who.json.capabilities[0].capabilities.includes('groups.list'));

  const refreshed = await form(srv.url, '/sts/exchange_refresh_token', refreshToken, []);
  t.is(refreshed.status, 200, JSON.stringify(refreshed.json));
  t.is((await request(srv.url, 'GET', `/iam/v2/groups/${apps.uid}`, undefined, bearer(refreshed.json.token.token))).status, 200);
  t.not(refreshed.json.refreshToken.token, refreshToken, 'a refresh token rotates');
});

test('the exchange reads JSON bodies and GET queries too; cap and scopes narrow what the token may do', async (t) => {
  const { srv, identity, ghToken, apps } = await server(t);
  const uid = await identity('builder', { issuer: GH, subject: 'repo:acme/app:pull_request' });
  const id = await ghToken('repo:acme/app:pull_request');
  const json = await request(srv.url, 'POST', '/sts/exchange', { aud: [srv.url], identity: uid, cap: ['groups.list'] }, bearer(id));
  t.is(json.status, 200, json.text);
  const narrowed = bearer(json.json.token);
  t.is((await request(srv.url, 'GET', `/iam/v2/groups/${apps.uid}`, undefined, narrowed)).status, 200);
  const bindings = `/iam/v2/roleBindings?uidp.children_of=${encodeURIComponent(apps.uid)}`;
  t.deepEqual((await request(srv.url, 'GET', bindings, undefined, narrowed)).json.roleBindings ?? [], [], 'roleBindings.list was not asked for');
  const who = await request(srv.url, 'GET', '/auth/v1/ok', undefined, narrowed);
  t.deepEqual(who.json.capabilities[0].capabilities, ['groups.list']);

  // scopes: only that group and below, though the binding is on apps.
  const web = await srv.ok('POST', '/iam/v2/groups', { parent: apps.uid, group: { name: 'web' } });
  const scoped = await request(srv.url, 'POST', '/sts/exchange', { aud: [srv.url], identity: uid, scopes: [web.uid] }, bearer(id));
  t.is(scoped.status, 200, scoped.text);
  t.is((await request(srv.url, 'GET', `/iam/v2/groups/${web.uid}`, undefined, bearer(scoped.json.token))).status, 200);
  t.not((await request(srv.url, 'GET', `/iam/v2/groups/${apps.uid}`, undefined, bearer(scoped.json.token))).status, 200, 'apps is outside the scope');
  const unknown = await request(srv.url, 'POST', '/sts/exchange', { aud: [srv.url], identity: uid, cap: ['groups.fly'] }, bearer(id));
  t.is(unknown.json.code, 3);
  t.regex(unknown.json.message, /cap "groups.fly" is not a capability/);

  const get = await request(srv.url, 'GET', `/sts/exchange?aud=${encodeURIComponent(srv.url)}`, undefined, bearer(id));
  t.is(get.status, 200, get.text);
  t.is((await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(get.json.token))).json.subject, uid, 'found without identity= (the exact match)');
  t.is((await request(srv.url, 'GET', bindings, undefined, bearer(get.json.token))).json.roleBindings.length, 1, 'not narrowed: its binding is listed');
});

test('without identity=, an exact claimMatch beats a pattern; two patterns are ambiguous', async (t) => {
  const { srv, identity, ghToken } = await server(t);
  const exact = await identity('exact', { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' });
  await identity('any-branch', { issuer: GH, subjectPattern: 'repo:acme/app:ref:refs/heads/.*' });
  const main = await form(srv.url, '/sts/exchange', await ghToken('repo:acme/app:ref:refs/heads/main'), [['aud', srv.url]]);
  t.is((await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(main.json.token))).json.subject, exact);

  await identity('any-ref', { issuer: GH, subjectPattern: 'repo:acme/app:ref:.*' });
  const dev = await form(srv.url, '/sts/exchange', await ghToken('repo:acme/app:ref:refs/heads/dev'), [['aud', srv.url]]);
  t.is(dev.status, 400);
  t.is(dev.json.code, 3);
  t.regex(dev.json.message, /2 identities match this token by pattern .*pass identity=UID/);
});

test('refusals of the exchange, each with its code', async (t) => {
  let now = Date.now();
  const { srv, identity, ghToken, key } = await server(t, { clock: () => now });
  const uid = await identity('deployer', { issuer: GH, subjectPattern: 'repo:acme/app:ref:refs/heads/main', audience: 'sts.example.test', claims: { repository: 'acme/app' } });
  const good = (sub = 'repo:acme/app:ref:refs/heads/main', claims = { repository: 'acme/app' }, aud = ['sts.example.test']) => ghToken(sub, claims, aud, now);
  const exchange = async (token: string, fields: [string, string][] = [['identity', uid], ['aud', srv.url]]) => form(srv.url, '/sts/exchange', token, fields);
  t.is((await exchange(await good())).status, 200);

  const refusals: [string, Promise<string>, [string, string][] | undefined, number, RegExp][] = [
    ['a pattern that does not match', good('repo:acme/app:ref:refs/heads/dev'), undefined, 7, /subject "repo:acme\/app:ref:refs\/heads\/dev" does not match the identity's subjectPattern/],
    ['a claim the identity requires, different', good(undefined, { repository: 'acme/other' }), undefined, 7, /claim repository is not "acme\/app"/],
    ['the identity token for another audience', good(undefined, undefined, ['https://elsewhere.test']), undefined, 7, /audience "https:\/\/elsewhere.test" does not match the identity's audience/],
    ['a minted token for an audience serve does not answer for', good(), [['identity', uid], ['aud', 'https://elsewhere.test']], 3, /aud "https:\/\/elsewhere.test" is not an audience this server answers for/],
    ['an unknown identity', good(), [['identity', `${uid}0`]], 7, /does not accept this token: no such identity/],
    ['a token of no identity', good('repo:other/x:ref:refs/heads/main'), [], 7, /No identity accepts this token/],
    ['a token signed by another key', (async () => {
      const { privateKey } = await generateKeyPair('ES256');
      return new SignJWT({ repository: 'acme/app' }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).setIssuer(GH).setSubject('repo:acme/app:ref:refs/heads/main')
        .setAudience('sts.example.test').setIssuedAt(Math.floor(now / 1000)).setExpirationTime(Math.floor(now / 1000) + 600).sign(privateKey);
    })(), undefined, 16, /signature is not valid/],
    ['an unknown field', good(), [['identity', uid], ['audience', srv.url]], 3, /audience: is not a field of ExchangeRequest/],
  ];
  for (const [what, token, fields, code, message] of refusals) {
    const res = await exchange(await token, fields);
    t.is(res.json.code, code, what);
    t.regex(res.json.message, message, what);
  }
  const expiring = await good();
  now += 11 * 60_000 + 60_000;
  const expired = await exchange(expiring);
  t.is(expired.status, 401);
  t.regex(expired.json.message, /has expired/);
});

test('a refresh token reused after rotation is refused, and revokes every token of its sign-in', async (t) => {
  const { srv, identity, ghToken } = await server(t);
  const uid = await identity('deployer', { issuer: GH, subject: 'repo:acme/app:ref:refs/heads/main' });
  const first = await form(srv.url, '/sts/exchange', await ghToken('repo:acme/app:ref:refs/heads/main'), [['identity', uid], ['aud', srv.url]]);
  const second = await form(srv.url, '/sts/exchange_refresh_token', first.json.refreshToken, []);
  t.is(second.status, 200);
  const reused = await form(srv.url, '/sts/exchange_refresh_token', first.json.refreshToken, []);
  t.is(reused.status, 401);
  t.is(reused.json.code, 16);
  t.regex(reused.json.message, /already used: it has leaked, so every token of its sign-in is now revoked/);
  const later = await form(srv.url, '/sts/exchange_refresh_token', second.json.refreshToken.token, []);
  t.is(later.status, 401, 'the rotated refresh token went with it');
  const api = await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(second.json.token.token));
  t.is(api.status, 401, 'and so did the access tokens');
  t.regex(api.json.message, /revoked/);
});

test('identity tokens of an issuer found through its discovery document and JWKS (loopback), cached by their lifetime', async (t) => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  let issuer = '';
  const issuerServer: Server = createServer((req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'max-age=3600');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    else if (req.url === '/keys') res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => issuerServer.close());
  issuer = `http://127.0.0.1:${(issuerServer.address() as { port: number }).port}`;

  let now = Date.now();
  const { srv, identity } = await server(t, { trustTestIssuers: false, clock: () => now });
  const uid = await identity('cluster', { issuer, subject: 'system:serviceaccount:ci:builder' });
  const sign = (kid: string, key = privateKey) => new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(issuer).setSubject('system:serviceaccount:ci:builder')
    .setAudience(srv.url).setIssuedAt().setExpirationTime('10m').sign(key);
  for (let i = 0; i < 2; i++) {
    const res = await form(srv.url, '/sts/exchange', await sign('k1'), [['aud', srv.url]]);
    t.is(res.status, 200, JSON.stringify(res.json));
    t.is((await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(res.json.token))).json.subject, uid);
  }
  t.is(fetches, 2, 'discovery and JWKS fetched once, then cached');
  const other = await generateKeyPair('RS256');
  now += 31_000; // past the cooldown between two fetches for unknown kids
  const refused = await form(srv.url, '/sts/exchange', await sign('k2', other.privateKey), [['aud', srv.url]]);
  t.is(refused.status, 401);
  t.regex(refused.json.message, /signed with an unknown key/);
  t.is(fetches, 4, 'an unknown kid fetched the keys again (rotation)');
});

test('an issuer whose JWKS never ends (loopback): refused once 256 KiB have come, the connection dropped, not read to the end', async (t) => {
  let issuer = '';
  let sent = 0;
  let dropped: () => void;
  const droppedWhileSending = new Promise<void>((resolve) => (dropped = resolve));
  const issuerServer: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') return void res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    // A body without a length that goes on as long as it is read.
    const chunk = Buffer.alloc(16 * 1024, ' ');
    res.write('{"keys": [');
    const more = () => {
      while (!res.destroyed && sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
    };
    res.on('close', () => dropped());
    more();
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => issuerServer.close());
  issuer = `http://127.0.0.1:${(issuerServer.address() as { port: number }).port}`;
  const { srv, identity } = await server(t, { trustTestIssuers: false });
  await identity('endless', { issuer, subject: 'ci' });
  const { privateKey } = await generateKeyPair('RS256');
  const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setSubject('ci').setAudience(srv.url).setIssuedAt().setExpirationTime('10m').sign(privateKey);
  const res = await form(srv.url, '/sts/exchange', token, [['aud', srv.url]]);
  t.is(res.status, 401, JSON.stringify(res.json));
  t.regex(res.json.message, /\/keys is larger than 262144 bytes/);
  await droppedWhileSending;
  t.true(sent < 64 * 1024 * 1024, `serve stopped reading: ${sent} bytes written before the connection closed`);
});

test('without --trust-test-issuers a token of serve\'s key under another issuer is not taken', async (t) => {
  const { srv, identity, key } = await server(t, { trustTestIssuers: false });
  // A loopback issuer nobody answers for: nothing is fetched beyond this machine.
  const issuer = 'http://127.0.0.1:9';
  await identity('ci', { issuer, subject: 'ci' });
  const token = await issueTestIssuerToken(key, { issuer, subject: 'ci', audience: [srv.url], claims: {}, ttlSeconds: 600, now: Date.now() });
  const res = await form(srv.url, '/sts/exchange', token, [['aud', srv.url]]);
  t.is(res.status, 401);
  t.regex(res.json.message, /Could not fetch http:\/\/127.0.0.1:9\/.well-known\/openid-configuration/);
});

test('claimMatch patterns are checked when an identity is created: RE2 has no lookaround and no backreferences', async (t) => {
  const { srv } = await server(t);
  const create = (claimMatch: Record<string, unknown>) => srv.call('POST', I, { parent: srv.organizationUid, identity: { name: 'x', claimMatch } });
  for (const [claimMatch, message] of [
    [{ issuer: GH, subjectPattern: 'repo:(?!evil).*' }, /lookahead or lookbehind/],
    [{ issuer: GH, subjectPattern: '(a)\\1' }, /backreferences/],
    [{ issuer: GH, subjectPattern: '(a+)+' }, /nest quantifiers/],
    [{ issuer: GH, subjectPattern: 'repo:[' }, /not a valid regular expression/],
    [{ issuer: GH, subject: 's', subjectPattern: 's.*' }, /exactly one of subject and subjectPattern/],
    [{ issuer: GH }, /exactly one of subject and subjectPattern/],
  ] as const) {
    const res = await create(claimMatch);
    t.is(res.status, 400, JSON.stringify(claimMatch));
    t.regex(res.text, message);
  }
  const ok = await create({ issuerPattern: 'https://gitlab\\.example\\.(com|org)', subjectPattern: 'project_path:acme/.*', claimPatterns: { ref: 'main|release-.*' } });
  t.is(ok.status, 200, ok.text);
  t.is(ok.json.claimMatch.subjectPattern, 'project_path:acme/.*');
  t.deepEqual(ok.json.claimMatch.claimPatterns, { ref: 'main|release-.*' });
});


test('over gRPC: Exchange with identity and aud, the API with the minted token, Validate, ExchangeRefreshToken; a reused refresh token is UNAUTHENTICATED', async (t) => {
  const { srv, identity, ghToken, apps } = await server(t);
  const uid = await identity('deployer', { issuer: GH, subjectPattern: 'repo:acme/app:.*' });
  const transport = createGrpcTransport({ baseUrl: srv.url });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const sts = createClient(SecurityTokenService, transport);
  const raw = await sts.exchange({ aud: [srv.url], identity: uid }, as(await ghToken('repo:acme/app:ref:refs/heads/main')));
  t.true(raw.token.length > 0 && raw.refreshToken.length > 0);
  t.true(Number(raw.expiry!.seconds) * 1000 > Date.now());

  const group = await createClient(GroupsService, transport).getGroup({ uid: apps.uid }, as(raw.token));
  t.is(group.name, 'apps');
  const who = await createClient(Auth, transport).validate({}, as(raw.token));
  t.is(who.subject, uid);
  t.deepEqual(who.audience, [srv.url]);
  t.is(who.capabilities[0]!.group!.id, apps.uid);

  const pair = await sts.exchangeRefreshToken({}, as(raw.refreshToken));
  t.is((await createClient(Auth, transport).validate({}, as(pair.token!.token))).subject, uid);
  const reused = await t.throwsAsync(sts.exchangeRefreshToken({}, as(raw.refreshToken)), { instanceOf: ConnectError });
  t.is(reused.code, Code.Unauthenticated);
  const refused = await t.throwsAsync(sts.exchange({ aud: [srv.url], identity: uid }, as(await ghToken('repo:other/app:ref:refs/heads/main'))), { instanceOf: ConnectError });
  t.is(refused.code, Code.PermissionDenied);
  t.regex(refused.rawMessage, /does not match the identity's subjectPattern/);
});

test('the vendor\'s browser sign-in: /oauth?exit=redirect through the owner and identity pages, back to the loopback callback with token and refresh_token', async (t) => {
  const { srv, apps } = await server(t);
  const issuer = (await srv.ok('GET', `${I}/${srv.ownerIdentityUid}`)).claimMatch.issuer as string;
  const alice = await srv.ok('POST', I, { parent: srv.organizationUid, identity: { name: 'alice', claimMatch: { issuer, subject: 'alice' } } });
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: apps.uid, roleBinding: { identityUid: alice.uid, roleUid: await srv.roleUid('viewer') } });
  // The SDK's callback server (reference/auth/login/server.go): /callback?token=true&error=true, then /.
  const seen: URLSearchParams[] = [];
  const callback = createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    if (url.pathname === '/callback') seen.push(url.searchParams);
    res.end('ok');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  t.teardown(() => callback.close());
  const redirect = `http://localhost:${(callback.address() as { port: number }).port}/callback?token=true&error=true`;
  const start = `${srv.url}/oauth?${new URLSearchParams({ exit: 'redirect', redirect, audience: srv.url, identity: alice.uid, create_refresh_token: 'true' }).toString()}`;

  const b = browser();
  const owner = await b.go(start);
  t.is(owner.status, 200);
  const csrf = csrfOf(owner.html);
  t.is((await b.go(`${srv.url}/oauth`, { csrf, step: 'owner', owner_token: srv.ownerToken })).status, 200);
  const done = await b.go(`${srv.url}/oauth`, { csrf, step: 'pick', identity: alice.uid, action: 'allow' });
  t.is(done.status, 303);
  const location = done.headers.get('location')!;
  t.true(location.startsWith(`http://localhost:${(callback.address() as { port: number }).port}/callback?`));
  t.is((await fetch(location)).status, 200, 'the client\'s callback took it');
  const [params] = seen;
  const who = await request(srv.url, 'GET', '/auth/v1/ok', undefined, bearer(params!.get('token')!));
  t.is(who.json.subject, alice.uid);
  t.deepEqual(who.json.audience, [srv.url]);
  t.is(params!.get('error'), null);
  const refreshed = await form(srv.url, '/sts/exchange_refresh_token', params!.get('refresh_token')!, []);
  t.is(refreshed.status, 200);

  for (const [query, message] of [
    [{ exit: 'redirect', redirect: 'https://evil.example/callback' }, /redirect is refused: it must use http: on a loopback address/],
    [{ exit: 'redirect', redirect, audience: 'https://elsewhere.test' }, /aud &#34;https:\/\/elsewhere.test&#34; is not an audience this server answers for/],
    [{ exit: 'close', redirect }, /only exit=redirect/],
  ] as const) {
    const page = await b.go(`${srv.url}/oauth?${new URLSearchParams(query).toString()}`);
    t.is(page.status, 400);
    t.regex(page.html, message);
  }
});
