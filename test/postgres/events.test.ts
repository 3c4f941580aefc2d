// Webhook deliveries with replicas on one PostgreSQL database: each event is claimed by one
// replica (FOR UPDATE SKIP LOCKED and a lease), so a sink gets it once, not once per replica,
// and still in commit order, whichever replica took the write.
import test from 'ava';
import { sharedTestDatabase } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/serve.js';

const G = '/iam/v2/groups';

test.serial('two replicas: every event arrives once, in commit order, signed by the shared issuer', async (t) => {
  const database = await sharedTestDatabase(t);
  const replicas: TestServer[] = [];
  for (let i = 0; i < 2; i++) {
    const srv = await startTestServer({ database, eventRetry: { baseMs: 5, maxDelayMs: 20, attempts: 3 } });
    t.teardown(() => srv.dispose());
    replicas.push(srv);
  }
  const [a, b] = replicas as [TestServer, TestServer];
  const team = await a.ok('POST', G, { parent: a.organizationUid, group: { name: 'team' } });
  const rx = await startReceiver({ issuer: a.url, group: team.uid });
  t.teardown(() => rx.close());
  await b.ok('POST', '/events/v2/subscriptions', { parent: team.uid, subscription: { sink: rx.url } });
  t.is((await rx.next()).event.type, 'dev.chainguard.api.events.subscription.created.v1');

  const created: string[] = [];
  for (let i = 0; i < 30; i++) created.push((await (i % 2 ? a : b).ok('POST', G, { parent: team.uid, group: { name: `g${i}` } })).uid);
  const got = [];
  for (let i = 0; i < created.length; i++) got.push(await rx.next());
  t.deepEqual(got.map((r) => r.event.subject), created, 'each event once, in commit order');
  for (const r of got) t.is(r.problem, undefined);
  // A last event, past every earlier one in the subscription's queue: nothing came twice before it.
  const last = await a.ok('POST', G, { parent: team.uid, group: { name: 'last' } });
  t.is((await rx.next()).event.subject, last.uid);
  t.is(rx.received.length, created.length + 2);
  t.is(new Set(rx.received.map((r) => r.event.id)).size, rx.received.length);
});
