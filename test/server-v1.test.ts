// The v1 API beside v2 (src/server/surfaces/v1/): every v1 call through REST (its own HTTP rules, by
// hand here) and through gRPC (@grpc/grpc-js with the vendor's v1 protos of proto/platform/*/v1/,
// a client nobody here wrote), each checked against the same state read through v2; the
// deprecation headers on every answer; --v1 off; and who still calls v1 (pctl serve v1-callers).
import test from 'ava';
import { join } from 'node:path';
import grpc from '@grpc/grpc-js';
import loader from '@grpc/proto-loader';
import type { SeedDocument } from '../src/server/data/seed.js';
import { cli } from './helpers/cli.js';
import { closeAgent } from '../src/client/http.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- v1 and v2 answers as the API sent them; tests assert their shape
type Any = any;
type Via = 'rest' | 'grpc';
const VIAS: readonly Via[] = ['rest', 'grpc'];

const root = join(import.meta.dirname, '..');
const V1_PROTOS = [
  'platform/iam/v1/group.platform.proto', 'platform/iam/v1/identity.platform.proto', 'platform/iam/v1/role.platform.proto',
  'platform/iam/v1/role_binding.platform.proto', 'platform/iam/v1/identity_providers.platform.proto', 'platform/iam/v1/group_invites.platform.proto',
  'platform/iam/v1/account_associations.platform.proto', 'platform/registry/v1/registry.platform.proto', 'platform/registry/v1/vulnerabilities.platform.proto',
  'platform/vulnerabilities/v1/advisory.vulnerabilities.proto',
];
// The directories the vendor's build passes as include paths: its v1 files import neighbours by bare name.
const V1_INCLUDES = ['proto', 'proto/platform/iam/v1', 'proto/platform/registry/v1', 'proto/platform/tenant/v1'].map((d) => join(root, d));
const pkg = grpc.loadPackageDefinition(loader.loadSync(V1_PROTOS, { includeDirs: V1_INCLUDES, longs: String, enums: String, defaults: true, oneofs: true })) as Any;

const hex = (c: string) => `sha256:${c.repeat(64)}`;
const seed: SeedDocument = {
  organizations: [{
    name: 'acme',
    groups: [{
      name: 'platform',
      repos: [
        {
          name: 'nginx', description: 'web server images',
          tags: [
            { name: '1.27', digest: hex('a') },
            { name: '1.25', digest: hex('b'), deprecated: true },
            { name: '1.25-20250101', digest: hex('c'), deprecated: true },
            { name: 'sha256-abc.sig', digest: hex('d') },
          ],
        },
        { name: 'envoy', tags: [{ name: 'v1', digest: hex('e') }, { name: 'v0', digest: hex('f'), deprecated: true }] },
      ],
    }],
  }],
  advisories: [
    { advisoryId: 'CGA-2026-0001', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0002', artifactName: 'nginx' },
    { advisoryId: 'CGA-2026-0003', artifactName: 'envoy' },
  ],
};

/** One answer of either transport: the gRPC code (REST bodies carry it too), the body, the headers or metadata. */
interface Answer {
  code: number;
  /** REST: the HTTP status; gRPC: 200 when OK. */
  status: number;
  body: Any;
  message: string;
  header(name: string): string | undefined;
}

interface V1Client {
  /** Calls `service/Method` (`iam.Groups/Create`) over gRPC with `message`, or REST's [method, path, body] for the same call. */
  (rpc: string, message: Any, rest: [method: string, path: string, body?: unknown]): Promise<Answer>;
}

function clientFor(srv: TestServer, via: Via, token = srv.ownerToken): V1Client {
  return async (rpc, message, [method, path, body]) => {
    if (via === 'rest') {
      const res = await srv.call(method, path, body, { authorization: `Bearer ${token}` });
      return { code: res.status < 400 ? 0 : res.json?.code, status: res.status, body: res.json, message: res.json?.message ?? '', header: (n) => res.headers.get(n) ?? undefined };
    }
    const [service, name] = rpc.split('/') as [string, string];
    const Ctor = service.split('.').reduce((o, k) => o[k], pkg.chainguard.platform);
    const client = new Ctor(srv.url.replace('http://', ''), grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    try {
      return await new Promise<Answer>((resolve) => {
        let headers: grpc.Metadata | undefined;
        const call = client[name](message, metadata, { deadline: Date.now() + 20_000 }, (err: Any, res: Any) => {
          const md = (n: string) => String((headers?.get(n) ?? [])[0] ?? (err?.metadata?.get(n) ?? [])[0] ?? '') || undefined;
          resolve(err ? { code: err.code, status: 0, body: undefined, message: err.details, header: md } : { code: 0, status: 200, body: res, message: '', header: md });
        });
        call.on('metadata', (m: grpc.Metadata) => { headers = m; });
      });
    } finally {
      client.close();
    }
  };
}

const G = '/iam/v2/groups';
let srv: TestServer;
let org: string;
let platform: string;
test.before(async () => {
  srv = await startTestServer({ seed, v1: { enabled: true, sunset: new Date('2027-06-30T00:00:00Z') } });
  const orgs = await srv.ok('GET', `${G}?name=acme`);
  org = orgs.groups[0].uid;
  platform = (await srv.ok('GET', `${G}?name=platform`)).groups[0].uid;
});
test.after.always(async () => {
  await closeAgent();
  await srv.dispose();
});

/** The three marks of a v1 answer. */
function assertDeprecated(t: Any, a: Answer, successorPath: string | RegExp) {
  t.regex(a.header('deprecation') ?? '', /^@\d+$/, 'Deprecation: an RFC 9745 date');
  t.is(a.header('sunset'), 'Wed, 30 Jun 2027 00:00:00 GMT', 'Sunset: the --v1-sunset date as an HTTP date');
  const link = a.header('link') ?? '';
  t.regex(link, /; rel="successor-version"$/);
  if (typeof successorPath === 'string') t.is(link, `<${successorPath}>; rel="successor-version"`);
  else t.regex(link, successorPath);
}

for (const via of VIAS) {
  // Serial: each via lists platform's children and expects its own child alone.
  test.serial(`${via}: a group made over v1 is v2's, v1 lists and replaces v2's, and deletes it`, async (t) => {
    const v1 = clientFor(srv, via);
    const made = await v1('iam.Groups/Create', { parent: org, group: { name: `v1-${via}`, description: 'from v1' } }, ['POST', `/iam/v1/groups/${org}`, { name: `v1-${via}`, description: 'from v1' }]);
    t.is(made.code, 0, made.message);
    assertDeprecated(t, made, '/iam/v2/groups');
    const v2 = await srv.ok('GET', `${G}/${made.body.id}`);
    t.like(v2, { uid: made.body.id, name: `v1-${via}`, description: 'from v1', verified: false });
    t.true(made.body.id.startsWith(`${org}/`));

    // A parent given by name (v1's CreateGroupRequest.parent may be a group name in scope).
    const byName = await v1('iam.Groups/Create', { parent: 'platform', group: { name: `child-${via}` } }, ['POST', '/iam/v1/groups/platform', { name: `child-${via}` }]);
    t.is(byName.code, 0, byName.message);
    t.is((await srv.ok('GET', `${G}/${byName.body.id}`)).name, `child-${via}`);
    t.true(byName.body.id.startsWith(`${platform}/`));
    // A name that names no group is NOT_FOUND, as v2 answers an unknown parent.
    const nowhere = await v1('iam.Groups/Create', { parent: 'nowhere', group: { name: `lost-${via}` } }, ['POST', '/iam/v1/groups/nowhere', { name: `lost-${via}` }]);
    t.is(nowhere.code, 5, nowhere.message);
    if (via === 'rest') t.is(nowhere.status, 404);

    const v2made = await srv.ok('POST', G, { parent: org, group: { name: `v2-${via}`, description: 'from v2' } });
    const listed = await v1('iam.Groups/List', { id: v2made.uid }, ['GET', `/iam/v1/groups?id=${v2made.uid}`]);
    t.deepEqual(listed.body.items.map((g: Any) => [g.id, g.name, g.description]), [[v2made.uid, `v2-${via}`, 'from v2']]);
    const children = await v1('iam.Groups/List', { uidp: { childrenOf: platform } }, ['GET', `/iam/v1/groups?uidp.children_of=${platform}`]);
    t.deepEqual(children.body.items.map((g: Any) => g.id), [byName.body.id]);
    const roots = await v1('iam.Groups/List', { uidp: { inRoot: true }, name: 'acme' }, ['GET', '/iam/v1/groups?uidp.in_root=true&name=acme']);
    t.deepEqual(roots.body.items.map((g: Any) => g.id), [org]);
    const ancestors = await v1('iam.Groups/List', { uidp: { ancestorsOf: byName.body.id } }, ['GET', `/iam/v1/groups?uidp.ancestors_of=${byName.body.id}`]);
    t.deepEqual(ancestors.body.items.map((g: Any) => g.id).sort(), [org, platform].sort());

    // PUT is the whole resource: a description left out is cleared.
    const put = await v1('iam.Groups/Update', { id: v2made.uid, name: `renamed-${via}` }, ['PUT', `/iam/v1/groups/${v2made.uid}`, { name: `renamed-${via}` }]);
    t.is(put.code, 0, put.message);
    assertDeprecated(t, put, `/iam/v2/groups/${v2made.uid}`);
    t.like(await srv.ok('GET', `${G}/${v2made.uid}`), { name: `renamed-${via}`, description: '' });

    for (const uid of [byName.body.id, made.body.id, v2made.uid]) {
      const gone = await v1('iam.Groups/Delete', { id: uid }, ['DELETE', `/iam/v1/groups/${uid}`]);
      t.is(gone.code, 0, gone.message);
      t.is((await srv.call('GET', `${G}/${uid}`)).status, 404);
    }
    // v2's rules hold: a bad name is v2's code 3 with its field violation.
    const bad = await v1('iam.Groups/Create', { parent: org, group: { name: 'Not Valid!' } }, ['POST', `/iam/v1/groups/${org}`, { name: 'Not Valid!' }]);
    t.is(bad.code, 3);
    t.regex(bad.message, /name/);
    assertDeprecated(t, bad, '/iam/v2/groups');
  });

  test(`${via}: identities: create, list, lookup, replace and delete, as v2 sees them`, async (t) => {
    const v1 = clientFor(srv, via);
    const identity = { name: `ci-${via}`, description: 'deploys', claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: `repo:acme/app:${via}` } };
    const made = await v1('iam.Identities/Create', { parentId: platform, identity }, ['POST', `/iam/v1/identities/${platform}`, identity]);
    t.is(made.code, 0, made.message);
    const v2 = await srv.ok('GET', `/iam/v2/identities/${made.body.id}`);
    t.like(v2, { name: `ci-${via}`, description: 'deploys', claimMatch: identity.claimMatch });
    t.is(new Date(via === 'rest' ? made.body.createdAt : Number(made.body.createdAt.seconds) * 1000 + made.body.createdAt.nanos / 1e6).toISOString(), v2.createTime);
    t.is(made.body.claimMatch.issuer, identity.claimMatch.issuer);

    const listed = await v1('iam.Identities/List', { uidp: { childrenOf: platform } }, ['GET', `/iam/v1/identities?uidp.children_of=${platform}`]);
    t.true(listed.body.items.some((i: Any) => i.id === made.body.id && i.claimMatch.subject === identity.claimMatch.subject));
    const q = new URLSearchParams(identity.claimMatch).toString();
    const looked = await v1('iam.Identities/Lookup', identity.claimMatch, ['GET', `/iam/v1/identities/lookup?${q}`]);
    t.is(looked.body.id, made.body.id);
    const none = await v1('iam.Identities/Lookup', { issuer: 'https://nowhere.example', subject: 'x' }, ['GET', '/iam/v1/identities/lookup?issuer=https://nowhere.example&subject=x']);
    t.is(none.code, 5);

    const put = await v1('iam.Identities/Update', { id: made.body.id, name: `ci2-${via}`, claimMatch: { issuer: identity.claimMatch.issuer, subject: `${identity.claimMatch.subject}:2` } },
      ['PUT', `/iam/v1/identities/${made.body.id}`, { name: `ci2-${via}`, claim_match: { issuer: identity.claimMatch.issuer, subject: `${identity.claimMatch.subject}:2` } }]);
    t.is(put.code, 0, put.message);
    t.like(await srv.ok('GET', `/iam/v2/identities/${made.body.id}`), { name: `ci2-${via}`, description: '', claimMatch: { subject: `${identity.claimMatch.subject}:2` } });
    // The pattern forms are v2's too: made over v1, read over v2 and v1.
    const claimMatch = { issuerPattern: 'https://token\\.actions\\.githubusercontent\\.com', subjectPattern: `repo:acme/.*:${via}`, audience: 'https://api.example', claims: { repository_owner: 'acme' }, claimPatterns: { ref: 'refs/heads/.*' } };
    const pattern = await v1('iam.Identities/Create', { parentId: platform, identity: { name: `p-${via}`, claimMatch } }, ['POST', `/iam/v1/identities/${platform}`, { name: `p-${via}`, claimMatch }]);
    t.is(pattern.code, 0, pattern.message);
    t.like(await srv.ok('GET', `/iam/v2/identities/${pattern.body.id}`), { claimMatch: { ...claimMatch, issuer: '', subject: '' } });
    t.like(pattern.body.claimMatch, claimMatch);
    t.is((await v1('iam.Identities/Delete', { id: pattern.body.id }, ['DELETE', `/iam/v1/identities/${pattern.body.id}`])).code, 0);
    // What v2 has no field for is refused, not dropped.
    const keys = { issuer: 'https://x.example', subject: 's', issuerKeys: '{"keys":[]}' };
    const refused = await v1('iam.Identities/Create', { parentId: platform, identity: { name: 'p', static: keys } }, ['POST', `/iam/v1/identities/${platform}`, { name: 'p', static: keys }]);
    t.is(refused.code, 3);
    t.regex(refused.message, /static/);

    t.is((await v1('iam.Identities/Delete', { id: made.body.id }, ['DELETE', `/iam/v1/identities/${made.body.id}`])).code, 0);
    t.is((await srv.call('GET', `/iam/v2/identities/${made.body.id}`)).status, 404);
  });

  test(`${via}: roles and role bindings, with v1's shapes (uids in, a Binding with group and role out)`, async (t) => {
    const v1 = clientFor(srv, via);
    const role = await v1('iam.Roles/Create', { parentId: platform, role: { name: `reader-${via}`, capabilities: ['groups.list'] } }, ['POST', `/iam/v1/roles/${platform}`, { name: `reader-${via}`, capabilities: ['groups.list'] }]);
    t.is(role.code, 0, role.message);
    t.like(await srv.ok('GET', `/iam/v2/roles/${role.body.id}`), { name: `reader-${via}`, capabilities: ['groups.list'] });
    const builtins = await v1('iam.Roles/List', { parent: '/' }, ['GET', '/iam/v1/roles?parent=/']);
    const v2builtins = (await srv.ok('GET', '/iam/v2/roles')).roles.filter((r: Any) => !r.uid.includes('/'));
    t.deepEqual(builtins.body.items.map((r: Any) => r.name).sort(), v2builtins.map((r: Any) => r.name).sort());
    const put = await v1('iam.Roles/Update', { id: role.body.id, name: `reader-${via}`, description: 'reads', capabilities: ['groups.list', 'identity.list'] },
      ['PUT', `/iam/v1/roles/${role.body.id}`, { name: `reader-${via}`, description: 'reads', capabilities: ['groups.list', 'identity.list'] }]);
    t.is(put.code, 0, put.message);
    t.like(await srv.ok('GET', `/iam/v2/roles/${role.body.id}`), { description: 'reads', capabilities: ['groups.list', 'identity.list'] });

    const who = await srv.ok('POST', '/iam/v2/identities', { parent: platform, identity: { name: `bound-${via}`, claimMatch: { issuer: 'https://issuer.example', subject: `bound-${via}` } } });
    const bound = await v1('iam.RoleBindings/Create', { parent: platform, roleBinding: { identity: who.uid, role: role.body.id } }, ['POST', `/iam/v1/rolebindings/${platform}`, { identity: who.uid, role: role.body.id }]);
    t.is(bound.code, 0, bound.message);
    t.like(bound.body, { identity: who.uid, role: role.body.id, group: platform });
    const v2 = await srv.ok('GET', `/iam/v2/roleBindings/${bound.body.id}`);
    t.like(v2, { identity: { uid: who.uid }, role: { uid: role.body.id }, group: { uid: platform } });
    const listed = await v1('iam.RoleBindings/List', { id: bound.body.id }, ['GET', `/iam/v1/rolebindings?id=${bound.body.id}`]);
    t.like(listed.body.items[0], { id: bound.body.id, identity: who.uid, group: { id: platform, name: 'platform' }, role: { id: role.body.id, name: `reader-${via}` }, claimMatchIssuer: 'https://issuer.example', claimMatchSubject: `bound-${via}` });
    // v1 reads a binding v2 made.
    const viewer = await srv.roleUid('viewer');
    const v2made = await srv.ok('POST', '/iam/v2/roleBindings', { parent: org, roleBinding: { identityUid: who.uid, roleUid: viewer } });
    const all = await v1('iam.RoleBindings/List', { uidp: { descendantsOf: org } }, ['GET', `/iam/v1/rolebindings?uidp.descendants_of=${org}`]);
    t.true(all.body.items.some((b: Any) => b.id === v2made.uid && b.role.name === 'viewer' && b.group.id === org));

    const update = await v1('iam.RoleBindings/Update', { id: bound.body.id, identity: who.uid, role: viewer }, ['PUT', `/iam/v1/rolebindings/${bound.body.id}`, { identity: who.uid, role: viewer }]);
    t.is(update.code, 12);
    if (via === 'rest') t.is(update.status, 501);
    t.regex(update.message, /DELETE \/iam\/v2\/roleBindings\/\{uid\}.*POST \/iam\/v2\/roleBindings/);

    for (const uid of [bound.body.id, v2made.uid]) t.is((await v1('iam.RoleBindings/Delete', { id: uid }, ['DELETE', `/iam/v1/rolebindings/${uid}`])).code, 0);
    const batch = await v1('iam.RoleBindings/CreateBatch', { parent: platform, roleBindings: [{ identity: who.uid, role: role.body.id }, { identity: who.uid, role: viewer }] },
      ['POST', `/iam/v1/rolebindings/batch/${platform}`, [{ identity: who.uid, role: role.body.id }, { identity: who.uid, role: viewer }]]);
    t.is(batch.code, 0, batch.message);
    t.deepEqual(batch.body.roleBindings.map((b: Any) => b.role), [role.body.id, viewer]);
    for (const b of batch.body.roleBindings) t.is((await srv.ok('GET', `/iam/v2/roleBindings/${b.id}`)).identity.uid, who.uid);
    for (const b of batch.body.roleBindings) await srv.ok('DELETE', `/iam/v2/roleBindings/${b.id}`);
    // All or none, as the published batch: a binding that fails leaves none of the batch made.
    const broken = await v1('iam.RoleBindings/CreateBatch', { parent: platform, roleBindings: [{ identity: who.uid, role: viewer }, { identity: who.uid, role: 'no-such-role' }] },
      ['POST', `/iam/v1/rolebindings/batch/${platform}`, [{ identity: who.uid, role: viewer }, { identity: who.uid, role: 'no-such-role' }]]);
    t.not(broken.code, 0);
    t.is((await srv.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${platform}`)).roleBindings.filter((b: Any) => b.identity.uid === who.uid).length, 0, 'none of the batch made');
    await srv.ok('DELETE', `/iam/v2/identities/${who.uid}`);
    t.is((await v1('iam.Roles/Delete', { id: role.body.id }, ['DELETE', `/iam/v1/roles/${role.body.id}`])).code, 0);
    t.is((await srv.call('GET', `/iam/v2/roles/${role.body.id}`)).status, 404);
  });

  test(`${via}: identity providers, invites and account associations through v1`, async (t) => {
    const v1 = clientFor(srv, via);
    const viewer = await srv.roleUid('viewer');
    const oidc = { issuer: 'https://sso.example', clientId: 'pctl', clientSecret: 's3cret', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' };
    const idp = await v1('iam.IdentityProviders/Create', { parentId: platform, identityProvider: { name: `sso-${via}`, defaultRole: viewer, oidc } },
      ['POST', `/iam/v1/identityProviders/${platform}`, { name: `sso-${via}`, default_role: viewer, oidc }]);
    t.is(idp.code, 0, idp.message);
    t.falsy(idp.body.oidc.clientSecret, 'the secret is never read back');
    t.is(idp.body.oidc.correlationRule, 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
    t.like(await srv.ok('GET', `/iam/v2/identityProviders/${idp.body.id}`), { name: `sso-${via}`, defaultRole: viewer, oidc: { issuer: 'https://sso.example', correlationRule: 'OID_EQUALS_EXTERNAL_ID' } });
    const put = await v1('iam.IdentityProviders/Update', { id: idp.body.id, name: `sso2-${via}`, defaultRole: viewer, oidc: { issuer: 'https://sso2.example', clientId: 'pctl' } },
      ['PUT', `/iam/v1/identityProviders/${idp.body.id}`, { name: `sso2-${via}`, defaultRole: viewer, oidc: { issuer: 'https://sso2.example', clientId: 'pctl' } }]);
    t.is(put.code, 0, put.message);
    t.like(await srv.ok('GET', `/iam/v2/identityProviders/${idp.body.id}`), { name: `sso2-${via}`, oidc: { issuer: 'https://sso2.example', correlationRule: 'OID_EQUALS_EXTERNAL_ID' } });
    const listed = await v1('iam.IdentityProviders/List', { name: `sso2-${via}` }, ['GET', `/iam/v1/identityProviders?name=sso2-${via}`]);
    t.deepEqual(listed.body.items.map((p: Any) => p.id), [idp.body.id]);
    for (const verb of ['GenerateScimToken', 'RegenerateScimToken', 'RevokeScimToken', 'SetScimEnabled']) {
      const path = `/iam/v1/identityProviders/${idp.body.id}:${verb[0]!.toLowerCase()}${verb.slice(1)}`;
      const scim = await v1(`iam.IdentityProviders/${verb}`, { identityProviderId: idp.body.id }, ['POST', path, {}]);
      t.is(scim.code, 12, verb);
      t.regex(scim.message, /SCIM.*GET \/iam\/v2\/identityProviders\/\{uid\}/, verb);
      assertDeprecated(t, scim, `/iam/v2/identityProviders/${idp.body.id}`);
    }
    t.is((await v1('iam.IdentityProviders/Delete', { id: idp.body.id }, ['DELETE', `/iam/v1/identityProviders/${idp.body.id}`])).code, 0);
    t.is((await srv.call('GET', `/iam/v2/identityProviders/${idp.body.id}`)).status, 404);

    const invite = await v1('iam.GroupInvites/Create', { group: platform, role: viewer, ttl: { seconds: '3600' }, singleUse: true },
      ['POST', `/iam/v1/group_invites/${platform}`, { role: viewer, ttl: '3600s', single_use: true }]);
    t.is(invite.code, 0, invite.message);
    t.regex(invite.body.code, /^pctl_invite_/);
    t.is(invite.body.role.id, viewer);
    const v2invite = await srv.ok('GET', `/iam/v2/groupInvites/${invite.body.id}`);
    t.like(v2invite, { roleUid: viewer, singleUse: true });
    const invites = await v1('iam.GroupInvites/List', { group: platform }, ['GET', `/iam/v1/group_invites?group=${platform}`]);
    const stored = invites.body.items.find((i: Any) => i.id === invite.body.id);
    t.like(stored, { keyId: v2invite.keyId, singleUse: true });
    t.false('code' in stored && stored.code, 'a listed invite has no code');
    t.is((await v1('iam.GroupInvites/Delete', { id: invite.body.id }, ['DELETE', `/iam/v1/group_invites/${invite.body.id}`])).code, 0);
    t.is((await srv.call('GET', `/iam/v2/groupInvites/${invite.body.id}`)).status, 404);

    const group = await srv.ok('POST', G, { parent: org, group: { name: `accounts-${via}` } });
    const aa = await v1('iam.GroupAccountAssociations/Create', { group: group.uid, name: 'cloud', amazon: { account: '123456789012' } },
      ['POST', `/iam/v1/account_associations/${group.uid}`, { name: 'cloud', amazon: { account: '123456789012' } }]);
    t.is(aa.code, 0, aa.message);
    t.like(await srv.ok('GET', `/iam/v2/accountAssociations/${group.uid}`), { uid: group.uid, name: 'cloud', amazon: { account: '123456789012' } });
    const check = await v1('iam.GroupAccountAssociations/Check', { group: group.uid, accountType: 'GOOGLE' }, ['POST', `/iam/v1/account_associations/${group.uid}:check`, { account_type: 'GOOGLE' }]);
    t.like(check.body, { ready: 'NotReady', reason: 'NOT_CONFIGURED' });
    const put2 = await v1('iam.GroupAccountAssociations/Update', { group: group.uid, name: 'cloud', google: { projectId: 'my-project-1', projectNumber: '123456789012' } },
      ['PUT', `/iam/v1/account_associations/${group.uid}`, { name: 'cloud', google: { projectId: 'my-project-1', projectNumber: '123456789012' } }]);
    t.is(put2.code, 0, put2.message);
    const v2aa = await srv.ok('GET', `/iam/v2/accountAssociations/${group.uid}`);
    t.like(v2aa, { google: { projectId: 'my-project-1', projectNumber: '123456789012' } });
    t.false('amazon' in v2aa, 'PUT replaces the whole association');
    const ready = await v1('iam.GroupAccountAssociations/Check', { group: group.uid, accountType: 'GOOGLE' }, ['POST', `/iam/v1/account_associations/${group.uid}:check`, { accountType: 'GOOGLE' }]);
    t.is(ready.body.ready, 'Ready');
    const listedAa = await v1('iam.GroupAccountAssociations/List', { group: group.uid }, ['GET', `/iam/v1/account_associations?group=${group.uid}`]);
    t.deepEqual(listedAa.body.items.map((a: Any) => [a.group, a.name]), [[group.uid, 'cloud']]);
    t.is((await v1('iam.GroupAccountAssociations/Delete', { group: group.uid }, ['DELETE', `/iam/v1/account_associations/${group.uid}`])).code, 0);
    t.is((await srv.call('GET', `/iam/v2/accountAssociations/${group.uid}`)).status, 404);
    await srv.ok('DELETE', `${G}/${group.uid}`);
  });

  // Serial: both vias write the same repo's description, and each reads back its own.
  test.serial(`${via}: repos and tags; the end-of-life tag call lists exactly the deprecated tags`, async (t) => {
    const v1 = clientFor(srv, via);
    const v2repos = (await srv.ok('GET', `/registry/v2/repos?uidp.descendants_of=${org}`)).repos;
    const repos = await v1('registry.Registry/ListRepos', { uidp: { descendantsOf: org } }, ['GET', `/registry/v1/repos?uidp.descendants_of=${org}`]);
    t.deepEqual(repos.body.items.map((r: Any) => [r.id, r.name, r.description]).sort(), v2repos.map((r: Any) => [r.uid, r.name, r.description]).sort());
    const nginx = v2repos.find((r: Any) => r.name === 'nginx');
    const put = await v1('registry.Registry/UpdateRepo', { id: nginx.uid, name: 'nginx', description: `via ${via}` }, ['PUT', `/registry/v1/repos/${nginx.uid}`, { name: 'nginx', description: `via ${via}` }]);
    t.is(put.code, 0, put.message);
    t.is((await srv.ok('GET', `/registry/v2/repos/${nginx.uid}`)).description, `via ${via}`);

    const v2tags = (await srv.ok('GET', `/registry/v2/tags?uidp.children_of=${nginx.uid}`)).tags;
    const tags = await v1('registry.Registry/ListTags', { uidp: { childrenOf: nginx.uid }, excludeReferrers: true }, ['GET', `/registry/v1/tags?uidp.children_of=${nginx.uid}&exclude_referrers=true`]);
    t.deepEqual(tags.body.items.map((x: Any) => [x.id, x.name, x.digest, x.deprecated]).sort(),
      v2tags.filter((x: Any) => !x.name.startsWith('sha256-')).map((x: Any) => [x.uid, x.name, x.digest, x.deprecated]).sort());

    const everyTag = (await srv.ok('GET', `/registry/v2/tags?page_size=200`)).tags;
    const deprecated = everyTag.filter((x: Any) => x.deprecated).map((x: Any) => x.uid).sort();
    t.is(deprecated.length, 3);
    const eol = await v1('registry.Registry/ListEolTags', {}, ['GET', '/registry/v1/eoltags']);
    t.is(eol.code, 0, eol.message);
    assertDeprecated(t, eol, '/registry/v2/tags');
    t.deepEqual(eol.body.items.map((x: Any) => x.id).sort(), deprecated);
    // Paged, and scoped like any tag list.
    const first = await v1('registry.Registry/ListEolTags', { pageSize: '2' }, ['GET', '/registry/v1/eoltags?page_size=2']);
    t.is(first.body.items.length, 2);
    const second = await v1('registry.Registry/ListEolTags', { pageSize: '2', pageToken: first.body.nextPageToken }, ['GET', `/registry/v1/eoltags?page_size=2&page_token=${first.body.nextPageToken}`]);
    t.deepEqual([...first.body.items, ...second.body.items].map((x: Any) => x.id).sort(), deprecated);
    t.falsy(second.body.nextPageToken);
    const nginxEol = await v1('registry.Registry/ListEolTags', { uidp: { childrenOf: nginx.uid }, excludeDates: true }, ['GET', `/registry/v1/eoltags?uidp.children_of=${nginx.uid}&exclude_dates=true`]);
    t.deepEqual(nginxEol.body.items.map((x: Any) => x.name), ['1.25']);

    // What v2 cannot do answers 501 naming the closest v2 call, and changes nothing.
    const tagUid = v2tags[0].uid;
    const history = await v1('registry.Registry/ListTagHistory', { parentId: tagUid }, ['GET', `/registry/v1/tags/${tagUid}/history`]);
    t.is(history.code, 12);
    if (via === 'rest') t.is(history.status, 501);
    t.regex(history.message, /\/registry\/v2\/tags/);
    t.deepEqual((await srv.ok('GET', `/registry/v2/tags?uidp.children_of=${nginx.uid}`)).tags, v2tags.map((x: Any) => ({ ...x })));

    // The Terraform provider's image_repo and image_tag calls: create (a tag without a digest, as it sends), update, delete.
    const name = `tf-${via}`;
    const made = await v1('registry.Registry/CreateRepo', { parentId: platform, repo: { name, catalogTier: 'BASE', bundles: ['b'], activeTags: ['latest'] } },
      ['POST', `/registry/v1/repos/${platform}`, { name, catalogTier: 'BASE', bundles: ['b'], activeTags: ['latest'] }]);
    t.is(made.code, 0, made.message);
    t.like(made.body, { name, catalogTier: 'BASE', bundles: ['b'], activeTags: ['latest'] });
    t.like(await srv.ok('GET', `/registry/v2/repos/${made.body.id}`), { name, catalogTier: 'CATALOG_TIER_BASE', bundles: ['b'] });
    // prevent_existing unset: the same name answers the repo there.
    const again = await v1('registry.Registry/CreateRepo', { parentId: platform, repo: { name } }, ['POST', `/registry/v1/repos/${platform}`, { name }]);
    t.is(again.body.id, made.body.id);
    const tag = await v1('registry.Registry/CreateTag', { repoId: made.body.id, tag: { name: 'latest' } }, ['POST', `/registry/v1/tags/${made.body.id}`, { name: 'latest' }]);
    t.is(tag.code, 0, tag.message);
    const updated = await v1('registry.Registry/UpdateTag', { id: tag.body.id, name: 'latest', deprecated: true, bundles: ['x'] }, ['PUT', `/registry/v1/tags/${tag.body.id}`, { name: 'latest', deprecated: true, bundles: ['x'] }]);
    t.like(updated.body, { id: tag.body.id, deprecated: true, bundles: ['x'] });
    const listed = await v1('registry.Registry/ListTags', { id: tag.body.id }, ['GET', `/registry/v1/tags?id=${tag.body.id}`]);
    t.deepEqual(listed.body.items.map((x: Any) => x.id), [tag.body.id]);
    t.is((await v1('registry.Registry/DeleteTag', { id: tag.body.id }, ['DELETE', `/registry/v1/tags/${tag.body.id}`])).code, 0);
    t.is((await v1('registry.Registry/DeleteRepo', { id: made.body.id }, ['DELETE', `/registry/v1/repos/${made.body.id}`])).code, 0);
    t.is((await srv.call('GET', `/registry/v2/repos/${made.body.id}`)).status, 404);
    t.is((await srv.ok('GET', `/registry/v2/repos?uidp.descendants_of=${org}`)).repos.length, v2repos.length);
  });

  test(`${via}: advisories list as v2's; vulnerability reports and advisory writes answer 501 naming the v2 advisories`, async (t) => {
    const v1 = clientFor(srv, via);
    const v2 = (await srv.ok('GET', '/vulnerabilities/v2/advisories?artifactNames=nginx')).advisories;
    const listed = await v1('vulnerabilities.v1.Advisories/List', { artifactName: ['nginx'] }, ['GET', '/vulnerabilities/v1/advisories?artifact_name=nginx']);
    t.is(listed.code, 0, listed.message);
    t.deepEqual(listed.body.items.map((a: Any) => [a.id, a.advisoryId, a.artifactName]).sort(), v2.map((a: Any) => [a.uid, a.advisoryId, a.artifactName]).sort());
    t.is(listed.body.totalCount, '2');
    const page = await v1('vulnerabilities.v1.Advisories/List', { pageSize: '1', orderBy: 'ID_ASC' }, ['GET', '/vulnerabilities/v1/advisories?page_size=1&order_by=ID_ASC']);
    t.is(page.body.items.length, 1);
    t.truthy(page.body.nextPageToken);
    const byId = await v1('vulnerabilities.v1.Advisories/List', { advisoryIds: ['CGA-2026-0003'] }, ['GET', '/vulnerabilities/v1/advisories?advisory_ids=CGA-2026-0003']);
    t.deepEqual(byId.body.items.map((a: Any) => a.artifactName), ['envoy']);

    const uid = v2[0].uid;
    const calls: [string, Any, [string, string, unknown?]][] = [
      ['vulnerabilities.v1.Advisories/Create', { parentId: org, advisory: { advisoryId: 'X' } }, ['POST', '/vulnerabilities/v1/advisories', { parent_id: org, advisory: { advisoryId: 'X' } }]],
      ['vulnerabilities.v1.Advisories/Update', { id: uid, advisoryId: 'X' }, ['PUT', `/vulnerabilities/v1/advisories/${uid}`, { advisoryId: 'X' }]],
      ['vulnerabilities.v1.Advisories/Delete', { id: uid }, ['DELETE', `/vulnerabilities/v1/advisories/${uid}`]],
      ['vulnerabilities.v1.Advisories/CreateAdvisoryEvent', { parentId: uid, advisoryEvent: {} }, ['POST', `/vulnerabilities/v1/advisories/${uid}/events`, {}]],
      ['vulnerabilities.v1.Advisories/ListAdvisoryEvents', { parentId: uid }, ['GET', `/vulnerabilities/v1/advisories/${uid}/events`]],
      ['vulnerabilities.v1.Advisories/UpdateAdvisoryEvent', { id: `${uid}/0123456789abcdef` }, ['PUT', `/vulnerabilities/v1/advisory_events/${uid}/0123456789abcdef`, {}]],
      ['registry.Vulnerabilities/ListVulnReports', { repoId: platform }, ['GET', `/registry/v1/vuln_reports?repo_id=${platform}`]],
      ['registry.Vulnerabilities/GetRawVulnReport', { digest: hex('a') }, ['GET', `/registry/v1/vuln_reports/raw?digest=${hex('a')}`]],
      ['registry.Vulnerabilities/ListVulnCountReports', { repo: 'nginx' }, ['GET', '/registry/v1/vuln_reports/counts?repo=nginx']],
      ['registry.Vulnerabilities/ListCumulativeVulnCountReports', { repo: 'nginx' }, ['GET', '/registry/v1/vuln_reports/counts_cumulative?repo=nginx']],
      ['registry.Registry/GetVulnReport', { repoId: platform, digest: hex('a') }, ['GET', `/registry/v1/repos/${platform}/digests/${hex('a')}/vulnreport`]],
    ];
    for (const [rpc, message, rest] of calls) {
      const a = await v1(rpc, message, rest);
      t.is(a.code, 12, rpc);
      if (via === 'rest') t.is(a.status, 501, rpc);
      t.regex(a.message, /\/vulnerabilities\/v2\/advisories/, rpc);
      assertDeprecated(t, a, /<\/vulnerabilities\/v2\/advisories[^>]*>/);
    }
    t.is((await srv.ok('GET', '/vulnerabilities/v2/advisories')).advisories.length, 3);
  });

  test(`${via}: group lookups, access requests and eligibility have no source: 501 naming v2's groups`, async (t) => {
    const v1 = clientFor(srv, via);
    for (const [rpc, message, rest] of [
      ['iam.Groups/LookupGroup', {}, ['GET', '/iam/v1/groups:lookupGroup']],
      ['iam.Groups/CheckEligibility', {}, ['GET', '/iam/v1/groups:checkEligibility']],
      ['iam.Groups/RequestGroupAccess', { groupId: org }, ['POST', `/iam/v1/groups/${org}:requestGroupAccess`, {}]],
    ] as [string, Any, [string, string, unknown?]][]) {
      const a = await v1(rpc, message, rest);
      t.is(a.code, 12, rpc);
      t.regex(a.message, /\/iam\/v2\/group/, rpc);
      assertDeprecated(t, a, '/iam/v2/groups');
    }
  });

  test(`${via}: authorization is v2's: a viewer lists over v1 and cannot create`, async (t) => {
    const viewer = await srv.person(`viewer-${via}`, 'viewer', platform);
    const v1 = clientFor(srv, via, viewer.token);
    const listed = await v1('iam.Groups/List', {}, ['GET', '/iam/v1/groups']);
    const ids: string[] = listed.body.items.map((g: Any) => g.id);
    t.true(ids.includes(platform));
    t.true(ids.every((id) => id === platform || id.startsWith(`${platform}/`)), 'nothing outside the viewer\'s group');
    const denied = await v1('iam.Groups/Create', { parent: platform, group: { name: 'nope' } }, ['POST', `/iam/v1/groups/${platform}`, { name: 'nope' }]);
    t.is(denied.code, 7);
    assertDeprecated(t, denied, '/iam/v2/groups');
    const anonymous = await clientFor(srv, via, 'not-a-token')('iam.Groups/List', {}, ['GET', '/iam/v1/groups']);
    t.is(anonymous.code, 16);
    assertDeprecated(t, anonymous, '/iam/v2/groups');
    await srv.ok('DELETE', `/iam/v2/roleBindings/${(await srv.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${platform}`)).roleBindings.find((b: Any) => b.identity.uid === viewer.id.uid).uid}`);
    await srv.ok('DELETE', `/iam/v2/identities/${viewer.id.uid}`);
  });
}

test('a v1 path serve has no call for is a 404 that says so, marked like every v1 answer; v2 answers carry no mark', async (t) => {
  const a = await srv.call('GET', '/registry/v1/sboms');
  t.is(a.status, 404);
  t.regex(a.json.message, /No such v1 route.*docs\/v1\.md/);
  t.is(a.headers.get('link'), '</registry/v2/>; rel="successor-version"');
  t.truthy(a.headers.get('deprecation'));
  const wrongMethod = await srv.call('GET', `/iam/v1/groups/${org}`);
  t.is(wrongMethod.status, 405);
  t.is(wrongMethod.headers.get('allow'), 'POST, PUT, DELETE');
  const v2 = await srv.call('GET', G);
  t.is(v2.status, 200);
  t.is(v2.headers.get('deprecation'), null);
  t.is(v2.headers.get('link'), null);
});

test('without --v1-sunset no Sunset is sent; with --v1 off every v1 call is 410 Gone (UNIMPLEMENTED over gRPC) and v2 is untouched', async (t) => {
  const plain = await startTestServer();
  t.teardown(() => plain.dispose());
  const a = await plain.call('GET', '/iam/v1/groups');
  t.is(a.status, 200);
  t.truthy(a.headers.get('deprecation'));
  t.is(a.headers.get('sunset'), null);

  const off = await startTestServer({ v1: { enabled: false, sunset: new Date('2026-12-31') } });
  t.teardown(() => off.dispose());
  for (const via of VIAS) {
    const v1 = clientFor(off, via);
    const gone = await v1('iam.Groups/Create', { parent: off.organizationUid, group: { name: 'late' } }, ['POST', `/iam/v1/groups/${off.organizationUid}`, { name: 'late' }]);
    t.is(gone.code, 12, via);
    if (via === 'rest') t.is(gone.status, 410);
    t.regex(gone.message, /v1 API is retired.*POST \/iam\/v2\/groups/);
    t.is(gone.header('sunset'), 'Thu, 31 Dec 2026 00:00:00 GMT');
    t.is(gone.header('link'), '</iam/v2/groups>; rel="successor-version"');
  }
  t.is((await off.call('GET', '/registry/v1/eoltags')).status, 410);
  t.deepEqual((await off.ok('GET', `${G}?name=late`)).groups, []);
});

test('rate limits and injected faults apply to v1 as to v2, and their answers are marked too', async (t) => {
  const limited = await startTestServer({ rateLimit: { limit: 1, windowSeconds: 3600, burst: 1 }, faults: [{ method: 'GET', path: '/registry/v1/*', effect: 'error', code: 14 }] });
  t.teardown(() => limited.dispose());
  const fault = await limited.call('GET', '/registry/v1/repos');
  t.is(fault.status, 503, 'the fault answers');
  t.truthy(fault.headers.get('deprecation'));
  t.is((await limited.call('GET', '/iam/v1/groups')).status, 200);
  const over = await limited.call('GET', '/iam/v1/groups');
  t.is(over.status, 429);
  t.truthy(over.headers.get('deprecation'));
  t.is(over.headers.get('link'), '</iam/v2/groups>; rel="successor-version"');
});

test('pctl serve v1-callers lists who still calls v1, by caller and call, with the v2 call to use instead; pctl api calls v1 paths', async (t) => {
  const reporting = await startTestServer();
  const pctl = cli({ PCTL_API_URL: reporting.url, PCTL_TOKEN: reporting.ownerToken, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  t.teardown(async () => {
    await closeAgent();
    await reporting.dispose();
  });
  const script = await reporting.person('legacy-script', 'viewer', reporting.organizationUid);
  for (let i = 0; i < 3; i++) t.is((await script.as('GET', '/iam/v1/groups')).status, 200);
  t.is((await clientFor(reporting, 'grpc', script.token)('iam.Identities/List', {}, ['GET', '/iam/v1/identities'])).code, 0);
  await reporting.call('GET', '/iam/v2/groups'); // v2 calls are not counted
  const api = await pctl(['api', `/iam/v1/groups?uidp.in_root=true`]);
  t.is(api.code, 0, api.stderr);
  t.deepEqual(JSON.parse(api.stdout).items.map((g: Any) => g.id), [reporting.organizationUid]);

  const json = await pctl(['serve', 'v1-callers', '-o', 'json']);
  t.is(json.code, 0, json.stderr);
  const rows = JSON.parse(json.stdout);
  t.like(rows[0], { identity: script.id.uid, name: 'legacy-script', call: 'chainguard.platform.iam.Groups/List', count: 3, successor: 'GET /iam/v2/groups' });
  t.true(rows.some((r: Any) => r.identity === script.id.uid && r.call === 'chainguard.platform.iam.Identities/List' && r.count === 1 && r.successor === 'GET /iam/v2/identities'));
  t.true(rows.some((r: Any) => r.identity === reporting.ownerIdentityUid && r.call === 'chainguard.platform.iam.Groups/List' && r.count === 1));
  t.false(rows.some((r: Any) => r.call.includes('/v2/')));
  const table = await pctl(['serve', 'v1-callers', '-o', 'table']);
  t.regex(table.stdout, /CALLER\s+IDENTITY\s+V1 CALL\s+COUNT\s+LAST\s+USE INSTEAD/);
  t.regex(table.stdout, /legacy-script.*chainguard\.platform\.iam\.Groups\/List\s+3\s.*GET \/iam\/v2\/groups/);
  t.regex(table.stderr, /From the journal's last \d+ requests/);
});
