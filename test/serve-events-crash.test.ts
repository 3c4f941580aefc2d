// The outbox survives a crash: `kill -9` of serve (a real process over a data dir) right after
// a create was acknowledged, then a restart on the same data dir: the event is delivered. The
// event was committed with the write it describes, so an acknowledged write has its event.
import test from 'ava';
import { request } from './helpers/http.js';
import { startReceiver } from './helpers/receiver.js';
import { cleanup, killHard, startServe, stopServe, tempDir } from './stress/helpers.js';

test.after.always(cleanup);

test('kill -9 right after an acknowledged create, then a restart: the event is delivered', async (t) => {
  const dataDir = tempDir('pctl-events-crash-');
  const retry = ['--event-retry', '20ms', '--event-attempts', '100'];
  const first = await startServe(dataDir, { args: retry });
  const as = (srv: { url: string; token: string }) => (method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${srv.token}` });
  const call = as(first);
  const org = (await call('GET', '/iam/v2/groups?page_size=1')).json.groups[0].uid as string;
  const team = (await call('POST', '/iam/v2/groups', { parent: org, group: { name: 'team' } })).json;
  // Until the restart the sink fails every attempt: nothing can be delivered before the kill.
  let up = false;
  const rx = await startReceiver({ issuer: first.url, group: team.uid, answer: () => (up ? 200 : 503) });
  t.teardown(() => rx.close());
  t.is((await call('POST', '/events/v2/subscriptions', { parent: team.uid, subscription: { sink: rx.url } })).status, 200);
  const created = await call('POST', '/iam/v2/groups', { parent: team.uid, group: { name: 'acknowledged' } });
  t.is(created.status, 200);
  await killHard(first.child);
  t.false(rx.received.some((r) => r.status === 200), 'nothing was delivered before the kill');

  up = true;
  const second = await startServe(dataDir, { args: retry });
  t.teardown(() => stopServe(second).then(() => undefined));
  for (;;) {
    const r = await rx.next();
    if (r.status === 200 && r.event.subject === created.json.uid) {
      t.is(r.event.type, 'dev.chainguard.api.iam.group.created.v1');
      t.like(r.event.data, { body: { name: 'acknowledged' } });
      break;
    }
  }
  const log = (await as(second)('GET', '/_pctl/deliveries?state=delivered')).json.deliveries as { subject: string }[];
  t.true(log.some((d) => d.subject === created.json.uid));
});
