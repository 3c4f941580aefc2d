// `pctl events …` end to end: subscriptions (a registry resource under the events group), the
// delivery log, redeliver and watch, the real CLI in-process against a real serve.
import test from 'ava';
import net from 'node:net';
import { cli, lines, serveWithCli } from './helpers/cli.js';
import type { TestServer } from './helpers/serve.js';

let srv: TestServer;
let pctl: ReturnType<typeof cli>;
let stop: () => Promise<void>;

test.before(async () => {
  ({ srv, pctl, stop } = await serveWithCli());
});
test.after.always(() => stop?.());

test('subscriptions: create with the parent by name, list, get, delete; a sink that is not https is a usage error', async (t) => {
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'subscribed' } });
  const bad = await pctl(['events', 'subscriptions', 'create', '--parent', 'subscribed', '--sink', 'http://hooks.example.com/x']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /sink: must be an https URL/);
  // A loopback port nothing listens on (any more): every attempt fails at once.
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const sink = `http://127.0.0.1:${port}/hook`;
  const created = await pctl(['events', 'subscriptions', 'create', '--parent', 'subscribed', '--sink', sink, '-o', 'json']);
  t.is(created.code, 0, created.stderr);
  const sub = JSON.parse(created.stdout) as { uid: string; sink: string };
  t.is(sub.sink, sink);
  const listed = await pctl(['events', 'subscriptions', 'list', '--group', 'subscribed', '-o', 'id']);
  t.deepEqual(lines(listed.stdout), [sub.uid]);
  const got = await pctl(['events', 'subscriptions', 'get', sub.uid]);
  t.true(got.stdout.includes(sink));

  // Its own created event could not be delivered: the log says why, and redeliver queues it again.
  let failedOnce;
  for (;;) {
    const log = await pctl(['events', 'deliveries', '--subscription', sub.uid, '-o', 'json']);
    t.is(log.code, 0, log.stderr);
    failedOnce = (JSON.parse(log.stdout) as { id: number; attempts: number; lastError?: string; type: string }[]).find((d) => d.attempts >= 1);
    if (failedOnce) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.is(failedOnce.type, 'dev.chainguard.api.events.subscription.created.v1');
  t.regex(failedOnce.lastError ?? '', /ECONNREFUSED/);
  const table = await pctl(['events', 'deliveries', '--subscription', sub.uid]);
  t.regex(table.stdout, /pending/);
  const again = await pctl(['events', 'redeliver', String(failedOnce.id)]);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stderr, /is pending again/);
  t.is((await pctl(['events', 'redeliver', 'x'])).code, 2);
  t.is((await pctl(['events', 'redeliver', '99999999'])).code, 3);

  const del = await pctl(['events', 'subscriptions', 'delete', sub.uid, '--yes']);
  t.is(del.code, 0, del.stderr);
  t.deepEqual(lines((await pctl(['events', 'subscriptions', 'list', '--group', 'subscribed', '-o', 'id'])).stdout), []);
});

test('watch: prints the events of a subtree as they commit, filtered by type, resumable from a sequence number', async (t) => {
  const team = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'watched' } });
  const from = (await srv.ok('GET', '/_pctl/events')).last as number;
  const watching = pctl(['events', 'watch', '--descendants-of', 'watched', '--type', 'dev.chainguard.api.iam.group.*', '--after', String(from), '--count', '2', '-o', 'ndjson']);
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'not-watched' } });
  const a = await srv.ok('POST', '/iam/v2/groups', { parent: team.uid, group: { name: 'w1' } });
  await srv.ok('POST', '/iam/v2/identities', { parent: team.uid, identity: { name: 'not-a-group', claimMatch: { issuer: 'https://i.example', subject: 's' } } });
  const b = await srv.ok('POST', '/iam/v2/groups', { parent: a.uid, group: { name: 'w2' } });
  const r = await watching;
  t.is(r.code, 0, r.stderr);
  const events = lines(r.stdout).map((l) => JSON.parse(l) as { seq: number; type: string; subject: string; data: { actor: { subject: string } } });
  t.deepEqual(events.map((e) => [e.type, e.subject]), [
    ['dev.chainguard.api.iam.group.created.v1', a.uid],
    ['dev.chainguard.api.iam.group.created.v1', b.uid],
  ]);
  t.is(events[0]!.data.actor.subject, srv.ownerIdentityUid);
  const resumed = await pctl(['events', 'watch', '--descendants-of', team.uid, '--after', String(events[0]!.seq), '--count', '1']);
  t.regex(resumed.stdout, new RegExp(`\\tdev\\.chainguard\\.api\\.iam\\.identity\\.created\\.v1\\t${team.uid}/`));
  t.is((await pctl(['events', 'watch', '--count', '0'])).code, 2);
});

test('watch without --after: starts from the newest event and prints the first change made after it', async (t) => {
  const team = await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'watched-now' } });
  const before = (await srv.ok('GET', '/_pctl/events')).last as number;
  const watching = pctl(['events', 'watch', '--descendants-of', 'watched-now', '--count', '1', '-o', 'json']);
  let settled = false;
  void watching.finally(() => { settled = true; });
  // The watch reads where the feed stands when it starts, which the test cannot see: make
  // changes until it prints one (each commit is an event it will see once it has started).
  const made: string[] = [];
  while (!settled && made.length < 500) made.push((await srv.ok('POST', '/iam/v2/groups', { parent: team.uid, group: { name: `c${made.length}` } })).uid);
  const r = await watching;
  t.is(r.code, 0, r.stderr);
  const [event] = lines(r.stdout).map((l) => JSON.parse(l) as { seq: number; type: string; subject: string });
  t.is(event!.type, 'dev.chainguard.api.iam.group.created.v1');
  t.true(made.includes(event!.subject));
  t.true(event!.seq > before, 'nothing from before the watch started');
});
