// Webhook sinks may not point into the network serve runs in (issue 41): private, link-local,
// metadata, shared and unspecified addresses are refused when a subscription is created (by
// the URL's host) and when a delivery connects (by the addresses the name resolves to, through
// a resolver stub here: nothing in this file sends a packet anywhere but 127.0.0.1).
import test, { type ExecutionContext } from 'ava';
import type dns from 'node:dns';
import net from 'node:net';
import { startTestServer, type TestServer } from './helpers/serve.js';

const SUBS = '/events/v2/subscriptions';
const G = '/iam/v2/groups';
const FAST = { baseMs: 5, maxDelayMs: 20, attempts: 3 };
const enc = encodeURIComponent;

type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/** A resolver stub: each name's answers in turn (the last one repeats); an unknown name is not found. */
function stub(answers: Record<string, string[]>): { resolve: Resolver; asked: string[] } {
  const asked: string[] = [];
  const calls = new Map<string, number>();
  const resolve: Resolver = (hostname, _options, callback) => {
    asked.push(hostname);
    const list = answers[hostname];
    const n = calls.get(hostname) ?? 0;
    calls.set(hostname, n + 1);
    const address = list?.[Math.min(n, list.length - 1)];
    if (!address) return void queueMicrotask(() => callback(Object.assign(new Error(`stub: no ${hostname}`), { code: 'ENOTFOUND' }), []));
    queueMicrotask(() => callback(null, [{ address, family: net.isIP(address) }]));
  };
  return { resolve, asked };
}

async function serve(t: ExecutionContext, opts: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const srv = await startTestServer({ eventRetry: FAST, ...opts });
  t.teardown(() => srv.dispose());
  return srv;
}

/** A TCP listener on 127.0.0.1 that counts connections and cuts each at once. */
async function cutter(t: ExecutionContext): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const server = net.createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n };
}

interface DeliveryInfo { state: string; attempts: number; lastError?: string }

async function settled(srv: TestServer, subscription: string): Promise<DeliveryInfo> {
  for (;;) {
    const { deliveries } = (await srv.ok('GET', `/_pctl/deliveries?subscription=${enc(subscription)}`)) as { deliveries: DeliveryInfo[] };
    const failed = deliveries.find((d) => d.state === 'failed');
    if (failed) return failed;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const REFUSED = [
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.1.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://0x0a.1/hook', // 10.0.0.1 as the URL parser reads it
  'https://0.0.0.0/hook',
  'https://[::]/hook',
  'https://[fe80::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://[::ffff:169.254.169.254]/hook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://100.100.100.200/latest/meta-data',
];

test('a sink at a private, link-local, metadata or unspecified address is refused at create time (400 naming sink); nothing is created', async (t) => {
  const srv = await serve(t);
  for (const sink of REFUSED) {
    const res = await srv.call('POST', SUBS, { parent: srv.organizationUid, subscription: { sink } });
    t.is(res.status, 400, sink);
    t.like(res.json, { code: 3, status: 'INVALID_ARGUMENT' }, sink);
    const violations = (res.json as { details: { fieldViolations?: { field: string; description: string }[] }[] }).details.flatMap((d) => d.fieldViolations ?? []);
    t.is(violations[0]?.field, 'sink', sink);
  }
  const { subscriptions } = (await srv.ok('GET', SUBS)) as { subscriptions?: unknown[] };
  t.deepEqual(subscriptions ?? [], []);
});

test('loopback sinks stay allowed (local receivers), by name and by address', async (t) => {
  const srv = await serve(t, { sinkResolver: stub({}).resolve });
  for (const sink of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'https://[::1]:9/hook', 'https://127.0.0.2:9/hook']) {
    t.is((await srv.call('POST', SUBS, { parent: srv.organizationUid, subscription: { sink } })).status, 200, sink);
  }
});

test('a name that resolves to a private address is refused when the delivery connects; the same name rebound after a check never reaches the new address', async (t) => {
  const sink = await cutter(t);
  // First 127.0.0.1 (the cutter), then 10.0.0.1: a rebinding name.
  const dns = stub({ 'rebind.test': ['127.0.0.1', '10.0.0.1'] });
  const srv = await serve(t, { sinkResolver: dns.resolve });
  const team = await srv.ok('POST', G, { parent: srv.organizationUid, group: { name: 'team' } });
  const sub = await srv.ok('POST', SUBS, { parent: team.uid, subscription: { sink: `https://rebind.test:${sink.port}/hook` } });
  const failed = await settled(srv, sub.uid);
  t.is(failed.attempts, FAST.attempts);
  t.regex(failed.lastError ?? '', /rebind\.test resolves to 10\.0\.0\.1, a private address/);
  t.is(sink.connections(), 1, 'only the check that found loopback led to a connection');
  t.true(dns.asked.length >= FAST.attempts, 'each attempt resolved the name anew');
});

for (const [name, address] of [['meta.test', '169.254.169.254'], ['mapped.test', '::ffff:192.168.0.7'], ['ula.test', 'fd00::7']] as const) {
  test(`a sink name resolving to ${address} fails every attempt without a connection`, async (t) => {
    const srv = await serve(t, { sinkResolver: stub({ [name]: [address] }).resolve });
    const sub = await srv.ok('POST', SUBS, { parent: srv.organizationUid, subscription: { sink: `https://${name}/hook` } });
    const failed = await settled(srv, sub.uid);
    t.regex(failed.lastError ?? '', new RegExp(`resolves to ${address.replace(/\./g, '\\.')}`));
  });
}

test('--allow-private-sinks: a metadata name is accepted and its delivery goes where it resolves (here loopback)', async (t) => {
  const sink = await cutter(t);
  const srv = await serve(t, { allowPrivateSinks: true, sinkResolver: stub({ 'metadata.google.internal': ['127.0.0.1'] }).resolve });
  const sub = await srv.ok('POST', SUBS, { parent: srv.organizationUid, subscription: { sink: `https://metadata.google.internal:${sink.port}/x` } });
  await settled(srv, sub.uid);
  t.is(sink.connections(), FAST.attempts);
});
