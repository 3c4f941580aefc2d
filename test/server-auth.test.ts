// Identity-based access: serve's tokens, who is calling, and what they may do.
import test from 'ava';
import { generateKeyPair, SignJWT } from 'jose';
import { request, signingJwk, startTestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const ROLES = '/iam/v2/roles';

async function setup(clock?: () => number) {
  const srv = await startTestServer(clock ? { clock } : {});
  const post = async (path: string, body: unknown) => {
    const res = await srv.call('POST', path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const roles = (await srv.call('GET', ROLES)).json.roles as { uid: string; name: string }[];
  const roleUid = (name: string) => roles.find((r) => r.name === name)!.uid;
  const issuer = (await srv.call('GET', `${I}/${srv.ownerIdentityUid}`)).json.claimMatch.issuer as string;
  const apps = await post(G, { parent: srv.organizationUid, group: { name: 'apps' } });
  const web = await post(G, { parent: apps.uid, group: { name: 'web' } });
  const api = await post(G, { parent: apps.uid, group: { name: 'api' } });
  const webCache = await post(G, { parent: web.uid, group: { name: 'cache' } });
  /** An identity of serve's own issuer, bound to a role on a group, and a token for it. */
  const person = async (name: string, role: string, group: string) => {
    const id = await post(I, { parent: srv.organizationUid, identity: { name, claimMatch: { issuer, subject: name } } });
    await post(RB, { parent: group, roleBinding: { identityUid: id.uid, roleUid: roleUid(role) } });
    const token = await srv.issueToken(id.uid);
    const as = (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });
    return { id, token, as };
  };
  return { srv, post, roleUid, issuer, apps, web, api, webCache, person };
}

function reason(body: { details: { '@type': string; reason?: string }[] }) {
  return body.details.find((d) => d['@type'].endsWith('ErrorInfo'))?.reason;
}

test('OIDC discovery and JWKS are public; the owner token is a JWT of serve\'s issuer', async (t) => {
  const { srv, issuer } = await setup();
  t.teardown(() => srv.dispose());
  const disc = await request(srv.url, 'GET', '/.well-known/openid-configuration');
  t.is(disc.status, 200);
  t.is(disc.json.issuer, srv.url);
  t.is(issuer, srv.url);
  const jwks = await request(srv.url, 'GET', new URL(disc.json.jwks_uri).pathname);
  t.is(jwks.json.keys[0].kty, 'EC');
  t.false('d' in jwks.json.keys[0], 'no private part');
  const [, payload] = srv.ownerToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  t.is(claims.iss, srv.url);
  t.is(claims.aud, 'pctl');
  t.true(claims.exp > claims.iat);
  t.is(signingJwk(srv).kid, jwks.json.keys[0].kid, 'the key serve keeps (its data dir, or the database) is the one it publishes');
});

test('every bypass attempt is refused with 401, code 16, naming what failed and never echoing the token', async (t) => {
  let now = Date.now();
  const { srv, issuer, person } = await setup(() => now);
  t.teardown(() => srv.dispose());
  const alice = await person('alice', 'viewer', srv.organizationUid);
  const other = await generateKeyPair('ES256');
  const sign = (claims: Record<string, unknown>, key = other.privateKey, header: Record<string, unknown> = { alg: 'ES256' }) =>
    new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const base = { iss: issuer, sub: 'alice', aud: 'pctl', iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 600 };
  const kid = JSON.parse(Buffer.from(alice.token.split('.')[0]!, 'base64url').toString()).kid;

  const attempts: [string, string, RegExp][] = [
    ['garbage', 'not-a-token', /not a JWT/],
    ['alg none', `${b64({ alg: 'none' })}.${b64(base)}.`, /algorithm none/],
    ['wrong signature', await sign(base, other.privateKey, { alg: 'ES256', kid }), /signature/],
    ['unknown key', await sign(base), /unknown key/],
    ['wrong issuer', await sign({ ...base, iss: 'https://evil.example' }), /issuer/],
    ['one character off subject', await srv.issueToken(alice.id.uid).then((tok) => {
      const [h, p, s] = tok.split('.');
      return `${h}.${b64({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'alicf' })}.${s}`;
    }), /signature/],
    ['tampered payload', `${alice.token.split('.')[0]}.${b64({ ...base, sub: 'owner' })}.${alice.token.split('.')[2]}`, /signature/],
  ];
  for (const [what, token, message] of attempts) {
    const res = await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${token}` });
    t.is(res.status, 401, what);
    t.is(res.json.code, 16, what);
    t.regex(res.json.message, message, what);
    if (token.length > 20) t.false(res.text.includes(token), `${what}: token not echoed`);
  }

  // A valid signature for a subject no identity has: refused by the identity match.
  const stranger = await srv.issueToken(alice.id.uid);
  await srv.call('PATCH', `${I}/${alice.id.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'alice2' } });
  const noMatch = await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${stranger}` });
  t.is(noMatch.status, 401);
  t.regex(noMatch.json.message, /No identity matches/);
  await srv.call('PATCH', `${I}/${alice.id.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'alice' } });
  t.is((await alice.as('GET', G)).status, 200, 'matching again once the identity matches');

  now += 2 * 3600 * 1000;
  const expired = await alice.as('GET', G);
  t.is(expired.status, 401);
  t.regex(expired.json.message, /expired/);
});

test('a viewer on a subgroup sees exactly that subtree and may not write (403, code 7, the capability named)', async (t) => {
  const { srv, web, api, apps, webCache, person, roleUid } = await setup();
  t.teardown(() => srv.dispose());
  const viewer = await person('victor', 'viewer', web.uid);

  const listed = await viewer.as('GET', G);
  t.is(listed.status, 200);
  t.deepEqual(listed.json.groups.map((g: { uid: string }) => g.uid).sort(), [web.uid, webCache.uid].sort());
  t.is(listed.json.totalCount, '2', 'totalCount counts only what the caller may see');
  t.is((await viewer.as('GET', `${G}/${webCache.uid}`)).status, 200);

  for (const uid of [apps.uid, api.uid, srv.organizationUid]) {
    const res = await viewer.as('GET', `${G}/${uid}`);
    t.is(res.status, 403, uid);
    t.is(res.json.code, 7);
    t.is(reason(res.json), 'PERMISSION_DENIED');
    t.regex(res.json.message, /groups\.list/);
  }
  const writes: [string, string, unknown, RegExp][] = [
    ['POST', G, { parent: web.uid, group: { name: 'x' } }, /groups\.create/],
    ['PATCH', `${G}/${web.uid}`, { description: 'x' }, /groups\.update/],
    ['DELETE', `${G}/${webCache.uid}`, undefined, /groups\.delete/],
    ['POST', RB, { parent: web.uid, roleBinding: { identityUid: viewer.id.uid, roleUid: roleUid('owner') } }, /role_bindings\.create/],
  ];
  for (const [method, path, body, message] of writes) {
    const res = await viewer.as(method, path, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.regex(res.json.message, message);
  }
  t.is((await srv.call('GET', `${G}/${webCache.uid}`)).status, 200, 'nothing was deleted');
  const roles = await viewer.as('GET', ROLES);
  t.true(roles.json.roles.some((r: { name: string }) => r.name === 'viewer'), 'built-in roles are visible');
});

test('an editor may update groups but not bind roles; no escalation through role bindings', async (t) => {
  const { srv, web, person, roleUid, post, issuer } = await setup();
  t.teardown(() => srv.dispose());
  const editor = await person('eddie', 'editor', web.uid);
  const upd = await editor.as('PATCH', `${G}/${web.uid}`, { description: 'edited' });
  t.is(upd.status, 200);
  t.is(upd.json.description, 'edited');
  const bind = await editor.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: editor.id.uid, roleUid: roleUid('owner') } });
  t.is(bind.status, 403);

  // A custom role that may bind roles but holds nothing else cannot hand out owner.
  const binderRole = await srv.call('POST', ROLES, { parent: web.uid, role: { name: 'binder', capabilities: ['role_bindings.create', 'role_bindings.list'] } });
  t.is(binderRole.status, 200, binderRole.text);
  const binder = await person('bindy', 'viewer', web.uid);
  await srv.call('POST', RB, { parent: web.uid, roleBinding: { identityUid: binder.id.uid, roleUid: binderRole.json.uid } });
  const escalate = await binder.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: binder.id.uid, roleUid: roleUid('owner') } });
  t.is(escalate.status, 403);
  t.regex(escalate.json.message, /groups\.create/);
  const teammate = await post(I, { parent: web.uid, identity: { name: 'tess', claimMatch: { issuer, subject: 'tess' } } });
  const fine = await binder.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: teammate.uid, roleUid: roleUid('viewer') } });
  t.is(fine.status, 200, 'binding a role one fully holds, to an identity one can read, is allowed');
});

test('custom roles: unknown capabilities named, built-ins read-only, creators cannot exceed what they hold', async (t) => {
  const { srv, web, api, person, roleUid } = await setup();
  t.teardown(() => srv.dispose());
  const bad = await srv.call('POST', ROLES, { parent: web.uid, role: { name: 'r', capabilities: ['groups.list', 'groups.fly', 'repo.sing'] } });
  t.is(bad.status, 400);
  t.is(bad.json.code, 3);
  const fields = bad.json.details[1].fieldViolations.map((v: { field: string; description: string }) => `${v.field} ${v.description}`);
  t.deepEqual(fields, ['capabilities[1] "groups.fly" is not a known capability', 'capabilities[2] "repo.sing" is not a known capability']);

  for (const method of ['PATCH', 'DELETE']) {
    const res = await srv.call(method, `${ROLES}/${roleUid('viewer')}`, method === 'PATCH' ? { description: 'x' } : undefined);
    t.is(res.status, 400, method);
    t.is(res.json.code, 9);
  }

  const roleMaker = await srv.call('POST', ROLES, { parent: web.uid, role: { name: 'role-maker', capabilities: ['roles.create', 'roles.list', 'groups.list'] } });
  const maker = await person('mia', 'viewer', web.uid);
  await srv.call('POST', RB, { parent: web.uid, roleBinding: { identityUid: maker.id.uid, roleUid: roleMaker.json.uid } });
  const within = await maker.as('POST', ROLES, { parent: web.uid, role: { name: 'lister', capabilities: ['groups.list'] } });
  t.is(within.status, 200, within.text);
  const beyond = await maker.as('POST', ROLES, { parent: web.uid, role: { name: 'deleter', capabilities: ['groups.delete'] } });
  t.is(beyond.status, 403);
  t.regex(beyond.json.message, /groups\.delete/);
  const elsewhere = await maker.as('POST', ROLES, { parent: api.uid, role: { name: 'lister', capabilities: ['groups.list'] } });
  t.is(elsewhere.status, 403, 'a binding on web grants nothing on its sibling');

  const custom = await srv.call('PATCH', `${ROLES}/${within.json.uid}?updateMask=capabilities`, { capabilities: ['groups.list', 'identity.list'] });
  t.deepEqual(custom.json.capabilities, ['groups.list', 'identity.list']);
  const bound = await srv.call('POST', RB, { parent: web.uid, roleBinding: { identityUid: maker.id.uid, roleUid: within.json.uid } });
  t.is(bound.status, 200);
  const outside = await srv.call('POST', RB, { parent: api.uid, roleBinding: { identityUid: maker.id.uid, roleUid: within.json.uid } });
  t.is(outside.json.code, 3, 'a custom role binds only on its group and below');
  const inUse = await srv.call('DELETE', `${ROLES}/${within.json.uid}`);
  t.is(inUse.json.code, 9);
  await srv.call('DELETE', `${RB}/${bound.json.uid}`);
  t.is((await srv.call('DELETE', `${ROLES}/${within.json.uid}`)).status, 200);
});

test('using a token updates the identity\'s lastSeenTime, at most once a minute', async (t) => {
  let now = Date.parse('2026-11-22T10:00:00.000Z');
  const { srv, person } = await setup(() => now);
  t.teardown(() => srv.dispose());
  const p = await person('lars', 'viewer', srv.organizationUid);
  const before = (await srv.call('GET', `${I}/${p.id.uid}`)).json.lastSeenTime;
  now += 5 * 60_000;
  await p.as('GET', G);
  const after = (await srv.call('GET', `${I}/${p.id.uid}`)).json;
  t.not(after.lastSeenTime, before);
  t.is(after.lastSeenTime, new Date(now).toISOString());
  now += 10_000;
  await p.as('GET', G);
  t.is((await srv.call('GET', `${I}/${p.id.uid}`)).json.lastSeenTime, after.lastSeenTime, 'throttled');
});


test('tokens of a trusted issuer (offline JWKS) are accepted for identities that name it, and only for them', async (t) => {
  const { exportJWK } = await import('jose');
  const ci = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(ci.publicKey)), kid: 'ci-1', alg: 'RS256' };
  const ciIssuer = 'https://token.actions.githubusercontent.com';
  // serve's clock is fixed at `now`: the 300 s the tokens live cannot run out on a slow machine.
  const now = Math.floor(Date.now() / 1000);
  const srv = await startTestServer({ trustedIssuers: { [ciIssuer]: { keys: [jwk] } }, clock: () => now * 1000 });
  t.teardown(() => srv.dispose());
  const subject = 'repo:acme/app:ref:refs/heads/main';
  const id = await srv.call('POST', I, { parent: srv.organizationUid, identity: { name: 'deployer', claimMatch: { issuer: ciIssuer, subject } } });
  const viewer = (await srv.call('GET', `${ROLES}?name=viewer`)).json.roles[0].uid;
  await srv.call('POST', RB, { parent: srv.organizationUid, roleBinding: { identityUid: id.json.uid, roleUid: viewer } });
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'ci-1' }).sign(ci.privateKey);
  const good = await sign({ iss: ciIssuer, sub: subject, aud: 'pctl', iat: now, exp: now + 300 });
  const res = await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${good}` });
  t.is(res.status, 200);
  t.is(res.json.totalCount, '1');
  const otherSubject = await sign({ iss: ciIssuer, sub: `${subject}x`, aud: 'pctl', iat: now, exp: now + 300 });
  t.is((await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${otherSubject}` })).status, 401);
  const wrongAud = await sign({ iss: ciIssuer, sub: subject, aud: 'someone-else', iat: now, exp: now + 300 });
  t.is((await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${wrongAud}` })).status, 401);
});
