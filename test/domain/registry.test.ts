// Repos, tags and account associations, called on the domain: names unique among siblings,
// field rules (every violation at once), a repo's tags go with it, one association a group.
import test from 'ava';
import { Code } from '../../src/api/errors.js';
import { changes, refusal, world } from './world.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

test("a repo's name is unique in its group (ALREADY_EXISTS on create and on rename); its fields are held to their rules", async (t) => {
  const w = await world(t);
  await w.domain.repos.create(w.owner, { parent: w.org, name: 'app' });
  const other = await w.domain.repos.create(w.owner, { parent: w.org, name: 'other' });
  const before = w.committed();
  t.is((await refusal(t, w.domain.repos.create(w.owner, { parent: w.org, name: 'app' }))).code, Code.ALREADY_EXISTS);
  t.is((await refusal(t, w.domain.repos.update(w.owner, other.uid, changes({ name: 'app' })))).code, Code.ALREADY_EXISTS);

  const bad = await refusal(t, w.domain.repos.create(w.owner, { parent: w.org, name: 'fine', catalogTier: 'GOLD', bundles: [''], syncConfig: {} }));
  t.is(bad.code, Code.INVALID_ARGUMENT);
  t.deepEqual(bad.fields, ['catalogTier', 'bundles', 'syncConfig']);
  t.deepEqual((await refusal(t, w.domain.repos.create(w.owner, { parent: w.org, name: 'Not A Repo Name!' }))).fields, ['name']);
  t.deepEqual((await refusal(t, w.domain.repos.update(w.owner, other.uid, changes({ readme: 'x'.repeat(64 * 1024 + 1) })))).fields, ['readme']);
  t.is(w.committed(), before);
  t.is((await w.domain.repos.get(w.owner, other.uid)).name, 'other');
});

test("a repo's catalogue fields are stored as given, cleared by their default value; its README is read on its own", async (t) => {
  const w = await world(t);
  const repo = await w.domain.repos.create(w.owner, { parent: w.org, name: 'app', catalogTier: 'CATALOG_TIER_BASE', aliases: ['a'], readme: '# App' });
  t.is(repo.data.catalogTier, 'CATALOG_TIER_BASE');
  t.is((await w.domain.repos.readme(w.owner, repo.uid)).content, '# App');
  const cleared = await w.domain.repos.update(w.owner, repo.uid, changes({ catalogTier: 'CATALOG_TIER_UNSPECIFIED', aliases: [] }));
  t.is(cleared.data.catalogTier, undefined);
  t.is(cleared.data.aliases, undefined);
});

test('tags: an OCI name and a sha256 digest, unique in their repo; listing the tags of a missing repo is NOT_FOUND; a repo goes with its tags', async (t) => {
  const w = await world(t);
  const repo = await w.domain.repos.create(w.owner, { parent: w.org, name: 'app' });
  const bad = await refusal(t, w.domain.tags.create(w.owner, { parent: repo.uid, name: '-bad', digest: 'md5:x' }));
  t.is(bad.code, Code.INVALID_ARGUMENT);
  t.deepEqual(bad.fields, ['name', 'digest']);
  const tag = await w.domain.tags.create(w.owner, { parent: repo.uid, name: 'v1', digest: DIGEST });
  t.is((await refusal(t, w.domain.tags.create(w.owner, { parent: repo.uid, name: 'v1', digest: DIGEST }))).code, Code.ALREADY_EXISTS);

  const missing = await refusal(t, w.domain.tags.list(w.owner, { childrenOf: `${w.org}/0000000000000000` }));
  t.is(missing.code, Code.NOT_FOUND);
  t.deepEqual(missing.fields, ['uidp.children_of']);

  await w.domain.repos.delete(w.owner, repo.uid);
  t.is((await refusal(t, w.domain.tags.get(w.owner, tag.uid))).code, Code.NOT_FOUND);
});

test('a group has at most one account association (ALREADY_EXISTS); an update that leaves a provider block half-filled is refused; check judges format only', async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const made = await w.domain.accountAssociations.create(w.owner, { parent: sub, name: 'cloud', google: { projectId: 'project-1', projectNumber: '123' } });
  t.is((await refusal(t, w.domain.accountAssociations.create(w.owner, { parent: sub, name: 'again' }))).code, Code.ALREADY_EXISTS);

  const before = w.committed();
  const half = await refusal(t, w.domain.accountAssociations.update(w.owner, sub, changes({ 'google.projectNumber': undefined })));
  t.is(half.code, Code.INVALID_ARGUMENT);
  t.is(w.committed(), before);

  t.like(await w.domain.accountAssociations.check(w.owner, sub, 'GOOGLE'), { status: 'READY', reason: 'FORMAT_VALID' });
  t.like(await w.domain.accountAssociations.check(w.owner, sub, 'AMAZON'), { status: 'NOT_READY', reason: 'NOT_CONFIGURED' });
  t.is(made.parent, sub);
});

test("an account association's provider blocks are held to their formats on create as on update: a malformed one is INVALID_ARGUMENT naming it, and nothing is made", async (t) => {
  const w = await world(t);
  const sub = await w.group(w.org, 'sub');
  const before = w.committed();
  const r = await refusal(t, w.domain.accountAssociations.create(w.owner, { parent: sub, name: 'cloud', google: { projectId: 'Not A Project', projectNumber: 'abc' } }));
  t.is(r.code, Code.INVALID_ARGUMENT);
  t.deepEqual([...r.fields].sort(), ['google.projectId', 'google.projectNumber']);
  t.is(w.committed(), before);
  t.is((await refusal(t, w.domain.accountAssociations.get(w.owner, sub))).code, Code.NOT_FOUND);
});
