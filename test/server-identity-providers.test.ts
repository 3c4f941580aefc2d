// Identity providers: the first resource added through the registry alone (declaration, wire
// schema, wire form, one route module). Served, authorized, listed and shown by the CLI like
// every other resource; the client secret is write-only everywhere.
import test from 'ava';
import { startTestServer } from './helpers/serve.js';
import { cli } from './helpers/cli.js';
import { tempDir } from './helpers/serve.js';

const IDP = '/iam/v2/identityProviders';
const G = '/iam/v2/groups';
const SECRET = 's3cr3t-client-value';

async function setup() {
  const srv = await startTestServer();
  const ok = srv.ok;
  const roles = (await srv.call('GET', '/iam/v2/roles')).json.roles as { uid: string; name: string }[];
  const roleUid = (name: string) => roles.find((r) => r.name === name)!.uid;
  const team = await ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  const body = (over: Record<string, unknown> = {}) => ({
    parent: team.uid,
    identityProvider: {
      name: 'okta', defaultRole: roleUid('viewer'),
      oidc: { issuer: 'https://acme.okta.example', clientId: 'pctl-app', clientSecret: SECRET, additionalScopes: ['email'], ...over },
    },
  });
  return { srv, ok, roleUid, team, body };
}

const fields = (json: { details: { '@type': string; fieldViolations?: { field: string }[] }[] }) =>
  json.details.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);

test('create, get, list, update and delete; the client secret is in no response', async (t) => {
  const { srv, ok, roleUid, team, body } = await setup();
  t.teardown(() => srv.dispose());
  const created = await ok('POST', IDP, body());
  t.true(created.uid.startsWith(`${team.uid}/`), 'nested under its group');
  t.is(created.defaultRole, roleUid('viewer'));
  t.is(created.oidc.correlationRule, 'SUB_EQUALS_EXTERNAL_ID');
  t.deepEqual(created.oidc.additionalScopes, ['email']);
  const got = await srv.call('GET', `${IDP}/${created.uid}`);
  const listed = await srv.call('GET', `${IDP}?uidp.children_of=${encodeURIComponent(team.uid)}`);
  t.is(listed.json.totalCount, '1');
  t.deepEqual(listed.json.identityProviders[0], got.json);
  const updated = await srv.call('PATCH', `${IDP}/${created.uid}?updateMask=oidc.clientSecret,description`, { description: 'SSO', oidc: { clientSecret: 'rotated' } });
  t.is(updated.status, 200);
  t.is(updated.json.description, 'SSO');
  for (const res of [JSON.stringify(created), got.text, listed.text, updated.text]) {
    t.false(res.includes(SECRET) || res.includes('rotated') || res.includes('clientSecret'), `a response shows the secret: ${res}`);
  }
  t.is((await srv.call('DELETE', `${IDP}/${created.uid}`)).status, 200);
  t.is((await srv.call('GET', `${IDP}/${created.uid}`)).json.code, 5);
});

test('bad input is code 3: a defaultRole that is no role, a missing clientId, a changed correlationRule', async (t) => {
  const { srv, ok, team, body } = await setup();
  t.teardown(() => srv.dispose());
  const noRole = await srv.call('POST', IDP, { ...body(), identityProvider: { ...body().identityProvider, defaultRole: 'no-such-role' } });
  t.is(noRole.status, 400);
  t.deepEqual(fields(noRole.json), ['defaultRole']);
  const noClient = await srv.call('POST', IDP, body({ clientId: '' }));
  t.deepEqual(fields(noClient.json), ['oidc.clientId']);
  const created = await ok('POST', IDP, body({ correlationRule: 'OID_EQUALS_EXTERNAL_ID' }));
  const change = await srv.call('PATCH', `${IDP}/${created.uid}`, { oidc: { correlationRule: 'SUB_EQUALS_EXTERNAL_ID' } });
  t.is(change.status, 400);
  t.deepEqual(fields(change.json), ['oidc.correlationRule']);
  const same = await srv.call('PATCH', `${IDP}/${created.uid}`, { oidc: { correlationRule: 'OID_EQUALS_EXTERNAL_ID', pkceEnabled: true } });
  t.is(same.status, 200);
  t.true(same.json.oidc.pkceEnabled);
  // A group holding an identity provider is not empty.
  const del = await srv.call('DELETE', `${G}/${team.uid}`);
  t.is(del.status, 400);
  t.regex(del.json.message, /1 identity provider\b/);
});

test('access: a viewer lists and reads them but may not create one; an editor may update', async (t) => {
  const { srv, ok, team, body } = await setup();
  t.teardown(() => srv.dispose());
  const created = await ok('POST', IDP, body());
  const person = async (name: string, role: string) => (await srv.person(name, role, team.uid)).as;
  const viewer = await person('vera', 'viewer');
  t.is((await viewer('GET', `${IDP}/${created.uid}`)).status, 200);
  t.is((await viewer('GET', IDP)).json.totalCount, '1');
  const denied = await viewer('POST', IDP, body());
  t.is(denied.status, 403);
  t.regex(denied.json.message, /identity_providers\.create/);
  const editor = await person('ed', 'editor');
  t.is((await editor('PATCH', `${IDP}/${created.uid}`, { description: 'x' })).status, 403, 'an update hands out a role: it needs role_bindings.create too');
  t.is((await editor('DELETE', `${IDP}/${created.uid}`)).status, 403);
});

test('the CLI gets identity-providers list, get and delete from the registry; --debug masks the secret', async (t) => {
  const { srv, ok, body } = await setup();
  t.teardown(() => srv.dispose());
  const created = await ok('POST', IDP, body());
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-idp-cfg-') });
  const list = await pctl(['identity-providers', 'list', '--descendants-of', 'team'], { tty: true, columns: 200, env: { NO_COLOR: '1' } });
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout, /^NAME\s+UID\s+ISSUER\s+CLIENT ID/);
  t.regex(list.stdout, new RegExp(`\\nokta\\s+${created.uid.split('/').pop()}\\s+https://acme\\.okta\\.example\\s+pctl-app\\n`));
  const got = await pctl(['identity-providers', 'get', created.uid, '-o', 'json']);
  t.is(JSON.parse(got.stdout).uid, created.uid);
  const traced = await pctl(['api', 'POST', IDP, '--input', '-', '--debug'], {
    env: { PCTL_DEBUG: 'api' },
    stdin: JSON.stringify(body({ clientId: 'other' })),
  });
  t.is(traced.code, 0, traced.stderr);
  t.true(traced.stderr.includes('"clientSecret":"***"') || traced.stderr.includes('"clientSecret": "***"'), traced.stderr);
  t.false(traced.stderr.includes(SECRET) || traced.stdout.includes(SECRET));
  const del = await pctl(['identity-providers', 'delete', created.uid, '--yes']);
  t.is(del.code, 0, del.stderr);
  t.is((await srv.call('GET', `${IDP}/${created.uid}`)).status, 404);
});

test('pctl identity-providers create and update: the secret from stdin, never from argv; references by name', async (t) => {
  const { srv, ok } = await setup();
  t.teardown(() => srv.dispose());
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-idp-cfg-') });
  const created = await pctl(
    ['identity-providers', 'create', 'okta', '--parent', 'team', '--issuer', 'https://acme.okta.example', '--client-id', 'app',
      '--default-role', 'viewer', '--scope', 'email', '--scope', 'groups', '--correlation-rule', 'oid', '--pkce', '--client-secret', '-o', 'json'],
    { stdin: `${SECRET}\n` },
  );
  t.is(created.code, 0, created.stderr);
  const json = JSON.parse(created.stdout);
  t.deepEqual(json.oidc.additionalScopes, ['email', 'groups']);
  t.is(json.oidc.correlationRule, 'OID_EQUALS_EXTERNAL_ID');
  t.true(json.oidc.pkceEnabled);
  t.false(created.stdout.includes(SECRET));
  t.is((await pctl(['identity-providers', 'create', 'x', '--parent', 'team', '--issuer', 'https://x.example', '--client-id', 'a', '--default-role', 'viewer', '--client-secret', SECRET])).code, 2, 'a secret on the command line is refused');
  const plainHttp = await pctl(['identity-providers', 'create', 'x', '--parent', 'team', '--issuer', 'http://x.example', '--client-id', 'a', '--default-role', 'viewer']);
  t.is(plainHttp.code, 2);
  t.regex(plainHttp.stderr, /oidc\.issuer: must be an https URL/);
  const renamed = await pctl(['identity-providers', 'update', 'okta', '--name', 'okta-prod', '--pkce', 'off', '--default-role', 'editor', '-o', 'json']);
  t.is(renamed.code, 0, renamed.stderr);
  t.is(JSON.parse(renamed.stdout).name, 'okta-prod');
  t.false(JSON.parse(renamed.stdout).oidc.pkceEnabled);
  const rotated = await pctl(['identity-providers', 'update', 'okta-prod', '--client-secret'], { stdin: 'new-secret\n' });
  t.is(rotated.code, 0, rotated.stderr);
  t.is((await pctl(['identity-providers', 'update', 'okta-prod', '--client-secret'], { stdin: '' })).code, 2, 'an empty secret is refused');
  t.is((await pctl(['identity-providers', 'get', 'okta-prod', '-o', 'json'])).code, 0, 'by name');
  t.is((await ok('GET', IDP)).identityProviders[0].name, 'okta-prod');
});
