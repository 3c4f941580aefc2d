// Group invites: create (the code once), list and get (never the code), key_id filter, no
// PATCH, delete; and serve's redeem extension end to end with the tokens of two identities.
import test from 'ava';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { request, startTestServer, tempDir } from './helpers/serve.js';
import { cli } from './helpers/cli.js';

const INV = '/iam/v2/groupInvites';
const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const DAY = 86_400_000;

async function setup() {
  // Serve's clock stands still unless a test moves it; it starts at the real time, which the CLI checks tokens against.
  const start = Math.floor(Date.now() / 1000) * 1000;
  let now = start;
  // Another issuer, trusted offline, whose tokens carry an email claim.
  const keys = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'idp-1', alg: 'RS256' };
  const mailIssuer = 'https://login.example.com';
  const srv = await startTestServer({ trustedIssuers: { [mailIssuer]: { keys: [jwk] } }, clock: () => now });
  const ok = srv.ok;
  const roles = (await srv.call('GET', '/iam/v2/roles')).json.roles as { uid: string; name: string }[];
  const roleUid = (name: string) => roles.find((r) => r.name === name)!.uid;
  const team = await ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  /** An identity of the mail issuer (in a group of its own) and a token for it, with an email claim. */
  const person = async (name: string, email?: string) => {
    const home = await ok('POST', G, { parent: srv.organizationUid, group: { name: `home-${name}` } });
    const id = await ok('POST', I, { parent: home.uid, identity: { name, claimMatch: { issuer: mailIssuer, subject: name } } });
    const iat = Math.floor(now / 1000);
    const token = await new SignJWT({ iss: mailIssuer, sub: name, aud: 'pctl', iat, exp: iat + 2 * 86_400, ...(email ? { email } : {}) })
      .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' }).sign(keys.privateKey);
    const as = (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });
    return { id, token, as };
  };
  const invite = (over: Record<string, unknown> = {}) => ok('POST', INV, { parent: team.uid, groupInvite: { roleUid: roleUid('viewer'), ttl: '604800s', ...over } });
  return { srv, ok, roleUid, team, person, invite, start, advance: (ms: number) => (now += ms) };
}

test('create shows the code once; get and list never; key_id finds it; PATCH is 405 code 12; delete revokes', async (t) => {
  const { srv, team, invite, roleUid, start } = await setup();
  t.teardown(() => srv.dispose());
  const created = await invite({ email: 'ana@example.com', singleUse: true });
  t.regex(created.code, /^pctl_invite_[A-Za-z0-9_-]{32}$/);
  t.true(created.uid.startsWith(`${team.uid}/`));
  t.is(created.role.name, 'viewer');
  t.is(created.roleUid, roleUid('viewer'));
  t.is(created.expirationTime, new Date(start + 7 * DAY).toISOString());
  t.true(created.singleUse);
  t.is(created.keyId.length, 16);
  const got = await srv.call('GET', `${INV}/${created.uid}`);
  t.false('code' in got.json);
  t.false(got.text.includes(created.code));
  const { code: _code, ...withoutCode } = created;
  t.deepEqual(got.json, withoutCode);
  await invite();
  const byKey = await srv.call('GET', `${INV}?key_id=${created.keyId}`);
  t.is(byKey.json.totalCount, '1');
  t.is(byKey.json.groupInvites[0].uid, created.uid);
  t.false(byKey.text.includes(created.code));
  const patch = await srv.call('PATCH', `${INV}/${created.uid}`, { singleUse: false });
  t.is(patch.status, 405);
  t.is(patch.json.code, 12);
  // POST is the published create rule on this path (POST /iam/v2/groupInvites/{parent=**}).
  t.is(patch.headers.get('allow'), 'GET, DELETE, POST');
  t.is((await srv.call('DELETE', `${INV}/${created.uid}`)).status, 200);
  t.is((await srv.call('POST', `${INV}:redeem`, { code: created.code })).json.code, 5, 'a revoked code is no code');
});

test('bad input is code 3: ttl outside a minute to 30 days, a bad email, a role that does not exist', async (t) => {
  const { srv, team, roleUid } = await setup();
  t.teardown(() => srv.dispose());
  const post = (groupInvite: Record<string, unknown>) => srv.call('POST', INV, { parent: team.uid, groupInvite: { roleUid: roleUid('viewer'), ttl: '3600s', ...groupInvite } });
  for (const ttl of ['59s', '2592001s', '7d', '', 'abc']) {
    const res = await post({ ttl });
    t.is(res.status, 400, ttl);
    t.is(res.json.details.find((d: { fieldViolations?: unknown }) => d.fieldViolations).fieldViolations[0].field, 'ttl');
  }
  t.is((await post({ ttl: '60s' })).status, 200);
  t.is((await post({ ttl: '2592000s' })).status, 200);
  t.is((await post({ email: 'not-an-address' })).status, 400);
  const noRole = await post({ roleUid: 'f'.repeat(40) });
  t.is(noRole.status, 400);
  t.regex(noRole.json.message, /roleUid/);
  t.is((await post({ code: 'chosen' })).status, 400, 'the code is output only');
});

test('redeem end to end: the invitee is bound with the role; wrong code 5; email must match; single use and expiry are code 9', async (t) => {
  const { srv, ok, team, person, invite, advance } = await setup();
  t.teardown(() => srv.dispose());
  const ana = await person('ana', 'ana@example.com');
  const bob = await person('bob', 'bob@example.com');
  t.is((await ana.as('GET', `${G}/${team.uid}`)).status, 403, 'ana starts outside the team');

  const wrong = await ana.as('POST', `${INV}:redeem`, { code: 'pctl_invite_nothing' });
  t.is(wrong.status, 404);
  t.is(wrong.json.code, 5);
  t.notRegex(wrong.text, /team|viewer|pctl_invite_nothing/);

  const forAna = await invite({ email: 'ana@example.com', singleUse: true });
  const stolen = await bob.as('POST', `${INV}:redeem`, { code: forAna.code });
  t.is(stolen.status, 403);
  t.false(stolen.text.includes('ana@example.com'), 'the address is not disclosed');
  const redeemed = await ana.as('POST', `${INV}:redeem`, { code: forAna.code });
  t.is(redeemed.status, 200, redeemed.text);
  t.is(redeemed.json.identity.uid, ana.id.uid);
  t.is(redeemed.json.group.uid, team.uid);
  t.is(redeemed.json.role.name, 'viewer');
  t.is((await ana.as('GET', `${G}/${team.uid}`)).status, 200, 'the binding grants the role');
  t.is((await ok('GET', `${RB}/${redeemed.json.uid}`)).uid, redeemed.json.uid);
  const again = await ana.as('POST', `${INV}:redeem`, { code: forAna.code });
  t.is(again.json.code, 9);
  t.regex(again.json.message, /already been redeemed/);

  const reusable = await invite({ ttl: '3600s' });
  t.is((await bob.as('POST', `${INV}:redeem`, { code: reusable.code })).status, 200);
  t.is((await bob.as('POST', `${INV}:redeem`, { code: reusable.code })).status, 200, 'a reusable invite, redeemed twice, leaves one binding');
  t.is((await ok('GET', `${RB}?uidp.children_of=${encodeURIComponent(team.uid)}`)).totalCount, '2', 'ana and bob, once each');
  advance(3600_000);
  const expired = await bob.as('POST', `${INV}:redeem`, { code: reusable.code });
  t.is(expired.json.code, 9);
  t.regex(expired.json.message, /expired/);
});

test('access: a viewer may list invites but not create them; creating one needs role_bindings.create; no escalation', async (t) => {
  const { srv, ok, team, person, invite, roleUid } = await setup();
  t.teardown(() => srv.dispose());
  await invite();
  const vera = await person('vera');
  await ok('POST', RB, { parent: team.uid, roleBinding: { identityUid: vera.id.uid, roleUid: roleUid('viewer') } });
  t.is((await vera.as('GET', INV)).json.totalCount, '1');
  const denied = await vera.as('POST', INV, { parent: team.uid, groupInvite: { roleUid: roleUid('viewer'), ttl: '3600s' } });
  t.is(denied.status, 403);
  t.regex(denied.json.message, /group_invites\.create/);
  // A custom role holding group_invites.create and role_bindings.create, but not owner's capabilities.
  const inviter = await ok('POST', '/iam/v2/roles', { parent: team.uid, role: { name: 'inviter', capabilities: ['group_invites.create', 'role_bindings.create', 'groups.list', 'roles.list'] } });
  const ivy = await person('ivy');
  await ok('POST', RB, { parent: team.uid, roleBinding: { identityUid: ivy.id.uid, roleUid: inviter.uid } });
  const escalate = await ivy.as('POST', INV, { parent: team.uid, groupInvite: { roleUid: roleUid('owner'), ttl: '3600s' } });
  t.is(escalate.status, 403, 'nobody invites into more than they hold');
  t.is((await ivy.as('POST', INV, { parent: team.uid, groupInvite: { roleUid: inviter.uid, ttl: '3600s' } })).status, 200);
  // A group holding an invite is not empty.
  t.regex((await srv.call('DELETE', `${G}/${team.uid}`)).json.message, /\d+ invites?\b/);
});

test('pctl invites create prints the code once and the line to send; redeem binds; list, get and delete', async (t) => {
  const { srv, person } = await setup();
  t.teardown(() => srv.dispose());
  const env = { PCTL_API_URL: srv.url, PCTL_CONFIG_DIR: tempDir('pctl-inv-cfg-') };
  const owner = cli({ ...env, PCTL_TOKEN: srv.ownerToken });
  const created = await owner(['invites', 'create', '--parent', 'team', '--role', 'editor', '--ttl', '2d', '--single-use', '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  const json = JSON.parse(created.stdout);
  t.regex(json.code, /^pctl_invite_/);
  t.is(json.role.name, 'editor');
  t.true(created.stderr.includes(`pctl invites redeem ${json.code}`));
  const table = await owner(['invites', 'list', '--group', 'team'], { tty: true, columns: 200, env: { NO_COLOR: '1' } });
  t.regex(table.stdout, /^NAME\s+UID\s+EMAIL\s+EXPIRES\s+SINGLE USE\n/, 'no name of its own: NAME is the role, as order_by=name sorts');
  t.regex(table.stdout, new RegExp(`\\neditor\\s+${json.uid.split('/').pop()}\\s+in a day\\s+yes\\n`), 'the uid short on a TTY');
  t.false(table.stdout.includes(json.code));
  const debug = await owner(['invites', 'create', '--parent', 'team', '--role', 'viewer', '--debug', '-o', 'id'], { env: { PCTL_DEBUG: 'api' } });
  t.is(debug.code, 0, debug.stderr);
  t.notRegex(debug.stderr.split('Send this')[0]!, /pctl_invite_[A-Za-z0-9]/, 'the trace masks the code');
  t.is((await owner(['invites', 'create', '--parent', 'team', '--role', 'viewer', '--ttl', '31d'])).code, 2);
  const ana = await person('ana');
  const redeem = await cli({ ...env, PCTL_TOKEN: ana.token })(['invites', 'redeem', json.code, '-o', 'json']);
  t.is(redeem.code, 0, redeem.stderr);
  t.is(JSON.parse(redeem.stdout).role.name, 'editor');
  const twice = await cli({ ...env, PCTL_TOKEN: ana.token })(['invites', 'redeem', json.code]);
  t.is(twice.code, 1);
  t.regex(twice.stderr, /already been redeemed/);
  t.is((await owner(['invites', 'get', json.uid, '-o', 'json'])).code, 0);
  t.is((await owner(['invites', 'delete', json.uid, '--yes'])).code, 0);
  t.is((await owner(['invites', 'get', json.uid])).code, 3);
});
