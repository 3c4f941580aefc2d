// The vendor's annotations are serve's rules (src/api/registry/published-rules.ts, from proto/): for
// each method whose rule changed when they became so (docs/grpc.md, "Authorization: the
// published rules"), a caller whose role holds the published capabilities is answered, and
// one holding serve's former rule gets PERMISSION_DENIED, over REST and over gRPC (Connect's
// gRPC client generated from the published files).
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { RoleBindingsService } from '../src/gen/chainguard/platform/iam/v2/role_bindings_pb.js';
import { IdentitiesService } from '../src/gen/chainguard/platform/iam/v2/identities_pb.js';
import { ReposService } from '../src/gen/chainguard/platform/registry/v2/repos_pb.js';
import { ArtifactsService, Ecosystem } from '../src/gen/chainguard/platform/libraries/v2/artifacts_pb.js';
import { PUBLISHED_RULES } from '../src/api/registry/published-rules.js';
import { demoSeed } from '../src/server/data/demo.js';
import { startTestServer, storeUnderTest, tempDir, type TestServer } from './helpers/serve.js';

let srv: TestServer;
let n = 0;
test.before(async () => {
  srv = await startTestServer({ seed: demoSeed() });
});
test.after.always(() => srv?.dispose());

const grpc = () => createGrpcTransport({ baseUrl: srv.url });
const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** An identity bound on the organization to a custom role of exactly `capabilities`. */
async function holder(capabilities: string[]) {
  const name = `rule-${++n}`;
  await srv.ok('POST', '/iam/v2/roles', { parent: srv.organizationUid, role: { name, capabilities } });
  return srv.person(name, name, srv.organizationUid);
}

async function grpcCode(p: Promise<unknown>): Promise<Code | 'OK'> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

test('the rules the tests below rely on are the published ones', (t) => {
  t.deepEqual(PUBLISHED_RULES['chainguard.platform.iam.v2.RoleBindingsService/UpdateRoleBinding']?.capabilities, ['role_bindings.update']);
  t.deepEqual(PUBLISHED_RULES['chainguard.platform.iam.v2.IdentitiesService/LookupIdentity']?.capabilities, []);
  t.deepEqual(PUBLISHED_RULES['chainguard.platform.registry.v2.ReposService/UpdateRepoReadme']?.capabilities, ['repo.update', 'repo.internal.admin']);
  t.deepEqual(PUBLISHED_RULES['chainguard.platform.libraries.v2.ArtifactsService/ListArtifacts']?.capabilities, ['libraries.artifacts.list']);
  t.is(PUBLISHED_RULES['chainguard.platform.iam.v2.RoleBindingsService/BatchCreateRoleBindings']?.event, 'dev.chainguard.api.iam.rolebindings.created.batch.v1');
});

// UpdateRoleBinding: role_bindings.update on the binding (serve's former rule: role_bindings.delete
// and role_bindings.create). roles.list too: the new role must be one the caller can see.
for (const surface of ['REST', 'gRPC'] as const) {
  test.serial(`UpdateRoleBinding over ${surface}: role_bindings.update allows it, the former delete+create rule is denied`, async (t) => {
    const from = (await srv.ok('POST', '/iam/v2/roles', { parent: srv.organizationUid, role: { name: `from-${++n}`, capabilities: ['roles.list'] } })).uid as string;
    const to = (await srv.ok('POST', '/iam/v2/roles', { parent: srv.organizationUid, role: { name: `to-${++n}`, capabilities: ['roles.list'] } })).uid as string;
    const update = async (who: Awaited<ReturnType<typeof holder>>) => {
      // A binding of the caller itself (an identity it may name), moved from one role to another it holds.
      const binding = await srv.ok('POST', '/iam/v2/roleBindings', { parent: srv.organizationUid, roleBinding: { identityUid: who.id.uid, roleUid: from } });
      if (surface === 'REST') {
        const res = await who.as('PATCH', `/iam/v2/roleBindings/${binding.uid}?update_mask=role_uid`, { roleUid: to });
        return { code: res.status === 200 ? 'OK' : res.status, uid: binding.uid as string };
      }
      const client = createClient(RoleBindingsService, grpc());
      const code = await grpcCode(client.updateRoleBinding({ roleBinding: { uid: binding.uid, roleUid: to }, updateMask: { paths: ['role_uid'] } }, auth(who.token)));
      return { code, uid: binding.uid as string };
    };
    const allowed = await update(await holder(['role_bindings.update', 'roles.list']));
    t.is(allowed.code, 'OK');
    t.is((await srv.ok('GET', `/iam/v2/roleBindings/${allowed.uid}`)).role.uid, to, 'changed in place');
    const denied = await update(await holder(['role_bindings.create', 'role_bindings.delete', 'roles.list']));
    t.is(denied.code, surface === 'REST' ? 403 : Code.PermissionDenied);
    t.is((await srv.ok('GET', `/iam/v2/roleBindings/${denied.uid}`)).role.uid, from, 'a refusal changes nothing');
  });
}

// LookupIdentity: any authenticated caller (serve's former rule: identity.list on the identity).
test.serial('LookupIdentity over REST and gRPC: a caller with no role at all is answered', async (t) => {
  const issuer = (await srv.ok('GET', `/iam/v2/identities/${srv.ownerIdentityUid}`)).claimMatch.issuer as string;
  const nobody = await holder(['advisories.list']);
  const rest = await nobody.as('GET', `/iam/v2/identities:lookupIdentity?issuer=${encodeURIComponent(issuer)}&subject=owner`);
  t.is(rest.status, 200, rest.text);
  t.is(rest.json.uid, srv.ownerIdentityUid);
  const client = createClient(IdentitiesService, grpc());
  t.is((await client.lookupIdentity({ issuer, subject: 'owner' }, auth(nobody.token))).uid, srv.ownerIdentityUid);
  t.is(await grpcCode(client.lookupIdentity({ issuer, subject: 'nobody-at-all' }, auth(nobody.token))), Code.NotFound);
  t.is(await grpcCode(client.lookupIdentity({ issuer, subject: 'owner' })), Code.Unauthenticated, 'a token is still needed');
});

// UpdateRepoReadme: repo.update and repo.internal.admin, which the vendor marks internal only: no
// customer role may hold it, so even the owner is denied (serve's former rule: repo.update).
test.serial('UpdateRepoReadme: the owner (repo.update) is denied, and no role can be given repo.internal.admin', async (t) => {
  const repo = (await srv.ok('GET', '/registry/v2/repos?page_size=1')).repos[0];
  const client = createClient(ReposService, grpc());
  const before = (await client.getRepoReadme({ uid: repo.uid }, auth(srv.ownerToken))).content;
  const err = await t.throwsAsync(client.updateRepoReadme({ repoReadme: { uid: repo.uid, content: `${before}# hello` } }, auth(srv.ownerToken)));
  t.is(ConnectError.from(err).code, Code.PermissionDenied);
  t.regex(ConnectError.from(err).rawMessage, /repo\.internal\.admin/);
  t.is((await client.getRepoReadme({ uid: repo.uid }, auth(srv.ownerToken))).content, before, 'a refusal changes nothing');
  const role = await srv.call('POST', '/iam/v2/roles', { parent: srv.organizationUid, role: { name: 'internal', capabilities: ['repo.internal.admin'] } });
  t.is(role.status, 400);
  t.regex(role.text, /repo\.internal\.admin.*is not a known capability/);
});

// ListArtifacts: libraries.artifacts.list (serve's former rule: libraries.list, no longer a capability).
test.serial('ListArtifacts over REST and gRPC: libraries.artifacts.list allows it, another capability is denied', async (t) => {
  const allowed = await holder(['libraries.artifacts.list']);
  const other = await holder(['advisories.list']);
  t.is((await allowed.as('GET', '/libraries/v2/artifacts?ecosystems=JAVA')).status, 200);
  const denied = await other.as('GET', '/libraries/v2/artifacts?ecosystems=JAVA');
  t.is(denied.status, 403);
  t.regex(denied.json.message, /libraries\.artifacts\.list/);
  const client = createClient(ArtifactsService, grpc());
  t.true((await client.listArtifacts({ ecosystems: [Ecosystem.JAVA] }, auth(allowed.token))).artifacts.length > 0);
  t.is(await grpcCode(client.listArtifacts({ ecosystems: [Ecosystem.JAVA] }, auth(other.token))), Code.PermissionDenied);
  t.is((await srv.call('POST', '/iam/v2/roles', { parent: srv.organizationUid, role: { name: 'old-libraries', capabilities: ['libraries.list'] } })).status, 400);
});

// BatchCreateRoleBindings: all or none, and one event of the published batch type.
test.serial('BatchCreateRoleBindings is atomic and makes one event of its published type', async (t) => {
  const viewer = await srv.roleUid('viewer');
  const a = await srv.person(`batch-a-${++n}`, 'viewer', srv.organizationUid);
  const b = await srv.person(`batch-b-${++n}`, 'viewer', srv.organizationUid);
  const group = (await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: `batch-${n}` } })).uid as string;
  const client = createClient(RoleBindingsService, grpc());
  const owner = auth(srv.ownerToken);
  const failed = await grpcCode(client.batchCreateRoleBindings({ parent: group, roleUid: viewer, requests: [{ roleBinding: { identityUid: a.id.uid } }, { roleBinding: { identityUid: 'no-such-identity' } }] }, owner));
  t.is(failed, Code.NotFound);
  t.is((await srv.ok('GET', `/iam/v2/roleBindings?uidp.children_of=${group}`)).roleBindings.length, 0, 'none made');
  let after = 0;
  for (let page = (await srv.ok('GET', '/_pctl/events?after=0&limit=500')).events; page.length; page = (await srv.ok('GET', `/_pctl/events?after=${after}&limit=500`)).events) after = page.at(-1).seq;
  const made = await client.batchCreateRoleBindings({ parent: group, roleUid: viewer, requests: [{ roleBinding: { identityUid: a.id.uid } }, { roleBinding: { identityUid: b.id.uid } }] }, owner);
  t.is(made.roleBindings.length, 2);
  const events = (await srv.ok('GET', `/_pctl/events?after=${after}&limit=100`)).events;
  t.deepEqual(events.map((e: { type: string }) => e.type), ['dev.chainguard.api.iam.rolebindings.created.batch.v1']);
  t.is(events[0].subject, group);
  t.deepEqual(events[0].data.body.roleBindings.map((r: { uid: string }) => r.uid), made.roleBindings.map((r) => r.uid));
});

// A data dir an older serve made keeps the built-in roles it stored then: at start they take the
// capabilities this serve declares (the published names: libraries.artifacts.list, role_bindings.update).
// Only on SQLite: it restarts serve on the same data dir.
if (storeUnderTest === 'sqlite') {
  test('built-in roles of an older data dir take the published capabilities at start', async (t) => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const owner = first.store.get(await first.roleUid('owner'), 'role')!;
    const former = owner.data.capabilities.filter((c) => c !== 'role_bindings.update').map((c) => (c === 'libraries.artifacts.list' ? 'libraries.list' : c));
    await first.store.write(() => first.store.update({ ...owner, data: { ...owner.data, capabilities: former } }));
    await first.close();
    const again = await startTestServer({ dataDir });
    t.teardown(() => again.dispose());
    const caps = (await again.ok('GET', '/iam/v2/roles?name=owner')).roles[0].capabilities as string[];
    t.true(caps.includes('libraries.artifacts.list') && caps.includes('role_bindings.update'));
    t.false(caps.includes('libraries.list'));
    t.is((await again.call('GET', '/libraries/v2/artifacts?ecosystems=JAVA')).status, 200, 'the owner reads the catalogue again');
  });
}
