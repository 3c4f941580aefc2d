// Roles and role bindings, called on the domain: known capability names only, no escalation
// (nobody makes a role or a binding with capabilities they do not hold there), built-in
// roles read-only, a bound role stays, one binding per identity, role and group.
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { builtinRoleUid } from '../../src/server/domain/records.js';
import { changes, refusal, world } from './world.js';

test('a role names known capabilities only: each unknown one is its own violation, and nothing is made', async (t) => {
  const w = await world(t);
  const before = w.committed();
  const r = await refusal(t, w.domain.roles.create(w.owner, { parent: w.org, name: 'odd', capabilities: ['groups.list', 'groups.fly', 'repos.sing'] }));
  t.is(r.code, Code.INVALID_ARGUMENT);
  t.deepEqual(r.fields, ['capabilities[1]', 'capabilities[2]']);
  t.is(w.committed(), before);
});

test('no escalation: a caller cannot make (or widen) a role with capabilities it does not hold on the group', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const roleMaker = await w.domain.roles.create(w.owner, { parent: w.org, name: 'role-maker', capabilities: ['roles.create', 'roles.update', 'roles.list', 'groups.list'] });
  const maker = await w.person('maker', [{ role: roleMaker.uid, on: sub }]);

  const before = w.committed();
  const r = await refusal(t, w.domain.roles.create(maker, { parent: sub, name: 'deleter', capabilities: ['groups.delete'] }));
  t.is(r.code, Code.PERMISSION_DENIED);
  t.regex(r.message, /groups\.delete/);
  t.is(w.committed(), before);

  const held = await w.domain.roles.create(maker, { parent: sub, name: 'lister', capabilities: ['groups.list'] });
  const widened = await refusal(t, w.domain.roles.update(maker, held.uid, changes({ capabilities: ['groups.list', 'groups.delete'] })));
  t.is(widened.code, Code.PERMISSION_DENIED);
  t.deepEqual((await w.domain.roles.get(w.owner, held.uid)).data.capabilities, ['groups.list']);
});

test("a built-in role's name is taken, and built-in roles cannot be changed or deleted (FAILED_PRECONDITION BUILTIN_ROLE)", async (t) => {
  const w = await world(t);
  const named = await refusal(t, w.domain.roles.create(w.owner, { parent: w.org, name: 'viewer', capabilities: [] }));
  t.is(named.code, Code.ALREADY_EXISTS);
  const changed = await refusal(t, w.domain.roles.update(w.owner, builtinRoleUid('viewer'), changes({ description: 'mine now' })));
  t.is(changed.code, Code.FAILED_PRECONDITION);
  t.deepEqual(changed.preconditions, ['BUILTIN_ROLE']);
  const deleted = await refusal(t, w.domain.roles.delete(w.owner, builtinRoleUid('viewer')));
  t.deepEqual(deleted.preconditions, ['BUILTIN_ROLE']);
});

test('a role still bound cannot be deleted (FAILED_PRECONDITION RESOURCE_IN_USE); unbound, it goes', async (t) => {
  const w = await world(t);
  const role = await w.domain.roles.create(w.owner, { parent: w.org, name: 'reader', capabilities: ['groups.list'] });
  const someone = await w.person('someone', [{ role: role.uid, on: w.org }]);
  const r = await refusal(t, w.domain.roles.delete(w.owner, role.uid));
  t.is(r.code, Code.FAILED_PRECONDITION);
  t.deepEqual(r.preconditions, ['RESOURCE_IN_USE']);
  t.regex(r.message, /1 role binding\b/);

  for (const uid of await w.listed('roleBindings', w.owner)) {
    if ((await w.domain.roleBindings.get(w.owner, uid)).data.identityUid === someone.identityUid) await w.domain.roleBindings.delete(w.owner, uid);
  }
  await w.domain.roles.delete(w.owner, role.uid);
  t.is((await refusal(t, w.domain.roles.get(w.owner, role.uid))).code, Code.NOT_FOUND);
});

test('one binding per identity, role and group: a second is ALREADY_EXISTS naming the first (to a caller who may read it)', async (t) => {
  const w = await world(t);
  const person = await w.person('person', []);
  const first = await w.domain.roleBindings.create(w.owner, { parent: w.org, identityUid: person.identityUid, roleUid: builtinRoleUid('viewer') });
  const before = w.committed();
  const r = await refusal(t, w.domain.roleBindings.create(w.owner, { parent: w.org, identityUid: person.identityUid, roleUid: builtinRoleUid('viewer') }));
  t.is(r.code, Code.ALREADY_EXISTS);
  t.true(r.message.includes(first.uid));
  t.is(w.committed(), before);
});

test('no escalation through bindings: granting a role needs every capability of it held on the group', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const granter = await w.domain.roles.create(w.owner, { parent: sub, name: 'granter', capabilities: ['role_bindings.create', 'roles.list', 'identity.list', 'groups.list'] });
  const admin = await w.person('admin', [{ role: granter.uid, on: sub }]);
  const deep = await w.group(sub, 'deep');
  const before = w.committed();
  const r = await refusal(t, w.domain.roleBindings.create(admin, { parent: sub, identityUid: admin.identityUid, roleUid: builtinRoleUid('owner') }));
  t.is(r.code, Code.PERMISSION_DENIED);
  t.regex(r.message, /role owner/);
  t.is(w.committed(), before);
  // What it holds itself it may hand on.
  const ok = await w.domain.roleBindings.create(admin, { parent: deep, identityUid: admin.identityUid, roleUid: granter.uid });
  t.is(ok.parent, deep);
});

test('a binding names an identity and a role the caller may read (else NOT_FOUND on that field), a role usable on the group (else INVALID_ARGUMENT on roleUid)', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  const b = await w.group(w.org, 'b');
  const roleOnB = await w.domain.roles.create(w.owner, { parent: b, name: 'b-only', capabilities: ['groups.list'] });
  const adminOfA = await w.person('admin-a', [{ role: 'owner', on: a }]);
  const outsider = await w.domain.identities.create(w.owner, { parent: b, name: 'outsider', claimMatch: { issuer: 'https://other.test', subject: 'x' } });

  const hidden = await refusal(t, w.domain.roleBindings.create(adminOfA, { parent: a, identityUid: outsider.uid, roleUid: builtinRoleUid('viewer') }));
  t.is(hidden.code, Code.NOT_FOUND);
  t.deepEqual(hidden.fields, ['identityUid']);

  const elsewhere = await refusal(t, w.domain.roleBindings.create(w.owner, { parent: a, identityUid: outsider.uid, roleUid: roleOnB.uid }));
  t.is(elsewhere.code, Code.INVALID_ARGUMENT);
  t.deepEqual(elsewhere.fields, ['roleUid']);

  const unseen = await refusal(t, w.domain.roleBindings.create(adminOfA, { parent: a, identityUid: adminOfA.identityUid, roleUid: roleOnB.uid }));
  t.is(unseen.code, Code.NOT_FOUND);
  t.deepEqual(unseen.fields, ['roleUid']);
});

test('replacing a binding keeps its uid and creation time and is held to the create rules (no duplicate)', async (t) => {
  const w = await world(t);
  const person = await w.person('person', []);
  const viewer = await w.domain.roleBindings.create(w.owner, { parent: w.org, identityUid: person.identityUid, roleUid: builtinRoleUid('viewer') });
  await w.domain.roleBindings.create(w.owner, { parent: w.org, identityUid: person.identityUid, roleUid: builtinRoleUid('owner') });
  w.advance(1000);
  const dup = await refusal(t, w.domain.roleBindings.replace(w.owner, viewer.uid, { roleUid: builtinRoleUid('owner') }));
  t.is(dup.code, Code.ALREADY_EXISTS);
  t.is((await w.domain.roleBindings.get(w.owner, viewer.uid)).data.roleUid, builtinRoleUid('viewer'), 'the refused replace left the binding as it was');

  const editor = await w.domain.roleBindings.replace(w.owner, viewer.uid, { roleUid: builtinRoleUid('editor') });
  t.is(editor.uid, viewer.uid);
  t.is(editor.createTime, viewer.createTime);
  t.is(editor.data.roleUid, builtinRoleUid('editor'));
});
