// Group invites and identity providers, called on the domain: both hand out a role, so both
// need role_bindings.create and a role the caller could bind there; an invite's code is told
// once and redeemed by rules (wrong code, another email, expired, used, role gone).
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { builtinRoleUid } from '../../src/server/domain/records.js';
import { changes, refusal, world, type World } from './world.js';

const invite = (w: World, parent: string, extra: Partial<{ email: string; ttlSeconds: number; singleUse: boolean; roleUid: string }> = {}) =>
  ({ parent, roleUid: builtinRoleUid('viewer'), ttlSeconds: 3600, singleUse: true, ...extra });

test('redeeming binds the redeemer with the invite’s role on its group; a single-use invite redeemed again is FAILED_PRECONDITION INVITE_USED', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const { invite: made, code } = await w.domain.groupInvites.create(w.owner, invite(w, sub));
  t.regex(code, /^pctl_invite_/);
  t.false(JSON.stringify(made.data).includes(code), 'only a hash of the code is kept');

  const newcomer = await w.person('newcomer', []);
  const binding = await w.domain.groupInvites.redeem(newcomer, code);
  t.is(binding.parent, sub);
  t.is(binding.data.identityUid, newcomer.identityUid);
  t.deepEqual(await w.listed('groups', newcomer), [sub]);

  const other = await w.person('other', []);
  const before = w.committed();
  const again = await refusal(t, w.domain.groupInvites.redeem(other, code));
  t.is(again.code, Code.FAILED_PRECONDITION);
  t.deepEqual(again.preconditions, ['INVITE_USED']);
  t.is(w.committed(), before);
});

test('a wrong code is NOT_FOUND and says nothing else; an expired invite is INVITE_EXPIRED; one whose role is gone is INVITE_ROLE_GONE', async (t) => {
  const w = await world(t);
  const newcomer = await w.person('newcomer', []);
  const wrong = await refusal(t, w.domain.groupInvites.redeem(newcomer, 'pctl_invite_nothing'));
  t.is(wrong.code, Code.NOT_FOUND);
  t.is(wrong.reason, 'INVITE_NOT_FOUND');

  const { code } = await w.domain.groupInvites.create(w.owner, invite(w, w.org, { ttlSeconds: 60 }));
  w.advance(61_000);
  const expired = await refusal(t, w.domain.groupInvites.redeem(newcomer, code));
  t.deepEqual(expired.preconditions, ['INVITE_EXPIRED']);

  const role = await w.domain.roles.create(w.owner, { parent: w.org, name: 'short-lived', capabilities: ['groups.list'] });
  const { code: orphan } = await w.domain.groupInvites.create(w.owner, invite(w, w.org, { roleUid: role.uid }));
  await w.domain.roles.delete(w.owner, role.uid);
  const before = w.committed();
  const gone = await refusal(t, w.domain.groupInvites.redeem(newcomer, orphan));
  t.deepEqual(gone.preconditions, ['INVITE_ROLE_GONE']);
  t.is(w.committed(), before);
  t.deepEqual(await w.listed('groups', newcomer), [], 'no refused redeem bound anything');
});

test('an email-restricted invite is PERMISSION_DENIED (INVITE_EMAIL_MISMATCH) to another email, in any case redeemable by its own', async (t) => {
  const w = await world(t);
  const { code } = await w.domain.groupInvites.create(w.owner, invite(w, w.org, { email: 'Ada@Example.com' }));
  const stranger = await w.person('stranger', [], { email: 'eve@example.com' });
  const r = await refusal(t, w.domain.groupInvites.redeem(stranger, code));
  t.is(r.code, Code.PERMISSION_DENIED);
  t.is(r.reason, 'INVITE_EMAIL_MISMATCH');
  const ada = await w.person('ada', [], { email: 'ada@example.com' });
  t.is((await w.domain.groupInvites.redeem(ada, code)).data.identityUid, ada.identityUid);
});

test('a multi-use invite redeemed twice by one identity leaves its one binding', async (t) => {
  const w = await world(t);
  const { code } = await w.domain.groupInvites.create(w.owner, invite(w, w.org, { singleUse: false }));
  const person = await w.person('person', []);
  const first = await w.domain.groupInvites.redeem(person, code);
  const second = await w.domain.groupInvites.redeem(person, code);
  t.is(second.uid, first.uid);
});

test('making an invite needs role_bindings.create on the group and a role the caller could bind there (no escalation)', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const inviter = await w.domain.roles.create(w.owner, { parent: sub, name: 'inviter', capabilities: ['group_invites.create', 'roles.list', 'groups.list'] });
  const noBinding = await w.person('no-binding', [{ role: inviter.uid, on: sub }]);
  const before = w.committed();
  const r = await refusal(t, w.domain.groupInvites.create(noBinding, invite(w, sub, { roleUid: inviter.uid })));
  t.is(r.code, Code.PERMISSION_DENIED);

  const both = await w.domain.roles.create(w.owner, { parent: sub, name: 'inviter-binder', capabilities: ['group_invites.create', 'role_bindings.create', 'roles.list', 'groups.list'] });
  const binder = await w.person('binder', [{ role: both.uid, on: sub }]);
  const escalating = await refusal(t, w.domain.groupInvites.create(binder, invite(w, sub, { roleUid: builtinRoleUid('owner') })));
  t.is(escalating.code, Code.PERMISSION_DENIED);
  const unknown = await refusal(t, w.domain.groupInvites.create(binder, invite(w, sub, { roleUid: `${w.org}/0000000000000000` })));
  t.is(unknown.code, Code.INVALID_ARGUMENT);
  t.deepEqual(unknown.fields, ['roleUid']);
  t.is(w.committed(), before + 3, 'the second role, the binder and its binding: no invite');
});

const oidc = { issuer: 'https://idp.test', clientId: 'client', clientSecret: 'secret' };

test("an identity provider's default role is one the caller could bind on its group: unknown is INVALID_ARGUMENT on defaultRole, more than the caller holds is PERMISSION_DENIED", async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const unknown = await refusal(t, w.domain.identityProviders.create(w.owner, { parent: sub, name: 'idp', defaultRole: `${w.org}/0000000000000000`, oidc }));
  t.is(unknown.code, Code.INVALID_ARGUMENT);
  t.deepEqual(unknown.fields, ['defaultRole']);

  const admin = await w.domain.roles.create(w.owner, { parent: sub, name: 'idp-admin', capabilities: ['identity_providers.create', 'identity_providers.update', 'identity_providers.list', 'role_bindings.create', 'roles.list', 'groups.list'] });
  const person = await w.person('admin', [{ role: admin.uid, on: sub }]);
  const before = w.committed();
  const escalating = await refusal(t, w.domain.identityProviders.create(person, { parent: sub, name: 'idp', defaultRole: builtinRoleUid('owner'), oidc }));
  t.is(escalating.code, Code.PERMISSION_DENIED);
  t.is(w.committed(), before);

  const made = await w.domain.identityProviders.create(person, { parent: sub, name: 'idp', defaultRole: admin.uid, oidc });
  const raised = await refusal(t, w.domain.identityProviders.update(person, made.uid, changes({ defaultRole: builtinRoleUid('owner') })));
  t.is(raised.code, Code.PERMISSION_DENIED);
  t.is((await w.domain.identityProviders.get(w.owner, made.uid)).data.defaultRole, admin.uid);
});

test("an identity provider's correlation rule is fixed at create, scopes are non-empty strings, required fields stay set", async (t) => {
  const w = await world(t);
  const made = await w.domain.identityProviders.create(w.owner, { parent: w.org, name: 'idp', defaultRole: builtinRoleUid('viewer'), oidc });
  const before = w.committed();
  const r = await refusal(t, w.domain.identityProviders.update(w.owner, made.uid, changes({ 'oidc.correlationRule': 'EMAIL_EQUALS_EXTERNAL_ID', 'oidc.additionalScopes': ['', 'x'] })));
  t.is(r.code, Code.INVALID_ARGUMENT);
  t.deepEqual(r.fields, ['oidc.additionalScopes', 'oidc.correlationRule']);
  const required = await refusal(t, w.domain.identityProviders.update(w.owner, made.uid, changes({ 'oidc.clientId': '' })));
  t.deepEqual(required.fields, ['oidc.clientId']);
  t.is(w.committed(), before);
  t.is((await w.domain.identityProviders.get(w.owner, made.uid)).data.oidc.clientId, 'client');
});
