// Identities, called on the domain: an issuer and subject pair belongs to one identity, a
// claimMatch change or a delete is held to no-escalation over the identity's bindings, the
// bindings go with the identity, static keys expire within a year.
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { builtinRoleUid } from '../../src/server/domain/records.js';
import { changes, ISSUER, refusal, world } from './world.js';

test('an issuer and subject pair names one identity: a second is ALREADY_EXISTS, naming the holder only to a caller who may read it', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  const b = await w.group(w.org, 'b');
  const held = await w.domain.identities.create(w.owner, { parent: b, name: 'robot', claimMatch: { issuer: 'https://ci.test', subject: 'repo:x' } });
  const adminOfA = await w.person('admin-a', [{ role: 'owner', on: a }]);
  const before = w.committed();

  const toOwner = await refusal(t, w.domain.identities.create(w.owner, { parent: a, name: 'twin', claimMatch: { issuer: 'https://ci.test', subject: 'repo:x' } }));
  t.is(toOwner.code, Code.ALREADY_EXISTS);
  t.true(toOwner.message.includes(held.uid));
  const toOther = await refusal(t, w.domain.identities.create(adminOfA, { parent: a, name: 'twin', claimMatch: { issuer: 'https://ci.test', subject: 'repo:x' } }));
  t.is(toOther.code, Code.ALREADY_EXISTS);
  t.false(toOther.message.includes(held.uid), 'nothing about who holds it');
  t.is(w.committed(), before);

  // Patterns are not unique: two identities may name the same pattern.
  await w.domain.identities.create(w.owner, { parent: a, name: 'p1', claimMatch: { issuer: 'https://ci.test', subjectPattern: 'repo:.*' } });
  await w.domain.identities.create(w.owner, { parent: a, name: 'p2', claimMatch: { issuer: 'https://ci.test', subjectPattern: 'repo:.*' } });
});

test('a claimMatch update sets one form of a oneof pair (the other goes), refuses both at once, and refuses a pair already taken', async (t) => {
  const w = await world(t);
  const made = await w.domain.identities.create(w.owner, { parent: w.org, name: 'robot', claimMatch: { issuer: 'https://ci.test', subjectPattern: 'repo:.*' } });
  const exact = await w.domain.identities.update(w.owner, made.uid, changes({ 'claimMatch.subject': 'repo:y' }));
  t.deepEqual(exact.data.claimMatch, { issuer: 'https://ci.test', subject: 'repo:y' });

  const both = await refusal(t, w.domain.identities.update(w.owner, made.uid, changes({ 'claimMatch.subject': 'a', 'claimMatch.subjectPattern': 'b.*' })));
  t.is(both.code, Code.INVALID_ARGUMENT);
  t.true(both.fields.every((f) => f.startsWith('claimMatch')), both.fields.join());

  const taken = await refusal(t, w.domain.identities.update(w.owner, made.uid, changes({ 'claimMatch.issuer': ISSUER, 'claimMatch.subject': 'owner' })));
  t.is(taken.code, Code.ALREADY_EXISTS);
  t.deepEqual((await w.domain.identities.get(w.owner, made.uid)).data.claimMatch, { issuer: 'https://ci.test', subject: 'repo:y' });
});

test('no escalation through identities: changing who an identity is, or deleting it, needs to be able to grant each of its bindings', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const powerful = await w.domain.identities.create(w.owner, { parent: sub, name: 'powerful', claimMatch: { issuer: 'https://ci.test', subject: 'deploy' } });
  await w.domain.roleBindings.create(w.owner, { parent: w.org, identityUid: powerful.uid, roleUid: builtinRoleUid('owner') });
  const subOwner = await w.person('sub-owner', [{ role: 'owner', on: sub }]);
  const before = w.committed();

  const moved = await refusal(t, w.domain.identities.update(subOwner, powerful.uid, changes({ 'claimMatch.subject': 'mine-now' })));
  t.is(moved.code, Code.PERMISSION_DENIED);
  const deleted = await refusal(t, w.domain.identities.delete(subOwner, powerful.uid));
  t.is(deleted.code, Code.PERMISSION_DENIED);
  t.is(w.committed(), before);

  // Its name is not who it is: that change needs nothing more.
  const renamed = await w.domain.identities.update(subOwner, powerful.uid, changes({ name: 'renamed' }));
  t.is(renamed.name, 'renamed');
});

test("deleting an identity deletes its role bindings with it", async (t) => {
  const w = await world(t);
  const person = await w.person('person', [{ role: 'viewer', on: w.org }]);
  const bindingsOf = async () => {
    const out: string[] = [];
    for (const uid of await w.listed('roleBindings', w.owner)) if ((await w.domain.roleBindings.get(w.owner, uid)).data.identityUid === person.identityUid) out.push(uid);
    return out;
  };
  t.is((await bindingsOf()).length, 1);
  await w.domain.identities.delete(w.owner, person.identityUid);
  t.deepEqual(await bindingsOf(), []);
  t.is((await refusal(t, w.domain.identities.get(w.owner, person.identityUid))).code, Code.NOT_FOUND);
});

const KEYS = { issuer: 'https://keys.test', subject: 'robot', issuerKeys: '{"keys":[]}' };

test('static keys expire at most 365 days after creation, by default then; a past expiry is refused', async (t) => {
  const w = await world(t);
  const made = await w.domain.identities.create(w.owner, { parent: w.org, name: 'keys', staticKeys: KEYS });
  t.is(made.data.staticKeys?.expirationTime, '2027-03-01T12:00:00.000Z');

  const tooLate = await refusal(t, w.domain.identities.create(w.owner, { parent: w.org, name: 'late', staticKeys: { ...KEYS, expirationTime: '2028-01-01T00:00:00Z' } }));
  t.is(tooLate.code, Code.INVALID_ARGUMENT);
  t.deepEqual(tooLate.fields, ['identity.staticKeys.expirationTime']);
  const past = await refusal(t, w.domain.identities.create(w.owner, { parent: w.org, name: 'past', staticKeys: { ...KEYS, expirationTime: '2020-01-01T00:00:00Z' } }));
  t.deepEqual(past.fields, ['identity.staticKeys.expirationTime']);
});

test('an update holds name, description and email to their rules; an empty email clears it', async (t) => {
  const w = await world(t);
  const made = await w.domain.identities.create(w.owner, { parent: w.org, name: 'mail', email: 'a@example.com', claimMatch: { issuer: 'https://ci.test', subject: 'm' } });
  const bad = await refusal(t, w.domain.identities.update(w.owner, made.uid, changes({ name: '', email: 'not an email' })));
  t.is(bad.code, Code.INVALID_ARGUMENT);
  t.deepEqual(bad.fields, ['name', 'email']);
  const cleared = await w.domain.identities.update(w.owner, made.uid, changes({ email: '' }));
  t.is(cleared.data.email, undefined);
});
