// Groups' rules, called on the domain: the parent must exist, the caller must hold the
// capability there, names are held to their rule, a kind is set on a verified organization
// alone, and only an empty group can go. A refusal commits nothing.
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { changes, refusal, world } from './world.js';

test('a group is created below an existing group; a missing parent is NOT_FOUND on parent and commits nothing', async (t) => {
  const w = await world(t);
  const made = await w.domain.groups.create(w.owner, { parent: w.org, name: 'platform' });
  t.is(made.parent, w.org);
  t.true(made.uid.startsWith(`${w.org}/`));
  t.is((await w.domain.groups.get(w.owner, made.uid)).name, 'platform');

  const before = w.committed();
  const missing = `${w.org}/0123456789abcdef`;
  const r = await refusal(t, w.domain.groups.create(w.owner, { parent: missing, name: 'orphan' }));
  t.is(r.code, Code.NOT_FOUND);
  t.deepEqual(r.fields, ['parent']);
  t.is(w.committed(), before);
});

test('creating a group needs groups.create on the parent: a viewer is PERMISSION_DENIED and nothing is made', async (t) => {
  const w = await world(t);
  const viewer = await w.person('viewer', [{ role: 'viewer', on: w.org }]);
  const before = w.committed();
  const r = await refusal(t, w.domain.groups.create(viewer, { parent: w.org, name: 'nope' }));
  t.is(r.code, Code.PERMISSION_DENIED);
  t.is(w.committed(), before);
  t.false((await w.listed('groups', w.owner)).some((uid) => uid !== w.org), 'no group was made');
});

test("a subgroup's kind is inherited: create and update refuse it on the kind field", async (t) => {
  const w = await world(t);
  const created = await refusal(t, w.domain.groups.create(w.owner, { parent: w.org, name: 'x', kind: 'ORG_KIND_CUSTOMER' }));
  t.is(created.code, Code.INVALID_ARGUMENT);
  t.deepEqual(created.fields, ['group.kind']);

  const sub = await w.group(w.org, 'sub');
  const before = w.committed();
  const updated = await refusal(t, w.domain.groups.update(w.owner, sub, changes({ kind: 'ORG_KIND_CUSTOMER' })));
  t.is(updated.code, Code.INVALID_ARGUMENT);
  t.deepEqual(updated.fields, ['kind']);
  t.is(w.committed(), before);
});

test("an organization's kind needs it verified first (FAILED_PRECONDITION NOT_VERIFIED); verified in the same update, the kind is set", async (t) => {
  const w = await world(t);
  const r = await refusal(t, w.domain.groups.update(w.owner, w.org, changes({ kind: 'ORG_KIND_CUSTOMER' })));
  t.is(r.code, Code.FAILED_PRECONDITION);
  t.deepEqual(r.preconditions, ['NOT_VERIFIED']);
  t.false((await w.domain.groups.get(w.owner, w.org)).data.verified === true, 'the refused update changed nothing');

  const bad = await refusal(t, w.domain.groups.update(w.owner, w.org, changes({ verified: true, kind: 'NOT_A_KIND' })));
  t.deepEqual(bad.fields, ['kind']);

  const org = await w.domain.groups.update(w.owner, w.org, changes({ verified: true, kind: 'ORG_KIND_CUSTOMER' }));
  t.is(org.data.kind, 'ORG_KIND_CUSTOMER');
  t.is(org.data.verified, true);
});

test('an update holds name and description to their create rules, every violation at once; a non-boolean verified is refused', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const before = w.committed();
  const r = await refusal(t, w.domain.groups.update(w.owner, sub, changes({ name: '', description: 'x'.repeat(100_000) })));
  t.is(r.code, Code.INVALID_ARGUMENT);
  t.deepEqual(r.fields, ['name', 'description']);
  const v = await refusal(t, w.domain.groups.update(w.owner, sub, changes({ verified: 'yes' })));
  t.deepEqual(v.fields, ['verified']);
  t.is(w.committed(), before);
  t.is((await w.domain.groups.get(w.owner, sub)).name, 'sub');
});

test('an update that changes nothing writes nothing and keeps updateTime', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const first = await w.domain.groups.get(w.owner, sub);
  w.advance(60_000);
  const before = w.committed();
  const same = await w.domain.groups.update(w.owner, sub, changes({}));
  t.is(same.updateTime, first.updateTime);
  t.is(w.committed(), before);
  const renamed = await w.domain.groups.update(w.owner, sub, changes({ name: 'renamed' }));
  t.not(renamed.updateTime, first.updateTime);
});

test('a group that still holds anything cannot be deleted (FAILED_PRECONDITION RESOURCE_NOT_EMPTY, naming what it holds); empty, it goes', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const child = await w.group(sub, 'child');
  await w.domain.repos.create(w.owner, { parent: sub, name: 'app' });
  const before = w.committed();
  const r = await refusal(t, w.domain.groups.delete(w.owner, sub));
  t.is(r.code, Code.FAILED_PRECONDITION);
  t.deepEqual(r.preconditions, ['RESOURCE_NOT_EMPTY']);
  t.regex(r.message, /1 group/);
  t.regex(r.message, /1 repo/);
  t.is(w.committed(), before);

  await w.domain.groups.delete(w.owner, child);
  const [repo] = await w.listed('repos', w.owner, { childrenOf: sub });
  await w.domain.repos.delete(w.owner, repo!);
  await w.domain.groups.delete(w.owner, sub);
  const gone = await refusal(t, w.domain.groups.get(w.owner, sub));
  t.is(gone.code, Code.NOT_FOUND);
});

test('deleting needs groups.delete on the group itself: an editor below is refused and the group stays', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const editor = await w.person('editor', [{ role: 'editor', on: sub }]);
  const r = await refusal(t, w.domain.groups.delete(editor, sub));
  t.is(r.code, Code.PERMISSION_DENIED);
  t.is((await w.domain.groups.get(w.owner, sub)).uid, sub);
});

test("a group's name is held to its rule by the domain itself, whichever surface calls: a bad one is INVALID_ARGUMENT on name and nothing is made", async (t) => {
  const w = await world(t);
  const before = w.committed();
  for (const name of ['', 'Upper', 'a/b', 'x'.repeat(256)]) {
    const r = await refusal(t, w.domain.groups.create(w.owner, { parent: w.org, name }));
    t.is(r.code, Code.INVALID_ARGUMENT, name);
    t.deepEqual(r.fields, ['name'], name);
  }
  t.is(w.committed(), before);
});
