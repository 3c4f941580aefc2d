// The IAM domain of pctl serve, at the HTTP level: every rule of the foundation issue.
import test from 'ava';
import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, storeUnderTest, request, tempDir, type TestServer } from './helpers/serve.js';
import { startServer } from '../src/server/index.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const ROLES = '/iam/v2/roles';
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function detail(body: { details: { '@type': string }[] }, type: string) {
  return body.details.find((d) => d['@type'] === `type.googleapis.com/google.rpc.${type}`) as Record<string, unknown> | undefined;
}

function violationFields(body: { details: { '@type': string }[] }): string[] {
  const violations = (detail(body, 'BadRequest')?.fieldViolations ?? []) as { field: string }[];
  return violations.map((v) => v.field);
}

async function createGroup(srv: TestServer, parent: string, name: string, description?: string) {
  const res = await srv.call('POST', G, { parent, group: { name, ...(description === undefined ? {} : { description }) } });
  if (res.status !== 200) throw new Error(`create group ${name}: ${res.status} ${res.text}`);
  return res.json as { uid: string; name: string; description: string; createTime: string; updateTime: string };
}

async function createIdentity(srv: TestServer, parent: string, name: string, subject = `sub-${name}`) {
  const res = await srv.call('POST', I, {
    parent, identity: { name, description: `${name} identity`, claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject } },
  });
  if (res.status !== 200) throw new Error(`create identity ${name}: ${res.status} ${res.text}`);
  return res.json as { uid: string; name: string };
}

async function roleUid(srv: TestServer, name: string): Promise<string> {
  const res = await srv.call('GET', `${ROLES}?name=${name}`);
  return res.json.roles[0].uid;
}

test('bootstrap makes an organization, an owner bound to owner, built-in roles and a 0600 token file', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  t.regex(srv.organizationUid, /^[0-9a-f]{40}$/);
  const tokenFile = join(srv.dataDir, 'owner.token');
  t.is(statSync(tokenFile).mode & 0o777, 0o600);
  t.is(readFileSync(tokenFile, 'utf8').trim(), srv.ownerToken);

  const org = await srv.call('GET', `${G}/${srv.organizationUid}`);
  t.is(org.status, 200);
  t.is(org.json.uid, srv.organizationUid);
  t.deepEqual(org.json.resourceLimits, {});
  t.is(org.json.verified, false);
  t.regex(org.json.createTime, TS);

  const roles = await srv.call('GET', ROLES);
  const names = roles.json.roles.map((r: { name: string }) => r.name);
  for (const n of ['owner', 'editor', 'viewer']) t.true(names.includes(n), n);
  for (const r of roles.json.roles) t.regex(r.uid, /^[^/]+$/, 'built-in role uids are flat');

  const bindings = await srv.call('GET', RB);
  t.is(bindings.json.roleBindings.length, 1);
  const b = bindings.json.roleBindings[0];
  t.is(b.role.name, 'owner');
  t.is(b.group.uid, srv.organizationUid);
  t.is(b.identity.uid, srv.ownerIdentityUid);
  t.truthy(b.identity.issuer);
});

test('requests without a valid bearer token get 401, code 16, and the token is never echoed', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const none = await request(srv.url, 'GET', G);
  t.is(none.status, 401);
  t.is(none.json.code, 16);
  t.is(detail(none.json, 'ErrorInfo')?.reason, 'UNAUTHENTICATED');
  const secret = 'not-the-token-s3cr3t';
  const wrong = await request(srv.url, 'GET', G, undefined, { authorization: `Bearer ${secret}` });
  t.is(wrong.status, 401);
  t.is(wrong.json.code, 16);
  t.false(wrong.text.includes(secret));
  const basic = await request(srv.url, 'GET', G, undefined, { authorization: 'Basic Zm9vOmJhcg==' });
  t.is(basic.status, 401);
  // Even an unknown route needs the token first.
  t.is((await request(srv.url, 'GET', '/nope')).status, 401);
});

test('groups: create, get by raw and %2F uid, update, delete', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const g = await createGroup(srv, srv.organizationUid, 'platform', 'platform team');
  t.regex(g.uid, new RegExp(`^${srv.organizationUid}/[0-9a-f]{16}$`));
  t.is(g.name, 'platform');
  t.is(g.description, 'platform team');
  t.regex(g.createTime, TS);
  t.regex(g.updateTime, TS);
  const child = await createGroup(srv, g.uid, 'ci');
  t.regex(child.uid, new RegExp(`^${g.uid}/[0-9a-f]{16}$`));

  for (const path of [`${G}/${child.uid}`, `${G}/${encodeURIComponent(child.uid)}`]) {
    const got = await srv.call('GET', path);
    t.is(got.status, 200, path);
    t.is(got.json.uid, child.uid);
  }

  const del = await srv.call('DELETE', `${G}/${encodeURIComponent(child.uid)}`);
  t.is(del.status, 200);
  t.is(del.text, '');
  const gone = await srv.call('GET', `${G}/${child.uid}`);
  t.is(gone.status, 404);
  t.is(gone.json.code, 5);
  t.is((await srv.call('DELETE', `${G}/${child.uid}`)).status, 404);
});

test('a bad group name is code 3 with the spec wording, ErrorInfo and a BadRequest violation for name', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  for (const name of ['Bad!', '', 'UPPER', undefined]) {
    const res = await srv.call('POST', G, { parent: srv.organizationUid, group: name === undefined ? {} : { name } });
    t.is(res.status, 400, String(name));
    t.is(res.json.code, 3);
    t.is(res.json.message, 'Invalid argument: name: must match ^[a-z0-9 ._-]{1,}$');
    t.is(detail(res.json, 'ErrorInfo')?.reason, 'INVALID_ARGUMENT');
    t.deepEqual(detail(res.json, 'BadRequest')?.fieldViolations, [{ field: 'name', description: 'must match ^[a-z0-9 ._-]{1,}$' }]);
  }
  const listed = await srv.call('GET', G);
  t.is(listed.json.totalCount, '1', 'nothing was created');
});

test('client mistakes are structured 4xx errors, never 500', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const cases: [string, string, unknown, number, number][] = [
    ['POST', G, '{"parent": ', 400, 3],
    ['POST', G, '[]', 400, 3],
    ['POST', G, '', 400, 3],
    ['POST', G, { parent: 42, group: { name: 'x' } }, 400, 3],
    ['POST', G, { parent: srv.organizationUid, group: { name: 'x', colour: 'red' } }, 400, 3],
    ['POST', G, { parent: `${srv.organizationUid}/0000000000000000`, group: { name: 'x' } }, 404, 5],
    ['PATCH', `${G}/${srv.organizationUid}`, '"just a string"', 400, 3],
    ['PATCH', `${G}/${srv.organizationUid}`, { description: 5 }, 400, 3],
    ['GET', `${G}/%E0%A4%A`, undefined, 400, 3],
    ['GET', `${G}/../../etc/passwd`, undefined, 404, 5],
    ['GET', `${G}?page_size=abc`, undefined, 400, 3],
    ['GET', `${G}?skip=-1`, undefined, 400, 3],
    ['GET', `${G}?bogus=1`, undefined, 400, 3],
    ['PUT', G, undefined, 405, 12],
    ['GET', '/iam/v2/nothing', undefined, 404, 5],
  ];
  for (const [method, path, body, status, code] of cases) {
    const res = await srv.call(method, path, body);
    t.is(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
    t.is(res.json?.code, code, `${method} ${path}`);
    t.true(Array.isArray(res.json?.details), 'details present');
  }
  const unknownParent = await srv.call('POST', G, { parent: 'f'.repeat(40), group: { name: 'x' } });
  t.deepEqual(violationFields(unknownParent.json), ['parent']);

  const huge = await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'x', description: 'a'.repeat(1024 * 1024 + 10) } });
  t.is(huge.status, 413);
  t.is(huge.json.code, 3);
  t.is((await srv.call('GET', G)).status, 200, 'still serving after the 413');
});

test('partial update: without a mask only the fields present change; with a mask exactly the listed ones', async (t) => {
  const srv = await startTestServer({});
  t.teardown(() => srv.dispose());
  const g = await createGroup(srv, srv.organizationUid, 'web', 'front end');
  const path = `${G}/${g.uid}`;

  const noMask = await srv.call('PATCH', path, { description: 'the front end' });
  t.is(noMask.status, 200);
  t.is(noMask.json.name, 'web', 'omitted field keeps its value');
  t.is(noMask.json.description, 'the front end');

  const masked = await srv.call('PATCH', `${path}?updateMask=name`, { name: 'www', description: 'ignored' });
  t.is(masked.json.name, 'www');
  t.is(masked.json.description, 'the front end', 'fields outside the mask are ignored');

  const both = await srv.call('PATCH', `${path}?updateMask=name,description`, { name: 'web2', description: 'both' });
  t.is(both.json.name, 'web2');
  t.is(both.json.description, 'both');

  const cleared = await srv.call('PATCH', `${path}?updateMask=description`, {});
  t.is(cleared.json.description, '', 'a masked field absent from the body is cleared');
  t.is(cleared.json.name, 'web2');

  const echoed = await srv.call('PATCH', path, { ...cleared.json, description: 'echo' });
  t.is(echoed.status, 200, 'echoing output-only fields without a mask is fine');
  t.is(echoed.json.description, 'echo');
  t.true(echoed.json.updateTime >= echoed.json.createTime);

  for (const mask of ['uid', 'createTime', 'colour']) {
    const bad = await srv.call('PATCH', `${path}?updateMask=${mask}`, { name: 'zzz' });
    t.is(bad.status, 400, mask);
    t.is(bad.json.code, 3);
    t.is(violationFields(bad.json)[0], 'updateMask');
  }
  const badName = await srv.call('PATCH', `${path}?updateMask=name`, { name: 'NOPE' });
  t.is(badName.json.message, 'Invalid argument: name: must match ^[a-z0-9 ._-]{1,}$');
  const unknownField = await srv.call('PATCH', path, { colour: 'red' });
  t.is(unknownField.json.code, 3);
  t.is((await srv.call('GET', path)).json.name, 'web2', 'failed updates changed nothing');
  t.is((await srv.call('PATCH', `${G}/${srv.organizationUid}/0123456789abcdef`, { description: 'x' })).status, 404);
});

test('deleting a group that holds a group, an identity or a role binding fails with code 9 and deletes nothing', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const viewer = await roleUid(srv, 'viewer');

  const withGroup = await createGroup(srv, srv.organizationUid, 'a');
  await createGroup(srv, withGroup.uid, 'a-child');
  const withIdentity = await createGroup(srv, srv.organizationUid, 'b');
  await createIdentity(srv, withIdentity.uid, 'bot');
  const withBinding = await createGroup(srv, srv.organizationUid, 'c');
  const rb = await srv.call('POST', RB, { parent: withBinding.uid, roleBinding: { identityUid: srv.ownerIdentityUid, roleUid: viewer } });
  t.is(rb.status, 200);

  for (const g of [withGroup, withIdentity, withBinding]) {
    const res = await srv.call('DELETE', `${G}/${g.uid}`);
    t.is(res.status, 400, g.name);
    t.is(res.json.code, 9);
    t.is(detail(res.json, 'ErrorInfo')?.reason, 'FAILED_PRECONDITION');
    const violations = detail(res.json, 'PreconditionFailure')?.violations as { type: string }[];
    t.is(violations[0]!.type, 'RESOURCE_NOT_EMPTY');
    t.is((await srv.call('GET', `${G}/${g.uid}`)).status, 200, 'still there');
  }
  t.is((await srv.call('GET', `${RB}/${rb.json.uid}`)).status, 200);
});

test('identities: create, list, get, update, delete; claimMatch is unique', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const g = await createGroup(srv, srv.organizationUid, 'ci');
  const created = await srv.call('POST', I, {
    parent: g.uid,
    identity: { name: 'deployer', description: 'CI deploys', claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/main' } },
  });
  t.is(created.status, 200);
  const id = created.json;
  t.regex(id.uid, new RegExp(`^${g.uid}/[0-9a-f]{16}$`));
  t.deepEqual(id.claimMatch, { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/main' });
  t.regex(id.lastSeenTime, TS);

  const list = await srv.call('GET', `${I}?uidp.children_of=${encodeURIComponent(g.uid)}`);
  t.is(list.json.totalCount, '1');
  t.is(list.json.identities[0].uid, id.uid);
  t.is((await srv.call('GET', `${I}/${id.uid}`)).json.name, 'deployer');

  const upd = await srv.call('PATCH', `${I}/${id.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'repo:acme/app:ref:refs/heads/prod' } });
  t.is(upd.status, 200, upd.text);
  t.is(upd.json.claimMatch.subject, 'repo:acme/app:ref:refs/heads/prod');
  t.is(upd.json.claimMatch.issuer, 'https://token.actions.githubusercontent.com');

  const dup = await srv.call('POST', I, {
    parent: srv.organizationUid,
    identity: { name: 'twin', claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/prod' } },
  });
  t.is(dup.status, 409);
  t.is(dup.json.code, 6);
  const noClaim = await srv.call('POST', I, { parent: g.uid, identity: { name: 'x' } });
  t.is(noClaim.json.code, 3);
  t.deepEqual(violationFields(noClaim.json), ['claimMatch']);

  t.is((await srv.call('DELETE', `${I}/${id.uid}`)).status, 200);
  t.is((await srv.call('GET', `${I}/${id.uid}`)).status, 404);
});

test('role bindings: expanded create response, get, list, duplicates, unknown references, delete', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const g = await createGroup(srv, srv.organizationUid, 'apps', 'applications');
  const id = await createIdentity(srv, g.uid, 'deployer');
  const viewer = await roleUid(srv, 'viewer');

  const res = await srv.call('POST', RB, { parent: g.uid, roleBinding: { identityUid: id.uid, roleUid: viewer } });
  t.is(res.status, 200, res.text);
  const rb = res.json;
  t.regex(rb.uid, new RegExp(`^${g.uid}/[0-9a-f]{16}$`));
  t.deepEqual(rb.identity, { uid: id.uid, name: 'deployer', description: 'deployer identity', subject: 'sub-deployer', issuer: 'https://token.actions.githubusercontent.com' });
  t.deepEqual(rb.group, { uid: g.uid, name: 'apps', description: 'applications' });
  t.is(rb.role.uid, viewer);
  t.is(rb.role.name, 'viewer');
  t.regex(rb.createTime, TS);
  t.false('updateTime' in rb);

  t.deepEqual((await srv.call('GET', `${RB}/${rb.uid}`)).json, rb);
  const listed = await srv.call('GET', `${RB}?uidp.children_of=${encodeURIComponent(g.uid)}`);
  t.deepEqual(listed.json.roleBindings, [rb]);

  const dup = await srv.call('POST', RB, { parent: g.uid, roleBinding: { identityUid: id.uid, roleUid: viewer } });
  t.is(dup.json.code, 6);
  const noIdentity = await srv.call('POST', RB, { parent: g.uid, roleBinding: { identityUid: `${g.uid}/0000000000000000`, roleUid: viewer } });
  t.is(noIdentity.json.code, 5);
  t.is(violationFields(noIdentity.json)[0], 'identityUid');
  const noRole = await srv.call('POST', RB, { parent: g.uid, roleBinding: { identityUid: id.uid, roleUid: 'nope' } });
  t.is(noRole.json.code, 5);
  t.is(violationFields(noRole.json)[0], 'roleUid');
  const missing = await srv.call('POST', RB, { parent: g.uid, roleBinding: { identityUid: id.uid } });
  t.is(missing.json.code, 3);

  t.is((await srv.call('DELETE', `${RB}/${rb.uid}`)).status, 200);
  t.is((await srv.call('GET', `${RB}/${rb.uid}`)).json.code, 5);
});

test('deleting an identity removes its role bindings with it', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const id = await createIdentity(srv, srv.organizationUid, 'temp');
  const rb = await srv.call('POST', RB, { parent: srv.organizationUid, roleBinding: { identityUid: id.uid, roleUid: await roleUid(srv, 'viewer') } });
  t.is((await srv.call('DELETE', `${I}/${id.uid}`)).status, 200);
  t.is((await srv.call('GET', `${RB}/${rb.json.uid}`)).status, 404);
});

test('data persists across restarts, and a second serve on the same data dir is refused', async (t) => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir });
  const g = await createGroup(first, first.organizationUid, 'durable');
  // SQLite only: on PostgreSQL replicas of one database are welcome.
  if (storeUnderTest === 'sqlite') {
    await t.throwsAsync(() => startServer({ dataDir, port: 0 }), { message: /already using/ });
  }
  await first.close();

  const second = await startTestServer({ dataDir });
  t.teardown(() => second.dispose());
  t.is(second.organizationUid, first.organizationUid, 'no second bootstrap');
  t.is(second.ownerIdentityUid, first.ownerIdentityUid);
  t.is(readFileSync(join(dataDir, 'owner.token'), 'utf8').trim(), second.ownerToken, 'a token for the new URL is in owner.token');
  const got = await second.call('GET', `${G}/${g.uid}`);
  t.is(got.status, 200);
  t.is(got.json.name, 'durable');
});

test('descriptions are held to 4096 characters on update as on create', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const g = await createGroup(srv, srv.organizationUid, 'wordy');
  const long = 'x'.repeat(4097);
  const created = await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'w2', description: long } });
  t.is(created.json.code, 3);
  for (const path of [`${G}/${g.uid}`, `${I}/${srv.ownerIdentityUid}`]) {
    const res = await srv.call('PATCH', path, { description: long });
    t.is(res.status, 400, path);
    t.deepEqual(violationFields(res.json), ['description']);
  }
  t.is((await srv.call('PATCH', `${G}/${g.uid}`, { description: 'x'.repeat(4096) })).status, 200);
});

test('an update refused inside its write (a claimMatch taken meanwhile) leaves the identity as it was', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const a = await createIdentity(srv, srv.organizationUid, 'alpha', 'sub-a');
  await createIdentity(srv, srv.organizationUid, 'beta', 'sub-b');
  const before = (await srv.call('GET', `${I}/${a.uid}`)).json;
  const clash = await srv.call('PATCH', `${I}/${a.uid}?updateMask=claimMatch.subject,name`, { name: 'renamed', claimMatch: { subject: 'sub-b' } });
  t.is(clash.status, 409);
  t.deepEqual((await srv.call('GET', `${I}/${a.uid}`)).json, before, 'neither the name nor the claim changed');
});

test('REST takes both create shapes: the spec\'s ({parent, group} in the body) and the published rule\'s (the parent in the path, the bare resource as the body)', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const org = srv.organizationUid;
  const published = await srv.call('POST', `${G}/${org}`, { name: 'published', description: 'parent in the path' });
  t.is(published.status, 200, published.text);
  t.true(published.json.uid.startsWith(`${org}/`));
  // A parent that is itself a path of uids (a group below the organization), as `{parent=**}` allows.
  const nested = await srv.call('POST', `${G}/${published.json.uid}`, { name: 'below' });
  t.is(nested.status, 200, nested.text);
  t.true(nested.json.uid.startsWith(`${published.json.uid}/`));
  const spec = await srv.ok('POST', G, { parent: org, group: { name: 'spec' } });
  t.deepEqual(Object.keys(spec).sort(), Object.keys(published.json).sort(), 'the same resource either way');
  // The same rules behind both: a bad body is the same 400, and nothing is made.
  const bad = await srv.call('POST', `${G}/${org}`, { name: 'x', nonsense: true });
  t.is(bad.status, 400);
  t.is(bad.json.code, 3);
  const identity = await srv.call('POST', `${I}/${org}`, { name: 'ci', claimMatch: { issuer: 'https://issuer.example', subject: 'published-shape' } });
  t.is(identity.status, 200, identity.text);
  t.is((await srv.call('GET', `${G}?uidp.children_of=${org}&name=x`)).json.groups.length, 0);
});
