// Change events (docs/events.md): subscriptions at /events/v2/subscriptions, and every committed
// create, update and delete as a CloudEvent POSTed to the sinks of the group and its ancestors.
// The receiver is built with the CloudEvents SDK and checks every token with jose against
// serve's JWKS (test/helpers/receiver.ts). Tests wait for deliveries, never for time.
import test, { type ExecutionContext } from 'ava';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { closeAgent } from '../src/client/http.js';
import { cli } from './helpers/cli.js';
import { startReceiver, type Receiver, type ReceiverOptions } from './helpers/receiver.js';
import { startTestServer, tempDir, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
const SUBS = '/events/v2/subscriptions';
/** Retries in milliseconds, so that a test of retries takes no time. */
const FAST = { baseMs: 5, maxDelayMs: 20, attempts: 3 };
const enc = encodeURIComponent;

async function setup(t: ExecutionContext, opts: Parameters<typeof startTestServer>[0] = {}) {
  const srv = await startTestServer({ eventRetry: FAST, ...opts });
  t.teardown(() => srv.dispose());
  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  /** A receiver subscribed to `group` (default: team), past the subscription's own created event. */
  const subscribe = async (receiver: Omit<ReceiverOptions, 'issuer' | 'group'> = {}, group: string = team.uid) => {
    const rx = await startReceiver({ issuer: srv.url, group, ...receiver });
    t.teardown(() => rx.close());
    const sub = await srv.ok('POST', SUBS, { parent: group, subscription: { sink: rx.url } });
    return { rx, sub };
  };
  return { srv, team, subscribe };
}

const pass = (t: ExecutionContext, r: Awaited<ReturnType<Receiver['next']>>) => t.is(r.problem, undefined, 'the token verifies against serve\'s JWKS');

test('a group created, updated and deleted below a subscribed group: three signed CloudEvents, in order, with the pinned types', async (t) => {
  const { srv, team, subscribe } = await setup(t);
  const { rx, sub } = await subscribe();
  const own = await rx.next();
  t.is(own.event.type, 'dev.chainguard.api.events.subscription.created.v1');
  t.is(own.event.subject, sub.uid);

  // Outside the subscribed subtree: never delivered here (the next event is the child's).
  await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'elsewhere' } });
  const child = await srv.ok('POST', G, { parent: team.uid, group: { name: 'child' } });
  await srv.ok('PATCH', `${G}/${child.uid}?update_mask=description`, { description: 'renamed' });
  t.is((await srv.call('DELETE', `${G}/${child.uid}`)).status, 200);

  const [created, updated, deleted] = [await rx.next(), await rx.next(), await rx.next()];
  t.deepEqual([created, updated, deleted].map((r) => r.event.type), [
    'dev.chainguard.api.iam.group.created.v1', 'dev.chainguard.api.iam.group.updated.v1', 'dev.chainguard.api.iam.group.deleted.v1',
  ]);
  for (const r of [created, updated, deleted]) {
    pass(t, r);
    t.is(r.event.subject, child.uid);
    t.is(r.event.specversion, '1.0');
    t.is(r.event.source, `${srv.url}/iam/v2/groups`);
    t.is(r.headers['content-type'], 'application/json');
    t.is(r.claims?.sub, `webhook:${team.uid}`);
    t.deepEqual((r.event.data as { actor: { subject: string } }).actor.subject, srv.ownerIdentityUid);
  }
  // Ce-Group: the group itself for its create and update, its parent for its delete.
  t.deepEqual([created, updated, deleted].map((r) => r.event.group), [child.uid, child.uid, team.uid]);
  t.like(created.event.data, { body: { uid: child.uid, name: 'child' } });
  t.like(updated.event.data, { body: { uid: child.uid, description: 'renamed' } });
  t.deepEqual((deleted.event.data as { body: unknown }).body, { uid: child.uid });
  t.is(new Set([created, updated, deleted].map((r) => r.event.id)).size, 3);
  t.is(rx.received.length, 4, 'nothing from outside the subtree');
});

test('a sink answering 500 twice gets the event on the third attempt, with the same Ce-Id; the delivery log shows it', async (t) => {
  const { srv, team, subscribe } = await setup(t);
  const { rx, sub } = await subscribe({ answer: (n) => (n === 1 || n === 2 ? 500 : 200) });
  await rx.next(); // the subscription's own event
  const g = await srv.ok('POST', G, { parent: team.uid, group: { name: 'retried' } });
  const attempts = [await rx.next(), await rx.next(), await rx.next()];
  t.deepEqual(attempts.map((a) => a.status), [500, 500, 200]);
  t.deepEqual(attempts.map((a) => a.event.subject), [g.uid, g.uid, g.uid]);
  t.is(new Set(attempts.map((a) => a.event.id)).size, 1, 'Ce-Id is stable across retries');
  for (const a of attempts) pass(t, a);
  const log = await waitForDelivery(srv, sub.uid, (d) => d.subject === g.uid && d.state === 'delivered');
  t.like(log, { attempts: 3, lastStatus: 200, eventId: attempts[0]!.event.id, sink: rx.url });
});

test('a sink that keeps failing: marked failed after the attempts, inspectable, and redelivered on request', async (t) => {
  let healthy = false;
  const { srv, team, subscribe } = await setup(t);
  const { rx, sub } = await subscribe({ answer: (n) => (n === 0 || healthy ? 200 : 503) });
  await rx.next();
  const g = await srv.ok('POST', G, { parent: team.uid, group: { name: 'doomed' } });
  for (let i = 0; i < FAST.attempts; i++) t.is((await rx.next()).status, 503);
  const failed = await waitForDelivery(srv, sub.uid, (d) => d.subject === g.uid && d.state === 'failed', '&state=failed');
  t.like(failed, { attempts: FAST.attempts, lastStatus: 503, lastError: 'HTTP 503' });
  // Later events are not held back by a failed one.
  healthy = true;
  await srv.ok('POST', G, { parent: team.uid, group: { name: 'after' } });
  t.like((await rx.next()).event.data, { body: { name: 'after' } });
  const again = await srv.ok('POST', `/_pctl/deliveries/${failed.id}:redeliver`, {});
  t.like(again, { id: failed.id, state: 'pending', attempts: 0 });
  const redelivered = await rx.next();
  t.is(redelivered.event.id, failed.eventId);
  t.is((await waitForDelivery(srv, sub.uid, (d) => d.id === failed.id && d.state === 'delivered')).attempts, 1);
  t.is((await srv.call('POST', '/_pctl/deliveries/999999:redeliver', {})).status, 404);
});

test('a hanging sink holds back only its own subscription: requests and other sinks go on', async (t) => {
  const { srv, team, subscribe } = await setup(t, { eventTimeoutMs: 120_000 });
  const hung = await subscribe({ answer: () => 'hang' });
  await hung.rx.next(); // its first delivery never gets an answer
  const { rx } = await subscribe();
  await rx.next();
  for (let i = 0; i < 5; i++) {
    const g = await srv.ok('POST', G, { parent: team.uid, group: { name: `busy-${i}` } });
    t.is((await srv.call('GET', `${G}/${g.uid}`)).status, 200);
    t.is((await rx.next()).event.subject, g.uid);
  }
  t.is(hung.rx.received.length, 1, 'the hanging sink is not sent its next event before the first is settled');
});

test('secrets never travel: an invite\'s event keeps its uid and expiry, an identity provider\'s has no client secret', async (t) => {
  const { srv, team, subscribe } = await setup(t);
  const { rx } = await subscribe();
  await rx.next();
  const invite = await srv.ok('POST', '/iam/v2/groupInvites', { parent: team.uid, groupInvite: { roleUid: await srv.roleUid('viewer'), ttl: '3600s' } });
  const inviteEvent = await rx.next();
  t.is(inviteEvent.event.type, 'dev.chainguard.api.iam.group_invite.created.v1');
  t.deepEqual((inviteEvent.event.data as { body: unknown }).body, { uid: invite.uid, expirationTime: invite.expirationTime });
  t.false(JSON.stringify(inviteEvent.event.data).includes(invite.code));
  await srv.ok('POST', '/iam/v2/identityProviders', {
    parent: team.uid,
    identityProvider: { name: 'okta', defaultRole: await srv.roleUid('viewer'), oidc: { issuer: 'https://okta.example', clientId: 'app', clientSecret: 'hush-hush-secret' } },
  });
  const idp = await rx.next();
  t.is(idp.event.type, 'dev.chainguard.api.iam.identity_providers.created.v1');
  t.false(JSON.stringify(idp.event.data).includes('hush-hush-secret'));
});

test("actor.act: every validated claim of the caller's token, as text (non-strings as JSON), never the token itself", async (t) => {
  const ci = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(ci.publicKey)), kid: 'ci-1', alg: 'RS256' };
  const ciIssuer = 'https://token.actions.githubusercontent.com';
  // serve's clock stands still: the token cannot run out on a slow machine.
  const now = Math.floor(Date.now() / 1000);
  const { srv, team, subscribe } = await setup(t, { trustedIssuers: { [ciIssuer]: { keys: [jwk] } }, clock: () => now * 1000 });
  const subject = 'repo:acme/app:ref:refs/heads/main';
  const deployer = await srv.ok('POST', '/iam/v2/identities', { parent: srv.organizationUid, identity: { name: 'deployer', claimMatch: { issuer: ciIssuer, subject } } });
  await srv.ok('POST', '/iam/v2/roleBindings', { parent: team.uid, roleBinding: { identityUid: deployer.uid, roleUid: await srv.roleUid('owner') } });
  const claims = {
    iss: ciIssuer, sub: subject, aud: ['pctl', 'sigstore'], iat: now, exp: now + 300,
    email: 'ci@acme.example', 'aws-acct': '123456789012', email_verified: true, groups: ['deploy', 'ops'], ctx: { run: 7 },
  };
  const token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'ci-1' }).sign(ci.privateKey);
  const { rx } = await subscribe();
  await rx.next();

  // The write as a user makes it: pctl with the CI token.
  const pctl = cli({ PCTL_API_URL: srv.url, PCTL_TOKEN: token, PCTL_CONFIG_DIR: tempDir('pctl-cfg-') });
  t.teardown(closeAgent);
  const made = await pctl(['groups', 'create', 'from-ci', '--parent', team.uid, '-o', 'id']);
  t.is(made.code, 0, made.stderr);
  const event = await rx.next();
  t.is(event.event.subject, made.stdout.trim());
  const actor = (event.event.data as { actor: { subject: string; act: Record<string, string> } }).actor;
  t.is(actor.subject, deployer.uid);
  t.deepEqual(actor.act, {
    iss: ciIssuer, sub: subject, aud: '["pctl","sigstore"]', iat: String(now), exp: String(now + 300),
    email: 'ci@acme.example', 'aws-acct': '123456789012', email_verified: 'true', groups: '["deploy","ops"]', ctx: '{"run":7}',
  });
  t.false(JSON.stringify(event.event.data).includes(token.split('.')[2]!), 'not the signature, nor the token');

  // The owner's token (serve's own issuer): its claims too.
  await srv.ok('PATCH', `${G}/${team.uid}?update_mask=description`, { description: 'by the owner' });
  const owner = (((await rx.next()).event.data) as { actor: { subject: string; act: Record<string, string> } }).actor;
  t.is(owner.subject, srv.ownerIdentityUid);
  t.like(owner.act, { iss: srv.url, aud: 'pctl' });
  t.deepEqual(Object.keys(owner.act).sort(), ['aud', 'exp', 'iat', 'iss', 'sub']);
});

test('fault rules reach deliveries: duplicate sends the same Ce-Id twice, drop loses an attempt that is then retried', async (t) => {
  const { srv, team, subscribe } = await setup(t);
  const { rx, sub } = await subscribe();
  await rx.next();
  await srv.ok('POST', '/_pctl/faults', { delivery: `${rx.url}*`, effect: 'duplicate', times: 1 });
  await srv.ok('POST', G, { parent: team.uid, group: { name: 'twice' } });
  const [one, two] = [await rx.next(), await rx.next()];
  t.is(one.event.id, two.event.id);
  await srv.ok('DELETE', '/_pctl/faults');
  await srv.ok('POST', '/_pctl/faults', { delivery: `${rx.url}*`, effect: 'drop', times: 1 });
  const g = await srv.ok('POST', G, { parent: team.uid, group: { name: 'dropped-once' } });
  t.is((await rx.next()).event.subject, g.uid);
  t.like(await waitForDelivery(srv, sub.uid, (d) => d.subject === g.uid && d.state === 'delivered'), { attempts: 2 });
  const bad = await srv.call('POST', '/_pctl/faults', { path: '/iam/v2/groups', effect: 'drop' });
  t.is(bad.status, 400);
});

test('the live feed: every change in commit order, resumable, filtered by subtree and type, and a long poll that waits for the next', async (t) => {
  const { srv, team } = await setup(t);
  const start = (await srv.ok('GET', '/_pctl/events')).last as number;
  const waiting = srv.ok('GET', `/_pctl/events?after=${start}&wait=30&type=${enc('dev.chainguard.api.iam.group.*')}&descendants_of=${enc(team.uid)}`);
  const a = await srv.ok('POST', G, { parent: team.uid, group: { name: 'fed' } });
  const woke = await waiting;
  t.deepEqual(woke.events.map((e: { subject: string }) => e.subject), [a.uid]);
  t.like(woke.events[0], { type: 'dev.chainguard.api.iam.group.created.v1', group: a.uid, data: { body: { name: 'fed' } } });
  await srv.ok('PATCH', `${G}/${a.uid}?update_mask=description`, { description: 'x' });
  await srv.ok('POST', '/iam/v2/identities', { parent: team.uid, identity: { name: 'bot', claimMatch: { issuer: 'https://issuer.example', subject: 'bot' } } });
  const all = await srv.ok('GET', `/_pctl/events?after=${start}`);
  t.deepEqual(all.events.map((e: { type: string }) => e.type), [
    'dev.chainguard.api.iam.group.created.v1', 'dev.chainguard.api.iam.group.updated.v1', 'dev.chainguard.api.iam.identity.created.v1',
  ]);
  const seqs = all.events.map((e: { seq: number }) => e.seq);
  t.deepEqual([...seqs].sort((x, y) => x - y), seqs);
  const rest = await srv.ok('GET', `/_pctl/events?after=${seqs[0]}&type=${enc('*.identity.*')}`);
  t.deepEqual(rest.events.map((e: { data: { body: { name: string } } }) => e.data.body.name), ['bot']);
  t.is((await srv.call('GET', '/_pctl/events?after=x')).status, 400);
  // limit=0: where the feed stands, no events (how pctl events watch starts without --after).
  const newest = all.events[all.events.length - 1].seq as number;
  t.deepEqual(await srv.ok('GET', '/_pctl/events?limit=0'), { events: [], last: newest });
  t.deepEqual(await srv.ok('GET', `/_pctl/events?limit=0&after=${start}`), { events: [], last: start });
});

test('a request is not a change: an identity seen for the first time (its lastSeenTime written) makes no event', async (t) => {
  const { srv, team } = await setup(t);
  const start = (await srv.ok('GET', '/_pctl/events')).last as number;
  const viewer = await srv.person('reader', 'viewer', team.uid);
  t.is((await viewer.as('GET', G)).status, 200);
  const seen = await srv.ok('GET', `/iam/v2/identities/${viewer.id.uid}`);
  t.truthy(seen.lastSeenTime);
  const events = (await srv.ok('GET', `/_pctl/events?after=${start}`)).events as { type: string; subject: string }[];
  t.deepEqual(events.map((e) => e.type), ['dev.chainguard.api.iam.identity.created.v1', 'dev.chainguard.api.iam.rolebindings.created.v1']);
});

test('subscriptions: sinks must be https (http only on loopback), the parent must exist, a group with subscriptions is not empty, viewers cannot subscribe', async (t) => {
  const { srv, team } = await setup(t);
  const create = (parent: string, sink: string) => srv.call('POST', SUBS, { parent, subscription: { sink } });
  const bad = await create(team.uid, 'http://hooks.example.com/x');
  t.is(bad.status, 400);
  t.deepEqual(bad.json.details.find((d: { fieldViolations?: unknown }) => d.fieldViolations).fieldViolations.map((v: { field: string }) => v.field), ['sink']);
  t.is((await create(team.uid, 'https://user:pw@hooks.example.com/x')).status, 400);
  t.is((await create(`${srv.organizationUid}/0123456789abcdef`, 'https://hooks.example.com/x')).status, 404);
  // A sink on loopback (nothing listens on port 9): the events of this test never leave the machine.
  const sub = (await create(team.uid, 'https://127.0.0.1:9/x')).json;
  t.like(sub, { sink: 'https://127.0.0.1:9/x' });
  t.is((await srv.ok('GET', `${SUBS}/${sub.uid}`)).uid, sub.uid);
  const listed = await srv.ok('GET', `${SUBS}?uidp.children_of=${enc(team.uid)}`);
  t.deepEqual(listed.subscriptions.map((s: { uid: string }) => s.uid), [sub.uid]);
  t.is(listed.totalCount, '1');
  const notEmpty = await srv.call('DELETE', `${G}/${team.uid}`);
  t.is(notEmpty.status, 400);
  t.regex(notEmpty.text, /1 subscription/);
  t.is((await srv.call('PATCH', `${SUBS}/${sub.uid}`, {})).status, 405);
  const viewer = await srv.person('watcher', 'viewer', team.uid);
  t.is((await viewer.as('GET', `${SUBS}/${sub.uid}`)).status, 200);
  t.is((await viewer.as('POST', SUBS, { parent: team.uid, subscription: { sink: 'https://x.example/y' } })).status, 403);
  t.is((await viewer.as('DELETE', `${SUBS}/${sub.uid}`)).status, 403);
  t.is((await srv.call('DELETE', `${SUBS}/${sub.uid}`)).status, 200);
  t.is((await srv.call('GET', `${SUBS}/${sub.uid}`)).status, 404);
});

interface DeliveryInfo { id: number; eventId: string; subject: string; state: string; attempts: number; lastStatus?: number; lastError?: string; sink: string }

/** The subscription's delivery that `match`es, once it does (settling follows the receiver's answer). */
async function waitForDelivery(srv: TestServer, subscription: string, match: (d: DeliveryInfo) => boolean, query = ''): Promise<DeliveryInfo> {
  for (;;) {
    const { deliveries } = (await srv.ok('GET', `/_pctl/deliveries?subscription=${enc(subscription)}${query}`)) as { deliveries: DeliveryInfo[] };
    const found = deliveries.find(match);
    if (found) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
