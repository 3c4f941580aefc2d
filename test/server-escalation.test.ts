// No escalation through identities: whoever may update identities on a subgroup must not be
// able to re-point (claimMatch) or delete an identity that holds more than the caller could
// grant. The attack of issue 28: `identity.update` on subgroup `platform` re-points the
// claimMatch of `release-bot` (owner of the organization) to a subject whose token the
// attacker holds, after freeing that subject by re-pointing another identity of `platform`.
import test from 'ava';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { IdentitiesService } from '../src/gen/chainguard/platform/iam/v2/identities_pb.js';
import { request, startTestServer, type ApiResponse, type TestServer } from './helpers/serve.js';

const I = '/iam/v2/identities';

interface Scene {
  srv: TestServer;
  issuer: string;
  platform: string;
  /** The attacker: identity.update, identity.delete and identity.list on platform, nothing else. */
  mallory: { uid: string; token: string };
  /** In platform, bound owner on the organization. */
  releaseBot: { uid: string; binding: string };
  /** In platform, bound editor on platform; the attacker holds its token. */
  spare: { uid: string; token: string; binding: string };
  as(token: string, method: string, path: string, body?: unknown): ReturnType<typeof request>;
}

async function scene(): Promise<Scene> {
  const srv = await startTestServer();
  const org = srv.organizationUid;
  const issuer = (await srv.ok('GET', `${I}/${srv.ownerIdentityUid}`)).claimMatch.issuer as string;
  const platform = (await srv.ok('POST', '/iam/v2/groups', { parent: org, group: { name: 'platform' } })).uid as string;
  const keeper = (await srv.ok('POST', '/iam/v2/roles', {
    parent: platform, role: { name: 'identity-keeper', capabilities: ['identity.list', 'identity.update', 'identity.delete'] },
  })).uid as string;
  const identity = async (name: string, role: string, on: string) => {
    const uid = (await srv.ok('POST', I, { parent: platform, identity: { name, claimMatch: { issuer, subject: name } } })).uid as string;
    const binding = (await srv.ok('POST', '/iam/v2/roleBindings', { parent: on, roleBinding: { identityUid: uid, roleUid: role } })).uid as string;
    return { uid, binding, token: await srv.issueToken(uid) };
  };
  const mallory = await identity('mallory', keeper, platform);
  const releaseBot = await identity('release-bot', await srv.roleUid('owner'), org);
  const spare = await identity('spare', await srv.roleUid('editor'), platform);
  const as = (token: string, method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${token}` });
  return { srv, issuer, platform, mallory, releaseBot, spare, as };
}

function isRefused(t: import('ava').ExecutionContext, res: Pick<ApiResponse, 'status' | 'json'>, binding: string, what: string) {
  t.is(res.status, 403, `${what}: ${JSON.stringify(res.json)}`);
  t.is(res.json?.code, 7, what);
  t.true(String(res.json?.message).includes(binding), `${what}: the message names the binding the caller could not have granted: ${res.json?.message}`);
}

test('the takeover of issue 28 is refused at its first re-pointing step, and at each later one', async (t) => {
  const s = await scene();
  t.teardown(() => s.srv.dispose());
  // Step 1: free the subject of a token the attacker holds.
  const free = await s.as(s.mallory.token, 'PATCH', `${I}/${s.spare.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'parked' } });
  isRefused(t, free, s.spare.binding, 'freeing spare (bound editor on platform)');
  t.is((await s.srv.ok('GET', `${I}/${s.spare.uid}`)).claimMatch.subject, 'spare', 'spare still is who it was');

  // Had it been free (an identity with nothing the attacker could not grant), step 2 re-points release-bot.
  const bare = (await s.srv.ok('POST', I, { parent: s.platform, identity: { name: 'bare', claimMatch: { issuer: s.issuer, subject: 'bare' } } })).uid as string;
  const bareToken = await s.srv.issueToken(bare);
  const freed = await s.as(s.mallory.token, 'PATCH', `${I}/${bare}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'parked' } });
  t.is(freed.status, 200, 'an identity holding nothing may be re-pointed by whoever may update it');
  const takeover = await s.as(s.mallory.token, 'PATCH', `${I}/${s.releaseBot.uid}?updateMask=claimMatch`, { claimMatch: { issuer: s.issuer, subject: 'bare' } });
  isRefused(t, takeover, s.releaseBot.binding, 're-pointing release-bot (owner of the organization)');

  // Step 3 finds nothing to use: the freed token maps to no identity, and certainly not to an owner.
  const signIn = await s.as(bareToken, 'POST', '/iam/v2/roleBindings', {
    parent: s.srv.organizationUid, roleBinding: { identityUid: s.mallory.uid, roleUid: await s.srv.roleUid('owner') },
  });
  t.is(signIn.status, 401);
  const bindings = (await s.srv.ok('GET', '/iam/v2/roleBindings?page_size=100')).roleBindings as { identity: { uid: string }; role: { name: string } }[];
  t.deepEqual(bindings.filter((b) => b.identity.uid === s.mallory.uid).map((b) => b.role.name), ['identity-keeper'], 'mallory holds what it held');
  t.is((await s.srv.ok('GET', `${I}/${s.releaseBot.uid}`)).claimMatch.subject, 'release-bot');
});

test('every path that changes who an identity is, or deletes it, is refused: REST PATCH of each claim field, DELETE, gRPC', async (t) => {
  const s = await scene();
  t.teardown(() => s.srv.dispose());
  const target = s.releaseBot.uid;
  const before = await s.srv.ok('GET', `${I}/${target}`);
  const patches: [query: string, body: unknown][] = [
    ['?updateMask=claimMatch', { claimMatch: { issuer: s.issuer, subject: 'mallory-2' } }],
    ['?updateMask=claimMatch.subject', { claimMatch: { subject: 'mallory-2' } }],
    ['?updateMask=claimMatch.issuer', { claimMatch: { issuer: 'https://attacker.example' } }],
    ['?updateMask=claim_match.subject', { claimMatch: { subject: 'mallory-2' } }],
    ['?updateMask=*', { name: 'release-bot', claimMatch: { issuer: s.issuer, subject: 'mallory-2' } }],
    ['', { claimMatch: { issuer: s.issuer, subject: 'mallory-2' } }],
    ['', { claimMatch: { subject: 'mallory-2' } }],
    ['', { claimMatch: { issuer: 'https://attacker.example' } }],
  ];
  for (const [query, body] of patches) {
    isRefused(t, await s.as(s.mallory.token, 'PATCH', `${I}/${target}${query}`, body), s.releaseBot.binding, `PATCH ${query} ${JSON.stringify(body)}`);
  }
  isRefused(t, await s.as(s.mallory.token, 'DELETE', `${I}/${target}`), s.releaseBot.binding, 'DELETE');

  const iam = createClient(IdentitiesService, createGrpcTransport({ baseUrl: s.srv.url }));
  const headers = { authorization: `Bearer ${s.mallory.token}` };
  const rpcs: [string, () => Promise<unknown>][] = [
    ['UpdateIdentity claim_match', () => iam.updateIdentity({ identity: { uid: target, relationship: { case: 'claimMatch', value: { iss: { case: 'issuer', value: s.issuer }, sub: { case: 'subject', value: 'mallory-2' } } } }, updateMask: { paths: ['claim_match'] } }, { headers })],
    ['UpdateIdentity claim_match.subject', () => iam.updateIdentity({ identity: { uid: target, relationship: { case: 'claimMatch', value: { sub: { case: 'subject', value: 'mallory-2' } } } }, updateMask: { paths: ['claim_match.subject'] } }, { headers })],
    ['DeleteIdentity', () => iam.deleteIdentity({ uid: target }, { headers })],
  ];
  for (const [what, call] of rpcs) {
    const err = await t.throwsAsync<ConnectError>(call(), undefined, what);
    t.is(err?.code, Code.PermissionDenied, what);
    t.true(String(err?.rawMessage).includes(s.releaseBot.binding), `${what}: ${err?.rawMessage}`);
  }

  t.deepEqual(await s.srv.ok('GET', `${I}/${target}`), before, 'release-bot is unchanged');
  // What does not decide which tokens act as it stays open to whoever may update it.
  const renamed = await s.as(s.mallory.token, 'PATCH', `${I}/${target}?updateMask=description`, { description: 'noted' });
  t.is(renamed.status, 200, renamed.text);
  // And an identity holding only what the caller could grant may be re-pointed and deleted.
  const peer = (await s.srv.ok('POST', I, { parent: s.platform, identity: { name: 'peer', claimMatch: { issuer: s.issuer, subject: 'peer' } } })).uid as string;
  await s.srv.ok('POST', '/iam/v2/roleBindings', { parent: s.platform, roleBinding: { identityUid: peer, roleUid: (await s.srv.ok('GET', '/iam/v2/roles?name=identity-keeper')).roles[0].uid } });
  t.is((await s.as(s.mallory.token, 'PATCH', `${I}/${peer}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'peer-2' } })).status, 200);
  t.is((await s.as(s.mallory.token, 'DELETE', `${I}/${peer}`)).status, 200);
});

test('role-binding creation and identity changes refuse with the same rule and the same error', async (t) => {
  const s = await scene();
  t.teardown(() => s.srv.dispose());
  const binder = (await s.srv.ok('POST', '/iam/v2/roles', { parent: s.platform, role: { name: 'binder', capabilities: ['roles.list', 'role_bindings.create'] } })).uid;
  await s.srv.ok('POST', '/iam/v2/roleBindings', { parent: s.platform, roleBinding: { identityUid: s.mallory.uid, roleUid: binder } });
  const bind = await s.as(s.mallory.token, 'POST', '/iam/v2/roleBindings', {
    parent: s.platform, roleBinding: { identityUid: s.mallory.uid, roleUid: await s.srv.roleUid('editor') },
  });
  const repoint = await s.as(s.mallory.token, 'PATCH', `${I}/${s.spare.uid}?updateMask=claimMatch.subject`, { claimMatch: { subject: 'x' } });
  for (const res of [bind, repoint]) {
    t.is(res.status, 403);
    t.is(res.json.details.find((d: { reason?: string }) => d.reason)?.reason, 'PERMISSION_DENIED');
    t.regex(res.json.message, /^Permission denied: to .* you must be able to grant .*role editor on .*, and you do not hold groups\.list, .*groups\.update/);
  }
});
