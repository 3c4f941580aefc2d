// No cross-scope disclosure: a conflict or a role-binding creation never tells a caller
// anything about a resource it cannot read; such a resource answers as a missing one.
import test from 'ava';
import { newChildUid } from '../src/server/domain/records.js';
import { systemRandom } from '../src/server/base/random.js';
import { request, startTestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';
const ROLES = '/iam/v2/roles';

/**
 * org ─ apps ─ web (wendy is owner here; tess lives here)
 *            └ api (a custom role "api-deployer" is defined here)
 * alice lives at the organization, outside wendy's scope.
 */
async function setup() {
  const srv = await startTestServer();
  const post = async (path: string, body: unknown) => {
    const res = await srv.call('POST', path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const roleUid = async (name: string) => (await srv.call('GET', `${ROLES}?name=${name}`)).json.roles[0].uid as string;
  const issuer = srv.url;
  const apps = await post(G, { parent: srv.organizationUid, group: { name: 'apps' } });
  const web = await post(G, { parent: apps.uid, group: { name: 'web' } });
  const api = await post(G, { parent: apps.uid, group: { name: 'api' } });
  const alice = await post(I, { parent: srv.organizationUid, identity: { name: 'alice', description: 'finance lead', claimMatch: { issuer: 'https://idp.example', subject: 'alice@corp' } } });
  const tess = await post(I, { parent: web.uid, identity: { name: 'tess', claimMatch: { issuer: 'https://idp.example', subject: 'tess@corp' } } });
  const apiRole = await post(ROLES, { parent: api.uid, role: { name: 'api-deployer', capabilities: ['repo.update', 'repo.list'] } });
  /** An identity of serve's issuer under `group`, bound to `role` there, and a way to call as it. */
  const member = async (name: string, group: string, role: string) => {
    const id = await post(I, { parent: group, identity: { name, claimMatch: { issuer, subject: name } } });
    await post(RB, { parent: group, roleBinding: { identityUid: id.uid, roleUid: role } });
    const token = await srv.issueToken(id.uid);
    return { id, as: (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` }) };
  };
  const wendy = await member('wendy', web.uid, await roleUid('owner'));
  return { srv, post, roleUid, member, apps, web, api, alice, tess, apiRole, wendy };
}

/** A uid shaped like a real one that no resource has. */
const missing = (parent: string) => newChildUid(systemRandom, parent);

test('a claimMatch held outside the caller\'s scope is refused (409) without naming or describing its identity', async (t) => {
  const { srv, web, alice, tess, wendy } = await setup();
  t.teardown(() => srv.dispose());
  const aliceClaim = { issuer: 'https://idp.example', subject: 'alice@corp' };

  const created = await wendy.as('POST', I, { parent: web.uid, identity: { name: 'probe', claimMatch: aliceClaim } });
  t.is(created.status, 409);
  t.is(created.json.code, 6);
  for (const secret of [alice.uid, 'alice', 'finance lead']) t.false(created.text.includes(secret), `create: ${secret} not disclosed`);

  const updated = await wendy.as('PATCH', `${I}/${tess.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'alice@corp' } });
  t.is(updated.status, 409);
  for (const secret of [alice.uid, 'alice', 'finance lead']) t.false(updated.text.includes(secret), `update: ${secret} not disclosed`);
  t.is((await srv.call('GET', `${I}/${tess.uid}`)).json.claimMatch.subject, 'tess@corp', 'the refused update changed nothing');

  // A holder the caller may read is named, as before.
  const visible = await wendy.as('POST', I, { parent: web.uid, identity: { name: 'again', claimMatch: { issuer: 'https://idp.example', subject: 'tess@corp' } } });
  t.is(visible.status, 409);
  t.true(visible.text.includes(tess.uid));
  const byOwner = await srv.call('POST', I, { parent: web.uid, identity: { name: 'probe', claimMatch: aliceClaim } });
  t.is(byOwner.status, 409);
  t.true(byOwner.text.includes(alice.uid), 'the organization owner may read alice: named');
});

test('binding an identity or a role the caller cannot read answers exactly as binding one that does not exist', async (t) => {
  const { srv, apps, web, alice, tess, apiRole, wendy, roleUid } = await setup();
  t.teardown(() => srv.dispose());
  const viewer = await roleUid('viewer');
  const sameAsMissing = async (field: 'identityUid' | 'roleUid', hidden: string, other: Record<string, string>) => {
    const absent = missing(apps.uid);
    const res = await wendy.as('POST', RB, { parent: web.uid, roleBinding: { ...other, [field]: hidden } });
    const ref = await wendy.as('POST', RB, { parent: web.uid, roleBinding: { ...other, [field]: absent } });
    t.is(res.status, 404, `${field}: ${res.text}`);
    t.is(res.text.replaceAll(hidden, '<uid>'), ref.text.replaceAll(absent, '<uid>'), `${field}: the same answer as for a uid that does not exist`);
    return res;
  };

  const identity = await sameAsMissing('identityUid', alice.uid, { roleUid: viewer });
  for (const secret of ['alice', 'finance lead', 'alice@corp', 'idp.example']) t.false(identity.text.includes(secret), `${secret} not disclosed`);
  const role = await sameAsMissing('roleUid', apiRole.uid, { identityUid: tess.uid });
  t.false(role.text.includes('api-deployer'), 'the role\'s name is not disclosed');

  const bindings = (await srv.call('GET', `${RB}?page_size=200`)).json.roleBindings as { identity: { uid: string } }[];
  t.false(bindings.some((b) => b.identity.uid === alice.uid), 'nothing was bound');

  // What the caller can read binds as before, with the binding expanded; so does the caller itself.
  const ok = await wendy.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: tess.uid, roleUid: viewer } });
  t.is(ok.status, 200, ok.text);
  t.is(ok.json.identity.subject, 'tess@corp');
  const self = await wendy.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: wendy.id.uid, roleUid: viewer } });
  t.is(self.status, 200, self.text);
  // The organization owner reads alice and may bind her anywhere.
  t.is((await srv.call('POST', RB, { parent: web.uid, roleBinding: { identityUid: alice.uid, roleUid: viewer } })).status, 200);
});

test('a duplicate role binding or repo name is named only to a caller who may read it', async (t) => {
  const { srv, post, member, web, tess } = await setup();
  t.teardown(() => srv.dispose());
  // May bind roles and rename repos, but may not list role bindings or repos.
  const limited = await post(ROLES, {
    parent: web.uid, role: { name: 'limited', capabilities: ['role_bindings.create', 'identity.list', 'roles.list', 'groups.list', 'repo.update'] },
  });
  const reader = await post(ROLES, { parent: web.uid, role: { name: 'reader', capabilities: ['groups.list'] } });
  const lee = await member('lee', web.uid, limited.uid);

  const first = await lee.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: tess.uid, roleUid: reader.uid } });
  t.is(first.status, 200, first.text);
  const again = await lee.as('POST', RB, { parent: web.uid, roleBinding: { identityUid: tess.uid, roleUid: reader.uid } });
  t.is(again.status, 409);
  t.false(again.text.includes(first.json.uid), 'the existing binding is not named');
  const byOwner = await srv.call('POST', RB, { parent: web.uid, roleBinding: { identityUid: tess.uid, roleUid: reader.uid } });
  t.true(byOwner.text.includes(first.json.uid), 'named to the owner');

  const now = new Date().toISOString();
  const repo = (name: string) => ({ uid: newChildUid(systemRandom, web.uid), kind: 'repo' as const, parent: web.uid, name, altKey: null, createTime: now, updateTime: now, data: { description: '' } });
  const [nginx, envoy] = [repo('nginx'), repo('envoy')];
  await srv.store.write(() => [nginx, envoy].forEach((r) => srv.store.insert(r)));
  const clash = await lee.as('PATCH', `/registry/v2/repos/${envoy.uid}?updateMask=name`, { name: 'nginx' });
  t.is(clash.status, 409);
  t.false(clash.text.includes(nginx.uid), 'the other repo is not named');
  const ownerClash = await srv.call('PATCH', `/registry/v2/repos/${envoy.uid}?updateMask=name`, { name: 'nginx' });
  t.true(ownerClash.text.includes(nginx.uid));
});
