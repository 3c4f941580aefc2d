// Reads, called on the domain: a principal sees the subtrees where it holds the resource's
// `.list` and nothing else; a get outside them is PERMISSION_DENIED, a missing uid NOT_FOUND;
// built-in roles are seen by anyone who may list roles somewhere.
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { SERVE } from '../../src/server/auth/principal.js';
import { insertLibrary } from '../../src/server/domain/catalogue.js';
import { commit } from '../../src/server/domain/context.js';
import { builtinRoleUid } from '../../src/server/domain/records.js';
import { refusal, world } from './world.js';

test('a viewer of one subtree lists that subtree alone, whatever scope it asks for', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  const a1 = await w.group(a, 'a1');
  const b = await w.group(w.org, 'b');
  await w.group(b, 'b1');
  const viewer = await w.person('viewer', [{ role: 'viewer', on: a }]);

  t.deepEqual((await w.listed('groups', viewer)).sort(), [a, a1].sort());
  t.deepEqual(await w.listed('groups', viewer, { descendantsOf: b }), [], 'a scope outside its grants shows nothing');
  t.deepEqual(await w.listed('groups', viewer, { childrenOf: a }), [a1]);
  t.is((await w.listed('groups', w.owner)).length, 5, 'the owner sees the organization and all four');
});

test('a get outside the caller’s subtrees is PERMISSION_DENIED; a uid that names nothing is NOT_FOUND', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  const b = await w.group(w.org, 'b');
  const viewer = await w.person('viewer', [{ role: 'viewer', on: a }]);
  t.is((await w.domain.groups.get(viewer, a)).uid, a);
  t.is((await refusal(t, w.domain.groups.get(viewer, b))).code, Code.PERMISSION_DENIED);
  t.is((await refusal(t, w.domain.groups.get(viewer, w.org))).code, Code.PERMISSION_DENIED, 'a grant below does not reach up');
  t.is((await refusal(t, w.domain.groups.get(viewer, `${a}/0000000000000000`))).code, Code.NOT_FOUND);
});

test('each resource is scoped by its own capability: a role holding groups.list alone lists no identity, role binding or repo', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  await w.domain.repos.create(w.owner, { parent: a, name: 'app' });
  const groupsOnly = await w.domain.roles.create(w.owner, { parent: w.org, name: 'groups-only', capabilities: ['groups.list'] });
  const person = await w.person('person', [{ role: groupsOnly.uid, on: a }]);
  t.deepEqual(await w.listed('groups', person), [a]);
  t.deepEqual(await w.listed('repos', person), []);
  t.deepEqual(await w.listed('roleBindings', person), []);
  t.deepEqual(await w.listed('identities', person), []);
});

test('built-in roles are seen by anyone who may list roles somewhere, and by no one else', async (t) => {
  const w = await world(t);
  const a = await w.group(w.org, 'a');
  const viewer = await w.person('viewer', [{ role: 'viewer', on: a }]);
  t.is((await w.domain.roles.get(viewer, builtinRoleUid('owner'))).name, 'owner');
  t.true((await w.listed('roles', viewer)).includes(builtinRoleUid('editor')));

  const groupsOnly = await w.domain.roles.create(w.owner, { parent: w.org, name: 'groups-only', capabilities: ['groups.list'] });
  const blind = await w.person('blind', [{ role: groupsOnly.uid, on: a }]);
  t.is((await refusal(t, w.domain.roles.get(blind, builtinRoleUid('owner')))).code, Code.PERMISSION_DENIED);
  t.deepEqual(await w.listed('roles', blind), []);
});

test('a principal with no binding at all sees nothing and may do nothing', async (t) => {
  const w = await world(t);
  const nobody = await w.person('nobody', []);
  t.deepEqual(await w.listed('groups', nobody), []);
  t.is((await refusal(t, w.domain.groups.get(nobody, w.org))).code, Code.PERMISSION_DENIED);
  t.is((await refusal(t, w.domain.groups.create(nobody, { parent: w.org, name: 'x' }))).code, Code.PERMISSION_DENIED);
});

test('the library catalogue: ecosystems is required and checked (INVALID_ARGUMENT on ecosystems); reading it needs libraries.artifacts.list (the published ListArtifacts rule) on some group', async (t) => {
  const w = await world(t);
  await commit(w.domain.context, SERVE, 'test', () => insertLibrary(w.domain.context, { name: 'requests', ecosystem: 'PYTHON', versions: [{ version: '2.0.0' }, { version: '2.1.0' }] }));
  const none = await refusal(t, w.domain.artifacts.list(w.owner, {}));
  t.deepEqual(none.fields, ['ecosystems']);
  const odd = await refusal(t, w.domain.artifacts.list(w.owner, { filters: { ecosystems: ['COBOL'] } }));
  t.deepEqual(odd.fields, ['ecosystems']);
  const page = await w.domain.artifacts.list(w.owner, { filters: { ecosystems: ['python'] } });
  t.deepEqual(page.items.map((r) => [r.name, r.kind === 'artifact' && r.data.latestVersion]), [['requests', '2.1.0']]);

  const nobody = await w.person('nobody', []);
  t.is((await refusal(t, w.domain.artifacts.list(nobody, { filters: { ecosystems: ['PYTHON'] } }))).code, Code.PERMISSION_DENIED);
  t.is((await refusal(t, w.domain.artifacts.access(nobody))).code, Code.PERMISSION_DENIED);
});
