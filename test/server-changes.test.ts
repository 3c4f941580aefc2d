// The change feed: every committed write through the API comes out as typed changes (kind,
// uid, verb, the record, who, when, by which operation, a growing seq), in commit order; an
// in-transaction hook commits rows of its own with the write, or fails it as a whole.
import test from 'ava';
import { rmSync } from 'node:fs';
import { ApiError, Code } from '../src/api/errors.js';
import type { ResourceChange } from '../src/server/store/changes.js';
import { startTestServer, tempDir } from './helpers/serve.js';

const G = '/iam/v2/groups';
const I = '/iam/v2/identities';
const RB = '/iam/v2/roleBindings';

/** A request's token was seen: the identity's lastSeenTime, written by serve (a change too, left out here). */
const notTouch = (c: ResourceChange) => c.operation !== 'identities.touch';

test('API writes come out of the feed in commit order, with the actor, the operation and the record', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const seen: ResourceChange[] = [];
  srv.store.changes.subscribe((changes) => seen.push(...changes.filter(notTouch)));

  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  await srv.ok('PATCH', `${G}/${team.uid}`, { description: 'the team' });
  const bot = await srv.ok('POST', I, { parent: team.uid, identity: { name: 'bot', claimMatch: { issuer: 'https://ci.example', subject: 'bot' } } });
  const binding = await srv.ok('POST', RB, { parent: team.uid, roleBinding: { identityUid: bot.uid, roleUid: await srv.roleUid('viewer') } });
  // Deleting the identity takes its binding with it: two changes of one write.
  await srv.ok('DELETE', `${I}/${bot.uid}`);

  t.deepEqual(seen.map((c) => [c.kind, c.verb, c.uid, c.operation]), [
    ['group', 'created', team.uid, 'groups.create'],
    ['group', 'updated', team.uid, 'groups.update'],
    ['identity', 'created', bot.uid, 'identities.create'],
    ['roleBinding', 'created', binding.uid, 'roleBindings.create'],
    ['roleBinding', 'deleted', binding.uid, 'identities.delete'],
    ['identity', 'deleted', bot.uid, 'identities.delete'],
  ]);
  t.true(seen.every((c) => c.actor === srv.ownerIdentityUid));
  t.true(seen.every((c, i) => i === 0 || c.seq > seen[i - 1]!.seq), 'seq grows in commit order');
  const updated = seen[1]!.record;
  t.is(updated.kind === 'group' && updated.data.description, 'the team', 'an update carries the record after it');
  t.is(seen[5]!.record.name, 'bot', 'a delete carries the record before it');
  t.regex(seen[0]!.time, /^\d{4}-\d\d-\d\dT/);
});

test('an in-transaction hook commits its outbox rows with the write; one that throws fails the write and nothing of it stays', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  let refuse = false;
  srv.store.changes.inTransaction((changes) => {
    if (refuse) throw new ApiError(Code.UNAVAILABLE, 'the outbox is full', { reason: 'OUTBOX_FULL' });
    for (const c of changes.filter(notTouch)) srv.store.putEntry('test-outbox', String(c.seq).padStart(12, '0'), `${c.kind} ${c.verb} ${c.uid}`);
  });

  const a = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'a' } });
  t.deepEqual(srv.store.entries('test-outbox').map(([, v]) => v), [`group created ${a.uid}`]);

  refuse = true;
  const res = await srv.call('POST', G, { parent: srv.organizationUid, group: { name: 'b' } });
  t.is(res.status, 503);
  t.is(res.json.code, 14);
  refuse = false;
  const names = (await srv.ok('GET', `${G}?uidp.children_of=${srv.organizationUid}`)).groups.map((g: { name: string }) => g.name);
  t.deepEqual(names, ['a'], 'the refused write left no group behind');
  t.is(srv.store.entries('test-outbox').length, 1);
});

test('the seq keeps growing across a restart of the same data dir', async (t) => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir });
  const seen: ResourceChange[] = [];
  first.store.changes.subscribe((changes) => seen.push(...changes.filter(notTouch)));
  await first.ok('POST', G, { parent: first.organizationUid, group: { name: 'before' } });
  await first.close();
  const again = await startTestServer({ dataDir });
  t.teardown(async () => {
    await again.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
  again.store.changes.subscribe((changes) => seen.push(...changes.filter(notTouch)));
  await again.ok('POST', G, { parent: again.organizationUid, group: { name: 'after' } });
  t.deepEqual(seen.map((c) => c.record.name), ['before', 'after']);
  t.true(seen[1]!.seq > seen[0]!.seq);
});
