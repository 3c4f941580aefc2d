// serve over gRPC, driven by a client nobody here wrote: @grpc/grpc-js with @grpc/proto-loader
// loading the vendor's published IAM files (proto/chainguard/platform/iam/v2/) as published.
// Every standard method of every IAM service is called and compared with what REST answers
// for the same state; errors carry the AIP-193 code and details in grpc-status-details-bin;
// the token travels in `authorization` metadata; page tokens and creates cross between the two
// protocols; reflection lists the vendor's services (and no other v2 contract). The registry,
// catalogue and events services: test/grpc-vendor-catalogue.test.ts.
import test from 'ava';
import { join } from 'node:path';
import grpc from '@grpc/grpc-js';
import loader from '@grpc/proto-loader';
import { createRegistry, fromBinary, toJson } from '@bufbuild/protobuf';
import { anyUnpack, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import http2 from 'node:http2';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { StatusSchema } from '../src/gen/google/rpc/status_pb.js';
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema } from '../src/gen/google/rpc/error_details_pb.js';
import { demoSeed } from '../src/server/data/demo.js';
import { MAX_BODY_BYTES } from '../src/server/pipeline/dispatch.js';
import { Capability } from '../src/gen/capabilities/capabilities_pb.js';
import { GroupSchema, GroupsService as PublishedGroups, ListGroupsResponseSchema } from '../src/gen/chainguard/platform/iam/v2/groups_pb.js';
import { RolesService as PublishedRoles } from '../src/gen/chainguard/platform/iam/v2/roles_pb.js';
import { GroupsService as PublishedGroupsBeta } from '../src/gen/chainguard/platform/iam/v2beta1/groups_pb.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

const root = join(import.meta.dirname, '..');
const IAM_FILES = ['groups', 'identities', 'roles', 'role_bindings', 'identity_providers', 'group_invites', 'account_associations'];
const PROTO_FILES = [
  ...IAM_FILES.map((f) => `chainguard/platform/iam/v2/${f}.proto`), 'google/rpc/status.proto', 'google/rpc/error_details.proto',
  'grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto',
];
const definitions = loader.loadSync(PROTO_FILES, { includeDirs: [join(root, 'proto')], longs: String, enums: String, defaults: false });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- grpc-js builds the service constructors at run time from proto/: no static types
const pkg = grpc.loadPackageDefinition(definitions) as any;
const IAM = pkg.chainguard.platform.iam.v2;
const SERVICES = {
  groups: IAM.GroupsService,
  identities: IAM.IdentitiesService,
  roles: IAM.RolesService,
  roleBindings: IAM.RoleBindingsService,
  identityProviders: IAM.IdentityProvidersService,
  groupInvites: IAM.GroupInvitesService,
  accountAssociations: IAM.AccountAssociationsService,
} as const;
type ServiceName = keyof typeof SERVICES;

/**
 * The standard methods (Get, List, Create, Update, Delete) of every IAM service, as
 * `Service/Method`: each is called below. UpdateIdentityMetadata updates no resource of serve's
 * (its profile fields): it answers UNIMPLEMENTED naming UpdateIdentity.
 */
const STANDARD_RPCS = Object.values(SERVICES).flatMap((ctor) => Object.values(ctor.service as Record<string, { path: string }>).map((m) => m.path))
  .filter((path) => /\/(Get|List|Create|Update|Delete)[A-Z]/.test(path) && !path.endsWith('/UpdateIdentityMetadata'));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the messages grpc-js decodes are untyped objects
type Any = any;

interface RpcError extends Error {
  code: number;
  details: string;
  metadata: grpc.Metadata;
}

interface Harness {
  srv: TestServer;
  org: string;
  /** Calls Service/Method with the owner's token (or `token`; '' for none). */
  rpc: (service: ServiceName, method: string, request: Any, token?: string) => Promise<Any>;
  called: Set<string>;
  close(): void;
}

async function harness(): Promise<Harness> {
  const srv = await startTestServer({ seed: demoSeed() });
  const address = srv.url.replace('http://', '');
  const clients = Object.fromEntries(Object.entries(SERVICES).map(([name, ctor]) => [name, new ctor(address, grpc.credentials.createInsecure())]));
  const called = new Set<string>();
  const rpc = (service: ServiceName, method: string, request: Any, token = srv.ownerToken) => {
    called.add(SERVICES[service].service[method]?.path);
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    return new Promise<Any>((resolve, reject) => {
      const client = clients[service];
      if (typeof client[method] !== 'function') throw new Error(`no RPC ${service}/${method} in proto/`);
      client[method](request, metadata, { deadline: Date.now() + 20_000 }, (err: RpcError | null, res: Any) => (err ? reject(err) : resolve(res)));
    });
  };
  return { srv, org: srv.organizationUid, rpc, called, close: () => Object.values(clients).forEach((c) => c.close()) };
}

/**
 * A grpc-js object and a REST JSON value in one comparable form: Timestamps as RFC 3339,
 * Structs as plain objects, scalars as strings, and empty values (proto3 leaves them off the
 * wire) dropped on both sides.
 */
function normalize(value: Any): Any {
  if (Array.isArray(value)) {
    const out = value.map(normalize).filter((v) => v !== undefined);
    return out.length ? out : undefined;
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.includes('seconds') && keys.every((k) => k === 'seconds' || k === 'nanos')) {
      return new Date(Number(value.seconds) * 1000 + Math.round((value.nanos ?? 0) / 1e6)).toISOString();
    }
    if (keys.length === 1 && keys[0] === 'fields' && value.fields && typeof value.fields === 'object') return normalize(structToJson(value));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const n = normalize(v);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (value === undefined || value === null || value === '' || value === false || value === 0 || value === '0') return undefined;
  return typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value).toISOString() : String(value);
}

function structToJson(struct: Any): Any {
  const valueOf = (v: Any): Any =>
    v.structValue ? structToJson(v.structValue) : v.listValue ? (v.listValue.values ?? []).map(valueOf) : v.stringValue ?? v.numberValue ?? v.boolValue ?? null;
  return Object.fromEntries(Object.entries(struct.fields ?? {}).map(([k, v]) => [k, valueOf(v)]));
}

/** The google.rpc.Status of a failed call, decoded from grpc-status-details-bin, with its details by type name. */
function statusDetails(err: RpcError): { code: number; message: string; details: Record<string, Any> } {
  const [bin] = err.metadata.get('grpc-status-details-bin') as Buffer[];
  if (!bin) throw new Error(`no grpc-status-details-bin on ${err.code} ${err.details}`);
  const status = fromBinary(StatusSchema, bin);
  const registry = createRegistry(ErrorInfoSchema, BadRequestSchema, PreconditionFailureSchema);
  const details: Record<string, Any> = {};
  for (const any of status.details) {
    const message = anyUnpack(any, registry);
    if (message) details[message.$typeName.replace('google.rpc.', '')] = message;
  }
  return { code: status.code, message: status.message, details };
}

// Serial: the tests share one server, and the first compares whole listings with REST.
let h: Harness;
test.before(async () => {
  h = await harness();
});
test.after.always(async () => {
  h.close();
  await h.srv.dispose();
});

test.serial('every standard method of every published IAM service answers over gRPC what REST answers', async (t) => {
  const { rpc, srv, org } = h;
  const rest = (path: string) => srv.ok('GET', path);
  /** The fields both protocols carry alike (the published messages hold some in other shapes: enums, capabilities). */
  const same = (grpcValue: Any, restValue: Any, fields: readonly string[], what: string) => {
    const pick = (v: Any) => normalize(Object.fromEntries(fields.map((f) => [f, v?.[f]])));
    t.deepEqual(pick(grpcValue), pick(restValue), what);
  };
  const COMMON = ['uid', 'name', 'description', 'createTime', 'updateTime'];
  /** A list's items, by uid and name, and whether there is a next page, on both sides. */
  const sameList = (grpcPage: Any, restPage: Any, items: string, what: string) => {
    const ids = (page: Any) => (page?.[items] ?? []).map((i: Any) => `${i.uid} ${i.name ?? ''}`);
    t.deepEqual(ids(grpcPage), ids(restPage), what);
    t.is(Boolean(grpcPage.nextPageToken), Boolean(restPage.nextPageToken), `${what}: a next page on both or neither`);
  };
  const g = (uid: string) => encodeURIComponent(uid);

  // Resource by resource: create over gRPC, see it over REST, get, update, list, delete.
  const group = await rpc('groups', 'CreateGroup', { parent: org, group: { name: 'grpc-team', description: 'made over gRPC' } });
  same(group, await rest(`/iam/v2/groups/${g(group.uid)}`), COMMON, 'CreateGroup');
  same(await rpc('groups', 'GetGroup', { uid: group.uid }), await rest(`/iam/v2/groups/${g(group.uid)}`), [...COMMON, 'verified'], 'GetGroup');
  const renamed = await rpc('groups', 'UpdateGroup', { group: { uid: group.uid, description: 'changed' }, updateMask: { paths: ['description'] } });
  t.is(renamed.description, 'changed');
  t.is((await rest(`/iam/v2/groups/${g(group.uid)}`)).description, 'changed');
  sameList(await rpc('groups', 'ListGroups', { pageSize: 3, uidp: { descendantsOf: org }, orderBy: 'name' }), await rest(`/iam/v2/groups?page_size=3&uidp.descendants_of=${g(org)}&order_by=name`), 'groups', 'ListGroups');

  const issuer = (await rest(`/iam/v2/identities/${g(srv.ownerIdentityUid)}`)).claimMatch.issuer;
  const identity = await rpc('identities', 'CreateIdentity', { parent: org, identity: { name: 'grpc-bot', claimMatch: { issuer, subject: 'grpc-bot' } } });
  t.like(await rest(`/iam/v2/identities/${g(identity.uid)}`), { name: 'grpc-bot', claimMatch: { issuer, subject: 'grpc-bot' } });
  same(await rpc('identities', 'GetIdentity', { uid: identity.uid }), await rest(`/iam/v2/identities/${g(identity.uid)}`), [...COMMON, 'claimMatch'], 'GetIdentity');
  t.is((await rpc('identities', 'UpdateIdentity', { identity: { uid: identity.uid, description: 'robot' }, updateMask: { paths: ['description'] } })).description, 'robot');
  sameList(await rpc('identities', 'ListIdentities', { pageSize: 2, name: 'grpc-bot' }), await rest('/iam/v2/identities?page_size=2&name=grpc-bot'), 'identities', 'ListIdentities');

  const role = await rpc('roles', 'CreateRole', { parent: org, role: { name: 'grpc-reader', capabilities: ['CAP_IAM_GROUPS_LIST'] } });
  t.deepEqual((await rest(`/iam/v2/roles/${g(role.uid)}`)).capabilities, ['groups.list'], 'the published Capability is serve\'s capability name over REST');
  same(await rpc('roles', 'GetRole', { uid: role.uid }), await rest(`/iam/v2/roles/${g(role.uid)}`), COMMON, 'GetRole');
  t.is((await rpc('roles', 'UpdateRole', { role: { uid: role.uid, description: 'reads groups' }, updateMask: { paths: ['description'] } })).description, 'reads groups');
  sameList(await rpc('roles', 'ListRoles', { pageSize: 50 }), await rest('/iam/v2/roles?page_size=50'), 'roles', 'ListRoles');

  const viewer = (await rest('/iam/v2/roles?name=viewer')).roles[0].uid;
  const binding = await rpc('roleBindings', 'CreateRoleBinding', { parent: group.uid, roleBinding: { identityUid: identity.uid, roleUid: role.uid } });
  t.like(binding, { identityUid: identity.uid, roleUid: role.uid });
  t.like(await rest(`/iam/v2/roleBindings/${g(binding.uid)}`), { identity: { uid: identity.uid }, role: { uid: role.uid } });
  same(await rpc('roleBindings', 'GetRoleBinding', { uid: binding.uid }), await rest(`/iam/v2/roleBindings/${g(binding.uid)}`), ['uid', 'createTime'], 'GetRoleBinding');
  t.like(await rpc('roleBindings', 'UpdateRoleBinding', { roleBinding: { uid: binding.uid, identityUid: identity.uid, roleUid: viewer }, updateMask: { paths: ['role_uid'] } }), { uid: binding.uid, roleUid: viewer });
  sameList(await rpc('roleBindings', 'ListRoleBindings', { uidp: { childrenOf: group.uid } }), await rest(`/iam/v2/roleBindings?uidp.children_of=${g(group.uid)}`), 'roleBindings', 'ListRoleBindings');

  const idp = await rpc('identityProviders', 'CreateIdentityProvider', {
    parent: org, identityProvider: { name: 'okta', defaultRole: viewer, oidc: { issuer: 'https://acme.okta.example', clientId: 'app', clientSecret: 's3cret', additionalScopes: ['email'] } },
  });
  t.falsy(idp.oidc.clientSecret, 'the client secret is write-only over gRPC too');
  t.is(idp.oidc.correlationRule, 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID');
  same(await rpc('identityProviders', 'GetIdentityProvider', { uid: idp.uid }), await rest(`/iam/v2/identityProviders/${g(idp.uid)}`), [...COMMON, 'defaultRole'], 'GetIdentityProvider');
  t.is((await rpc('identityProviders', 'UpdateIdentityProvider', { identityProvider: { uid: idp.uid, description: 'sso' }, updateMask: { paths: ['description'] } })).description, 'sso');
  sameList(await rpc('identityProviders', 'ListIdentityProviders', {}), await rest('/iam/v2/identityProviders'), 'identityProviders', 'ListIdentityProviders');

  const invite = await rpc('groupInvites', 'CreateGroupInvite', { parent: group.uid, groupInvite: { roleUid: viewer, ttl: { seconds: '3600' } } });
  t.regex(invite.code, /.{16,}/, 'the create answer holds the code');
  same(await rpc('groupInvites', 'GetGroupInvite', { uid: invite.uid }), await rest(`/iam/v2/groupInvites/${g(invite.uid)}`), ['uid', 'keyId', 'expirationTime'], 'GetGroupInvite');
  sameList(await rpc('groupInvites', 'ListGroupInvites', { keyId: invite.keyId }), await rest(`/iam/v2/groupInvites?key_id=${invite.keyId}`), 'groupInvites', 'ListGroupInvites');

  const association = await rpc('accountAssociations', 'CreateAccountAssociation', { parent: group.uid, accountAssociation: { name: 'aws', amazon: { account: '123456789012' } } });
  same(await rpc('accountAssociations', 'GetAccountAssociation', { uid: association.uid }), await rest(`/iam/v2/accountAssociations/${g(association.uid)}`), [...COMMON, 'amazon'], 'GetAccountAssociation');
  t.is((await rpc('accountAssociations', 'UpdateAccountAssociation', { accountAssociation: { uid: association.uid, description: 'prod' }, updateMask: { paths: ['description'] } })).description, 'prod');
  sameList(await rpc('accountAssociations', 'ListAccountAssociations', {}), await rest('/iam/v2/accountAssociations'), 'accountAssociations', 'ListAccountAssociations');
  const check = await rpc('accountAssociations', 'CheckAccountAssociation', { uid: association.uid, providerType: 'ACCOUNT_PROVIDER_TYPE_AMAZON' });
  const restCheck = await srv.ok('POST', `/iam/v2/accountAssociations/${g(association.uid)}:check`, { providerType: 'AMAZON' });
  t.deepEqual(check, { ...restCheck, status: `CHECK_STATUS_${restCheck.status}` }, 'CheckAccountAssociation: REST\'s check, the published enum prefixed');
  const unchecked = await t.throwsAsync<RpcError>(rpc('accountAssociations', 'CheckAccountAssociation', { uid: association.uid }));
  t.is(unchecked.code, grpc.status.INVALID_ARGUMENT, 'a provider type is required');

  for (const [service, method, path, uid] of [
    ['accountAssociations', 'DeleteAccountAssociation', '/iam/v2/accountAssociations', association.uid],
    ['groupInvites', 'DeleteGroupInvite', '/iam/v2/groupInvites', invite.uid],
    ['identityProviders', 'DeleteIdentityProvider', '/iam/v2/identityProviders', idp.uid],
    ['roleBindings', 'DeleteRoleBinding', '/iam/v2/roleBindings', binding.uid],
    ['roles', 'DeleteRole', '/iam/v2/roles', role.uid],
    ['identities', 'DeleteIdentity', '/iam/v2/identities', identity.uid],
    ['groups', 'DeleteGroup', '/iam/v2/groups', group.uid],
  ] as const) {
    t.deepEqual(await rpc(service, method, { uid }), {}, `${method} answers Empty`);
    t.is((await srv.call('GET', `${path}/${g(uid)}`)).status, 404, `${method}: gone over REST`);
  }

  t.deepEqual(STANDARD_RPCS.filter((path) => !h.called.has(path)), [], 'every standard method of the IAM services was called');
});

/** An RPC by path with hand-made request bytes: what a client with the wrong .proto, or no .proto, sends. */
function rawCall(path: string, bytes: Buffer, token = h.srv.ownerToken): Promise<RpcError | Buffer> {
  const client = new grpc.Client(h.srv.url.replace('http://', ''), grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, bytes, metadata, { deadline: Date.now() + 20_000 }, (err, res) => {
      client.close();
      resolve(err ? err : res!);
    });
  });
}

test.serial('errors: the AIP-193 code as the gRPC status, with ErrorInfo, BadRequest and PreconditionFailure in grpc-status-details-bin', async (t) => {
  const { rpc, org, srv } = h;
  const fail = async (promise: Promise<unknown>) => {
    const err = await t.throwsAsync<RpcError>(promise);
    return { err, status: statusDetails(err) };
  };

  const missing = await fail(rpc('groups', 'GetGroup', { uid: `${org}/0000000000000000` }));
  t.is(missing.err.code, grpc.status.NOT_FOUND);
  t.is(missing.status.code, 5);
  t.regex(missing.err.details, /not found/i);
  t.is(missing.status.details.ErrorInfo.domain, 'platform.api.v2');

  const invalid = await fail(rpc('groups', 'CreateGroup', { parent: org, group: { name: 'not a valid name!' } }));
  t.is(invalid.err.code, grpc.status.INVALID_ARGUMENT);
  t.is(invalid.status.details.BadRequest.fieldViolations[0].field, 'name');
  t.regex(invalid.err.details, /^Invalid argument: name: /, 'the same message as REST');
  t.is(invalid.err.details, (await srv.call('POST', '/iam/v2/groups', { parent: org, group: { name: 'not a valid name!' } })).json.message);

  const parent = await rpc('groups', 'CreateGroup', { parent: org, group: { name: 'holds-a-child' } });
  await rpc('groups', 'CreateGroup', { parent: parent.uid, group: { name: 'child' } });
  const notEmpty = await fail(rpc('groups', 'DeleteGroup', { uid: parent.uid }));
  t.is(notEmpty.err.code, grpc.status.FAILED_PRECONDITION);
  t.truthy(notEmpty.status.details.PreconditionFailure?.violations.length, 'PreconditionFailure says what is in the way');

  const viewer = await srv.person('grpc-viewer', 'viewer', org);
  const denied = await fail(rpc('groups', 'CreateGroup', { parent: org, group: { name: 'nope' } }, viewer.token));
  t.is(denied.err.code, grpc.status.PERMISSION_DENIED);
  t.is(denied.status.details.ErrorInfo.reason, 'PERMISSION_DENIED');
  t.is((await rpc('groups', 'GetGroup', { uid: org }, viewer.token)).uid, org, 'the same token reads what it may');

  const noUid = await fail(rpc('groups', 'GetGroup', {}));
  t.is(noUid.err.code, grpc.status.INVALID_ARGUMENT, 'a path field left empty');
  t.is(noUid.status.details.BadRequest.fieldViolations[0].field, 'uid');
});

test.serial('auth: the token in `authorization` metadata; none or a bad one is UNAUTHENTICATED', async (t) => {
  for (const token of ['', 'not-a-jwt', `${h.srv.ownerToken.slice(0, -4)}AAAA`]) {
    const err = await t.throwsAsync<RpcError>(h.rpc('groups', 'ListGroups', {}, token));
    t.is(err.code, grpc.status.UNAUTHENTICATED, token || '(no token)');
    t.is(statusDetails(err).details.ErrorInfo.domain, 'platform.api.v2');
  }
});

test.serial('client mistakes are not server faults: an unknown method is UNIMPLEMENTED, bytes that are not protobuf INVALID_ARGUMENT', async (t) => {
  const unknown = await rawCall('/chainguard.platform.iam.v2.GroupsService/DoesNotExist', Buffer.alloc(0));
  t.is((unknown as RpcError).code, grpc.status.UNIMPLEMENTED);
  const unknownService = await rawCall('/platform.nothing.v1.NoService/Get', Buffer.alloc(0));
  t.is((unknownService as RpcError).code, grpc.status.UNIMPLEMENTED);

  // Field 1 as a length-delimited string that claims 100 bytes and has 2.
  const garbage = await rawCall('/chainguard.platform.iam.v2.GroupsService/GetGroup', Buffer.from([0x0a, 0x64, 0x61, 0x62]));
  t.is((garbage as RpcError).code, grpc.status.INVALID_ARGUMENT, (garbage as RpcError).details);

  // A valid message, sent raw: the same answer as a generated client gets.
  const ok = await rawCall('/chainguard.platform.iam.v2.GroupsService/GetGroup', Buffer.concat([Buffer.from([0x0a, h.org.length]), Buffer.from(h.org)]));
  t.true(Buffer.isBuffer(ok));
});

test.serial('paging crosses protocols: a page token from REST continues over gRPC and back, and the walk equals the REST listing', async (t) => {
  const { rpc, srv, org } = h;
  // A subtree of its own: the other tests of this file create groups meanwhile.
  const top = await srv.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'paged' } });
  for (const name of ['kilo', 'alpha', 'echo', 'bravo', 'juliet', 'delta', 'hotel']) {
    const child = await srv.ok('POST', '/iam/v2/groups', { parent: top.uid, group: { name } });
    if (name === 'echo') await srv.ok('POST', '/iam/v2/groups', { parent: child.uid, group: { name: 'charlie' } });
  }
  const scope = `uidp.descendants_of=${encodeURIComponent(top.uid)}&order_by=name`;
  const all: string[] = [];
  for (let token = ''; ;) {
    const page = await srv.ok('GET', `/iam/v2/groups?${scope}&page_size=50${token ? `&page_token=${token}` : ''}`);
    all.push(...page.groups.map((g: Any) => g.uid));
    if (!page.nextPageToken) break;
    token = page.nextPageToken;
  }
  t.is(all.length, 8);

  const walked: string[] = [];
  let token = '';
  for (let i = 0; ; i++) {
    // Odd pages over REST, even ones over gRPC, each with the other's token.
    const page = i % 2
      ? await srv.ok('GET', `/iam/v2/groups?${scope}&page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`)
      : await rpc('groups', 'ListGroups', { uidp: { descendantsOf: top.uid }, orderBy: 'name', pageSize: 2, pageToken: token });
    walked.push(...(page.groups ?? []).map((g: Any) => g.uid));
    if (!page.nextPageToken) break;
    token = page.nextPageToken;
  }
  t.deepEqual(walked, all);

  const skipped = await rpc('groups', 'ListGroups', { uidp: { descendantsOf: top.uid }, orderBy: 'name desc', skip: 1, pageSize: 1 });
  t.deepEqual(skipped.groups.map((g: Any) => g.uid), [all[all.length - 2]], 'order_by and skip as over REST');
});

test.serial('reflection (v1 and v1alpha) lists the services and serves their files with imports, without a token', async (t) => {
  for (const version of ['v1', 'v1alpha'] as const) {
    const Reflection = pkg.grpc.reflection[version].ServerReflection;
    const client = new Reflection(h.srv.url.replace('http://', ''), grpc.credentials.createInsecure());
    const stream = client.ServerReflectionInfo();
    const answers: Any[] = [];
    const done = new Promise<void>((resolve, reject) => {
      stream.on('data', (a: Any) => answers.push(a));
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    stream.write({ listServices: '' });
    stream.write({ fileContainingSymbol: 'chainguard.platform.iam.v2.GroupsService' });
    stream.write({ fileContainingSymbol: 'chainguard.platform.iam.v2.RolesService.GetRole' });
    stream.write({ fileByFilename: 'google/api/http.proto' });
    stream.write({ fileContainingSymbol: 'platform.nothing.Here' });
    stream.end();
    await done;
    client.close();

    const services = answers[0].listServicesResponse.service.map((s: Any) => s.name);
    // One contract: every service is the vendor's (or gRPC's reflection); serve's former platform.*.v2 are gone.
    t.deepEqual(services.filter((name: string) => !/^(chainguard\.platform\.|grpc\.reflection\.)/.test(name)), [], version);
    t.deepEqual(services.slice(0, 12), [
      // The v1 services (src/server/surfaces/v1/), by the vendor's names.
      'chainguard.platform.iam.Groups', 'chainguard.platform.iam.Identities', 'chainguard.platform.iam.Roles', 'chainguard.platform.iam.RoleBindings',
      'chainguard.platform.iam.IdentityProviders', 'chainguard.platform.iam.GroupInvites', 'chainguard.platform.iam.GroupAccountAssociations',
      'chainguard.platform.registry.Registry', 'chainguard.platform.registry.Vulnerabilities', 'chainguard.platform.vulnerabilities.v1.Advisories',
      'chainguard.platform.events.Subscriptions',
      // The vendor's sign-in (src/server/surfaces/rpc/sign-in.ts); Auth among the vendor's services (its unserved methods UNIMPLEMENTED).
      'chainguard.platform.oidc.SecurityTokenService'], version);
    t.true(services.includes('chainguard.platform.auth.Auth'), `Auth (${version})`);
    // The vendor's published IAM services, GA and beta (test/vendor-go.test.ts calls them).
    const iam = ['Groups', 'Identities', 'Roles', 'RoleBindings', 'IdentityProviders', 'GroupInvites', 'AccountAssociations', 'ExternalGroupRoleMappings', 'Terms'];
    for (const v of ['v2', 'v2beta1']) for (const s of iam) t.true(services.includes(`chainguard.platform.iam.${v}.${s}Service`), `${v} ${s}Service (${version})`);
    // The vendor's registry, catalogue, events and ping services (test/grpc-vendor-catalogue.test.ts calls them).
    const others = ['registry.%s.ReposService', 'registry.%s.TagsService', 'registry.%s.ImagesService', 'vulnerabilities.%s.AdvisoriesService', 'advisory.%s.SecurityAdvisoryService',
      'libraries.%s.ArtifactsService', 'events.%s.SubscriptionsService', 'ping.%s.PingService'];
    for (const v of ['v2', 'v2beta1']) for (const s of others) t.true(services.includes(`chainguard.platform.${s.replace('%s', v)}`), `${s.replace('%s', v)} (${version})`);
    const names = (a: Any) => a.fileDescriptorResponse.fileDescriptorProto.map((b: Buffer) => fromBinary(FileDescriptorProtoSchema, b).name);
    const iamFiles = names(answers[1]);
    t.is(iamFiles[iamFiles.length - 1], 'chainguard/platform/iam/v2/groups.proto');
    t.true(iamFiles.includes('google/api/annotations.proto') && iamFiles.includes('google/protobuf/timestamp.proto'), 'with its imports');
    t.deepEqual(names(answers[2]), ['chainguard/platform/iam/v2/roles.proto'], 'imports already sent on this stream are not sent again');
    t.deepEqual(names(answers[3]), ['google/api/http.proto']);
    t.is(answers[4].errorResponse.errorCode, grpc.status.NOT_FOUND);
  }
});

test.serial('gRPC-Web (HTTP/1.1 and 2) and Connect over HTTP/1.1, and REST over HTTP/2, on the same port with the same answers', async (t) => {
  const { srv, org } = h;
  const transports = {
    grpcWeb: createGrpcWebTransport({ baseUrl: srv.url, httpVersion: '1.1' }),
    grpcWebOverH2: createGrpcWebTransport({ baseUrl: srv.url, httpVersion: '2' }),
    connect: createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1' }),
    grpc: createGrpcTransport({ baseUrl: srv.url }),
  };
  const headers = { authorization: `Bearer ${srv.ownerToken}` };
  const expected = await srv.ok('GET', `/iam/v2/groups/${encodeURIComponent(org)}`);
  for (const [name, transport] of Object.entries(transports)) {
    const groups = createClient(PublishedGroups, transport);
    const group = await groups.getGroup({ uid: org }, { headers });
    t.is(group.uid, org, name);
    t.is(group.name, expected.name, name);
    const err = await t.throwsAsync<ConnectError>(groups.getGroup({ uid: `${org}/0000000000000000` }, { headers }));
    t.is(err.code, Code.NotFound, name);
    t.is(err.findDetails(ErrorInfoSchema)[0]?.domain, 'platform.api.v2', name);
  }

  const session = http2.connect(srv.url);
  t.teardown(() => session.close());
  const h2 = (request: http2.OutgoingHttpHeaders, body?: unknown) => new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = session.request({ authorization: headers.authorization, ...request });
    let status = 0;
    let type = '';
    let text = '';
    req.on('response', (h) => ((status = Number(h[':status'])), (type = String(h['content-type'] ?? ''))));
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve({ status, type, text }));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
  const got = await h2({ ':path': `/iam/v2/groups/${encodeURIComponent(org)}` });
  t.deepEqual(JSON.parse(got.text), expected, 'REST over h2c');

  // A request body over HTTP/2, read from the stream itself; and a client mistake as REST answers it.
  const made = await h2({ ':method': 'POST', ':path': '/iam/v2/groups', 'content-type': 'application/json' }, { parent: org, group: { name: 'made-over-h2' } });
  t.is(made.status, 200, made.text);
  const uid = (JSON.parse(made.text) as { uid: string }).uid;
  t.is((await srv.ok('GET', `/iam/v2/groups/${encodeURIComponent(uid)}`)).name, 'made-over-h2');
  const bad = await h2({ ':method': 'POST', ':path': '/iam/v2/groups', 'content-type': 'application/json' }, { group: { name: 'no-parent' } });
  t.is(bad.status, 400);
  t.is((JSON.parse(bad.text) as { code: number }).code, 3);
  t.is((await h2({ ':method': 'DELETE', ':path': `/iam/v2/groups/${encodeURIComponent(uid)}` })).status, 200);

  // /mcp over HTTP/2 is answered by MCP (through node's request and response objects).
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h2', version: '1' } } };
  const mcp = await h2({ ':method': 'POST', ':path': '/mcp', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, initialize);
  t.is(mcp.status, 200, mcp.text);
  t.regex(mcp.text, /"serverInfo"/);
});

test.serial('the published services (v2 and v2beta1) over gRPC, gRPC-Web (HTTP/1.1 and 2) and Connect (binary and JSON): the same answers as REST', async (t) => {
  const { srv, org } = h;
  const headers = { authorization: `Bearer ${srv.ownerToken}` };
  const expected = await srv.ok('GET', '/iam/v2/roles?order_by=name&page_size=200');
  const transports = {
    grpc: createGrpcTransport({ baseUrl: srv.url }),
    grpcWeb: createGrpcWebTransport({ baseUrl: srv.url, httpVersion: '1.1' }),
    grpcWebOverH2: createGrpcWebTransport({ baseUrl: srv.url, httpVersion: '2' }),
    connect: createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1' }),
    connectJson: createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1', useBinaryFormat: false }),
  };
  for (const [name, transport] of Object.entries(transports)) {
    for (const [version, service] of [['v2', PublishedGroups], ['v2beta1', PublishedGroupsBeta]] as const) {
      const groups = createClient(service, transport);
      const group = await groups.getGroup({ uid: org }, { headers });
      t.is(group.uid, org, `${name} ${version}`);
      const err = await t.throwsAsync<ConnectError>(groups.getGroup({ uid: `${org}/0000000000000000` }, { headers }));
      t.is(err.code, Code.NotFound, `${name} ${version}`);
    }
    const roles = await createClient(PublishedRoles, transport).listRoles({ orderBy: 'name', pageSize: 200 }, { headers });
    t.deepEqual(roles.roles.map((r) => r.uid), expected.roles.map((r: { uid: string }) => r.uid), name);
    // serve's capability names as the published enum: the built-in viewer role lists groups.
    const viewer = roles.roles.find((r) => r.name === 'viewer');
    t.true(viewer?.capabilities.includes(Capability.CAP_IAM_GROUPS_LIST), `${name}: ${JSON.stringify(viewer?.capabilities)}`);
  }
});

test.serial("Connect's JSON is the proto3 JSON of the message the binary protocols answer: a page, an empty page, a group", async (t) => {
  const { srv, org } = h;
  const headers = { authorization: `Bearer ${srv.ownerToken}` };
  const groups = createClient(PublishedGroups, createGrpcTransport({ baseUrl: srv.url }));
  const connectJson = async (method: string, body: unknown) => {
    const res = await fetch(`${srv.url}/chainguard.platform.iam.v2.GroupsService/${method}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.is(res.status, 200, method);
    return res.json();
  };
  for (const request of [{ orderBy: 'name', pageSize: 3 }, { name: 'no-such-group' }]) {
    const binary = await groups.listGroups(request, { headers });
    // Twice: the second answer is made from the records' cached JSON.
    // Page tokens hold the time they were issued: compared by presence.
    const { nextPageToken: token, ...expected } = toJson(ListGroupsResponseSchema, binary) as { nextPageToken?: string };
    for (const round of [1, 2]) {
      const { nextPageToken, ...got } = (await connectJson('ListGroups', request)) as { nextPageToken?: string };
      t.deepEqual(got, expected, `${JSON.stringify(request)}, round ${round}`);
      t.is(Boolean(nextPageToken), Boolean(token), `${JSON.stringify(request)}, round ${round}: a next page on both or neither`);
    }
  }
  const group = await groups.getGroup({ uid: org }, { headers });
  t.deepEqual(await connectJson('GetGroup', { uid: org }), toJson(GroupSchema, group));
});

test.serial("a published CreateGroup, over gRPC and over Connect's handlers (a gzip-compressed call), makes the group and is journaled as REST's POST /iam/v2/groups", async (t) => {
  const { srv, org } = h;
  const headers = { authorization: `Bearer ${srv.ownerToken}` };
  const since = srv.journal.last;
  const calls = {
    grpc: createClient(PublishedGroups, createGrpcTransport({ baseUrl: srv.url })),
    compressed: createClient(PublishedGroups, createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1', sendCompression: compressionGzip, compressMinBytes: 0 })),
  };
  for (const [name, groups] of Object.entries(calls)) {
    const made = await groups.createGroup({ parent: org, group: { name: `published-${name}`, description: 'made over RPC' } }, { headers });
    t.true(made.uid.startsWith(`${org}/`), name);
    const stored = await srv.ok('GET', `/iam/v2/groups/${made.uid}`);
    t.like(stored, { name: `published-${name}`, description: 'made over RPC' }, name);
    const entry = srv.journal.since(since).find((e) => e.rpc === 'chainguard.platform.iam.v2.GroupsService/CreateGroup' && e.responseBody?.includes(made.uid));
    t.like(entry, { method: 'POST', path: '/iam/v2/groups', status: 200 }, name);
    t.true(entry?.requestBody?.includes(`published-${name}`), `${name}: ${entry?.requestBody}`);
  }
});

test.serial('the rate limit counts RPCs too: RESOURCE_EXHAUSTED with retry-after in the metadata', async (t) => {
  const now = Date.parse('2026-11-23T00:00:00Z');
  const srv = await startTestServer({ rateLimit: { limit: 2, windowSeconds: 60, burst: 2 }, clock: () => now });
  t.teardown(() => srv.dispose());
  const iam = new SERVICES.groups(srv.url.replace('http://', ''), grpc.credentials.createInsecure());
  t.teardown(() => iam.close());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${srv.ownerToken}`);
  const call = () => new Promise<RpcError | null>((resolve) => iam.GetGroup({ uid: srv.organizationUid }, metadata, (err: RpcError | null) => resolve(err)));
  t.is(await call(), null);
  t.is(await call(), null);
  const limited = await call();
  t.is(limited?.code, grpc.status.RESOURCE_EXHAUSTED);
  t.regex(String(limited?.metadata.get('retry-after')[0]), /^\d+$/);
  t.is((await srv.call('GET', `/iam/v2/groups/${encodeURIComponent(srv.organizationUid)}`)).status, 429, 'one bucket for REST and gRPC');
});

test.serial("a request message over REST's body limit (1 MiB) is refused with RESOURCE_EXHAUSTED, gRPC's code for a message too large", async (t) => {
  const description = 'x'.repeat(MAX_BODY_BYTES + 10);
  const err = await t.throwsAsync<RpcError>(h.rpc('groups', 'CreateGroup', { parent: h.org, group: { name: 'too-big', description } }));
  t.is(err.code, grpc.status.RESOURCE_EXHAUSTED, err.details);
});

test.serial('injected faults reach gRPC calls, scoped by RPC name: an error keeps its code, a reset is UNAVAILABLE, other RPCs are untouched', async (t) => {
  t.teardown(() => h.srv.faults.clear());
  h.srv.faults.add({ rpc: 'GroupsService/GetGroup', effect: 'error', code: 10 });
  const aborted = await t.throwsAsync<RpcError>(h.rpc('groups', 'GetGroup', { uid: h.org }));
  t.is(aborted.code, 10);
  t.regex(aborted.details, /Injected fault f\d+: ABORTED/);
  t.truthy(await h.rpc('groups', 'ListGroups', { pageSize: 1 }), 'another RPC is not hit');
  t.is((await h.srv.call('GET', `/iam/v2/groups/${h.org}`)).status, 200, 'nor the same route over REST: the rule names an RPC');

  h.srv.faults.clear();
  h.srv.faults.add({ rpc: 'chainguard.platform.iam.v2.RolesService/ListRoles', effect: 'reset' });
  const reset = await t.throwsAsync<RpcError>(h.rpc('roles', 'ListRoles', {}));
  t.is(reset.code, grpc.status.UNAVAILABLE);
  const journal = h.srv.journal.since(0).filter((e) => e.rpc?.endsWith('RolesService/ListRoles'));
  t.is(journal.at(-1)?.fault?.effect, 'reset');
});

test.serial('a compressed request message that is not protobuf, which Connect parses, is INVALID_ARGUMENT too, not INTERNAL', async (t) => {
  const res = await fetch(`${h.srv.url}/chainguard.platform.iam.v2.GroupsService/GetGroup`, {
    method: 'POST',
    headers: { 'content-type': 'application/proto', 'content-encoding': 'gzip', 'connect-protocol-version': '1', authorization: `Bearer ${h.srv.ownerToken}` },
    // Field 1 as a length-delimited string that claims 100 bytes and has 2.
    body: gzipSync(Buffer.from([0x0a, 0x64, 0x61, 0x62])),
  });
  t.is(res.status, 400);
  t.like(await res.json(), { code: 'invalid_argument' });
});

test.serial("a stalled call ends at the caller's deadline: serve itself answers DEADLINE_EXCEEDED (gRPC's grpc-timeout, Connect's connect-timeout-ms)", async (t) => {
  // Raw requests that carry a deadline but do not enforce one: a client library's own timer
  // would end the call first, and this is about serve's answer.
  t.teardown(() => h.srv.faults.clear());
  h.srv.faults.add({ rpc: 'GroupsService/GetGroup', effect: 'stall' });
  const session = http2.connect(h.srv.url);
  t.teardown(() => session.close());
  const trailersOnly = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
    const req = session.request({
      ':method': 'POST', ':path': '/chainguard.platform.iam.v2.GroupsService/GetGroup', 'content-type': 'application/grpc', te: 'trailers',
      'grpc-timeout': '50m', authorization: `Bearer ${h.srv.ownerToken}`,
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.resume();
    const message = Buffer.from(h.org);
    req.end(Buffer.concat([Buffer.from([0, 0, 0, 0, message.length + 2, 0x0a, message.length]), message]));
  });
  t.is(trailersOnly['grpc-status'], String(grpc.status.DEADLINE_EXCEEDED));
  t.regex(String(trailersOnly['grpc-message']), /deadline passed/);

  const connect = await fetch(`${h.srv.url}/chainguard.platform.iam.v2.GroupsService/GetGroup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'connect-timeout-ms': '50', authorization: `Bearer ${h.srv.ownerToken}` },
    body: JSON.stringify({ uid: h.org }),
  });
  t.is(connect.status, 504);
  t.is(((await connect.json()) as { code: string }).code, 'deadline_exceeded');
  t.is(h.srv.journal.since(0).filter((e) => e.rpc?.endsWith('GroupsService/GetGroup') && e.fault?.effect === 'stall').length, 2, 'both stalled calls are in the journal');
});

test.serial('over HTTP/1.1 a request body that comes after its headers, in parts, is read whole (Connect and REST); a caller gone mid-body is journaled as cancelled', async (t) => {
  const { srv, org } = h;
  const { hostname, port } = new URL(srv.url);
  /** Opens a connection and sends the request's head and the first `sent` bytes of its body. */
  const partial = (head: string, body: string, sent: number) => {
    const socket = net.connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (data += c));
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      socket.on('data', () => {
        const m = /^HTTP\/1\.1 (\d+)[^]*?content-length: (\d+)\r\n[^]*?\r\n\r\n([^]*)$/i.exec(data);
        if (m && Buffer.byteLength(m[3]!) === Number(m[2])) resolve({ status: Number(m[1]), body: m[3]! });
      });
      socket.on('error', reject);
    });
    socket.write(`${head}\r\nhost: x\r\nauthorization: Bearer ${srv.ownerToken}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, sent)}`);
    return { answered, rest: () => socket.write(body.slice(sent)), socket };
  };
  // A complete call on another connection, answered only after serve has looked at the partial body above.
  const probe = async () => t.is((await srv.call('POST', '/chainguard.platform.iam.v2.GroupsService/GetGroup', { uid: org })).status, 200);

  const get = partial('POST /chainguard.platform.iam.v2.GroupsService/GetGroup HTTP/1.1', JSON.stringify({ uid: org }), 5);
  t.teardown(() => get.socket.destroy());
  await probe();
  get.rest();
  const got = await get.answered;
  t.is(got.status, 200, got.body);
  const expected = await srv.ok('GET', `/iam/v2/groups/${encodeURIComponent(org)}`);
  t.like(JSON.parse(got.body), { uid: expected.uid, name: expected.name, description: expected.description });

  const create = partial('POST /iam/v2/groups HTTP/1.1', JSON.stringify({ parent: org, group: { name: 'sent-in-parts' } }), 12);
  t.teardown(() => create.socket.destroy());
  await probe();
  create.rest();
  const made = await create.answered;
  t.is(made.status, 200, made.body);
  const uid = (JSON.parse(made.body) as { uid: string; name: string }).uid;
  t.is((await srv.ok('GET', `/iam/v2/groups/${encodeURIComponent(uid)}`)).name, 'sent-in-parts');
  t.is((await srv.call('DELETE', `/iam/v2/groups/${encodeURIComponent(uid)}`)).status, 200);

  const { journal } = srv;
  const mark = journal.last;
  const journaled = () => journal.since(mark).find((e) => e.method === 'POST' && e.path === '/iam/v2/groups');
  const recorded = new Promise<void>((resolve) => {
    const stop = journal.subscribe(() => journaled() && (stop(), resolve()));
  });
  const gone = partial('POST /iam/v2/groups HTTP/1.1', JSON.stringify({ parent: org, group: { name: 'never-sent' } }), 12);
  await probe();
  gone.socket.destroy();
  await recorded;
  t.is(journaled()?.status, 499, 'CANCELLED');
});
