// Account associations: one per group, uid = the group's uid; provider blocks checked on
// create and update; the :check custom method; access; and the CLI with its provider flags.
import test from 'ava';
import { startTestServer, tempDir } from './helpers/serve.js';
import { cli } from './helpers/cli.js';

const AA = '/iam/v2/accountAssociations';
const G = '/iam/v2/groups';
const TENANT = '0f8fad5b-d9cb-469f-a165-70867728950e';

async function setup() {
  const srv = await startTestServer();
  const ok = srv.ok;
  const team = await ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  return { srv, ok, team };
}

const fields = (json: { details: { fieldViolations?: { field: string }[] }[] }) => json.details.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);

test('create: the uid is the group\'s; one per group (code 6); blocks are checked (code 3, by field)', async (t) => {
  const { srv, ok, team } = await setup();
  t.teardown(() => srv.dispose());
  const created = await ok('POST', AA, {
    parent: team.uid,
    accountAssociation: {
      name: 'prod', amazon: { account: '123456789012' }, azure: { tenantId: TENANT, clientIds: { web: 'abc' } },
      github: { appInstallations: { '42': { installations: [{ installationId: 7, name: 'acme-app' }] } } },
    },
  });
  t.is(created.uid, team.uid);
  t.deepEqual(created.amazon, { account: '123456789012' });
  t.is(created.github.appInstallations['42'].installations[0].installationId, '7', 'int64 as a string');
  t.deepEqual((await ok('GET', `${AA}/${team.uid}`)), created);
  const listed = await ok('GET', `${AA}?uidp.descendants_of=${srv.organizationUid}`);
  t.is(listed.totalCount, '1');
  t.is(listed.accountAssociations[0].uid, team.uid);
  const second = await srv.call('POST', AA, { parent: team.uid, accountAssociation: { name: 'again' } });
  t.is(second.status, 409);
  t.is(second.json.code, 6);
  const other = await ok('POST', G, { parent: srv.organizationUid, group: { name: 'other' } });
  const bad = await srv.call('POST', AA, {
    parent: other.uid,
    accountAssociation: { name: 'x', amazon: { account: '12' }, google: { projectId: 'acme-prod' }, azure: { tenantId: 'nope' } },
  });
  t.is(bad.status, 400);
  t.deepEqual(fields(bad.json).sort(), ['amazon.account', 'azure.tenantId', 'google.projectNumber']);
  t.is((await srv.call('GET', `${AA}/${other.uid}`)).json.code, 5, 'nothing was written');
  t.regex((await srv.call('DELETE', `${G}/${team.uid}`)).json.message, /1 account association\b/);
});

test('update: the partial-update rules, a half google block is code 3, clearing a block removes it; :check', async (t) => {
  const { srv, ok, team } = await setup();
  t.teardown(() => srv.dispose());
  await ok('POST', AA, { parent: team.uid, accountAssociation: { name: 'prod', amazon: { account: '123456789012' } } });
  const renamed = await ok('PATCH', `${AA}/${team.uid}`, { name: 'production', description: 'the prod accounts' });
  t.is(renamed.name, 'production');
  t.deepEqual(renamed.amazon, { account: '123456789012' }, 'unnamed fields stay');
  const half = await srv.call('PATCH', `${AA}/${team.uid}?updateMask=google.projectId`, { google: { projectId: 'acme-prod' } });
  t.is(half.status, 400);
  t.deepEqual(fields(half.json), ['google.projectNumber']);
  const google = await ok('PATCH', `${AA}/${team.uid}`, { google: { projectId: 'acme-prod', projectNumber: '1234567890' } });
  t.deepEqual(google.google, { projectId: 'acme-prod', projectNumber: '1234567890' });
  const cleared = await ok('PATCH', `${AA}/${team.uid}?updateMask=amazon`, {});
  t.false('amazon' in cleared);
  t.is((await srv.call('PATCH', `${AA}/${team.uid}?updateMask=uid`, {})).status, 400);
  const check = async (providerType: string) => (await srv.call('POST', `${AA}/${team.uid}:check`, { providerType })).json;
  t.like(await check('GOOGLE'), { status: 'READY', reason: 'FORMAT_VALID' });
  t.like(await check('AMAZON'), { status: 'NOT_READY', reason: 'NOT_CONFIGURED' });
  t.regex((await check('AMAZON')).message, /cannot reach the cloud/);
  t.is((await srv.call('POST', `${AA}/${team.uid}:check`, { providerType: 'ORACLE' })).status, 400);
  t.is((await srv.call('POST', `${AA}/${srv.organizationUid}:check`, { providerType: 'GOOGLE' })).json.code, 5);
  t.is((await srv.call('GET', `${AA}/${team.uid}:check`)).status, 405);
  t.is((await srv.call('DELETE', `${AA}/${team.uid}`)).status, 200);
  t.is((await srv.call('GET', `${AA}/${team.uid}`)).status, 404);
  t.is((await srv.call('GET', `${G}/${team.uid}`)).status, 200, 'the group stays');
});

test('access: a viewer reads, an editor updates, neither creates or deletes', async (t) => {
  const { srv, ok, team } = await setup();
  t.teardown(() => srv.dispose());
  await ok('POST', AA, { parent: team.uid, accountAssociation: { name: 'prod' } });
  const person = async (name: string, role: string) => (await srv.person(name, role, team.uid)).as;
  const viewer = await person('vera', 'viewer');
  t.is((await viewer('GET', `${AA}/${team.uid}`)).status, 200);
  t.is((await viewer('PATCH', `${AA}/${team.uid}`, { name: 'x' })).status, 403);
  const editor = await person('ed', 'editor');
  t.is((await editor('PATCH', `${AA}/${team.uid}`, { name: 'renamed' })).status, 200);
  t.is((await editor('DELETE', `${AA}/${team.uid}`)).status, 403);
  const sub = await ok('POST', G, { parent: team.uid, group: { name: 'sub' } });
  t.is((await editor('POST', AA, { parent: sub.uid, accountAssociation: { name: 'y' } })).status, 403);
});

test('pctl account-associations: create with provider flags, get by name, update, check, delete', async (t) => {
  const { srv } = await setup();
  t.teardown(() => srv.dispose());
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: srv.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-aa-cfg-') });
  const created = await pctl(['account-associations', 'create', 'prod', '--parent', 'team', '--aws-account', '123456789012',
    '--azure-tenant', TENANT, '--azure-client', 'web=abc', '--azure-client', 'api=def', '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  const json = JSON.parse(created.stdout);
  t.deepEqual(json.azure.clientIds, { web: 'abc', api: 'def' });
  const got = await pctl(['account-associations', 'get', 'prod', '-o', 'json']);
  t.is(JSON.parse(got.stdout).uid, json.uid, 'by name');
  const updated = await pctl(['account-associations', 'update', 'prod', '--gcp-project-id', 'acme-prod', '--gcp-project-number', '42', '-o', 'json']);
  t.is(updated.code, 0, updated.stderr);
  t.deepEqual(JSON.parse(updated.stdout).amazon, { account: '123456789012' });
  const half = await pctl(['account-associations', 'update', 'prod', '--gcp-project-id', 'other-proj']);
  t.is(half.code, 0, 'the stored project number completes the block');
  const check = await pctl(['account-associations', 'check', 'prod', '--provider', 'gcp', '-o', 'json']);
  t.is(JSON.parse(check.stdout).status, 'READY');
  const table = await pctl(['account-associations', 'list'], { tty: true, columns: 160, env: { NO_COLOR: '1' } });
  t.regex(table.stdout, /^NAME\s+UID\s+PROVIDERS\n/);
  t.regex(table.stdout, /\nprod\s+[0-9a-f]{16}\s+amazon,google,azure\n/, 'NAME, the short uid, the providers');
  t.is((await pctl(['account-associations', 'update', 'prod', '--azure-client', 'broken'])).code, 2);
  const bad = await pctl(['account-associations', 'create', 'other', '--parent', srv.organizationUid, '--aws-account', '12', '--gcp-project-id', 'acme-prod']);
  t.is(bad.code, 2, 'checked before sending, like every other command');
  t.regex(bad.stderr, /amazon\.account: must be a 12-digit AWS account id/);
  t.regex(bad.stderr, /google\.projectNumber/);
  t.is((await pctl(['account-associations', 'delete', 'prod', '--yes'])).code, 0);
});
