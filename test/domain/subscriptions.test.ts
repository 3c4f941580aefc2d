// Subscriptions and where their sinks may point, called on the domain: https (or http to
// loopback), never into serve's own network by name, nor by the addresses a name resolves to
// when a delivery connects (checked here through a stub resolver: no packet leaves).
import test from 'ava';
import type dns from 'node:dns';
import { Code } from '../../src/api/errors.js';
import { guardedLookup } from '../../src/server/domain/sink-address.js';
import { refusal, world } from './world.js';

test('a sink is https, or http to a loopback host; anything else is INVALID_ARGUMENT on sink and commits nothing', async (t) => {
  const w = await world(t);
  const before = w.committed();
  for (const sink of ['http://hooks.example.com/x', 'ftp://hooks.example.com', 'https://user:pw@hooks.example.com', '']) {
    const r = await refusal(t, w.domain.subscriptions.create(w.owner, { parent: w.org, sink }));
    t.is(r.code, Code.INVALID_ARGUMENT, sink);
    t.deepEqual(r.fields, ['sink'], sink);
  }
  t.is(w.committed(), before);
  t.is((await w.domain.subscriptions.create(w.owner, { parent: w.org, sink: 'http://127.0.0.1:9/hook' })).name, 'http://127.0.0.1:9/hook');
  t.truthy(await w.domain.subscriptions.create(w.owner, { parent: w.org, sink: 'https://hooks.example.com/x' }));
});

test('a sink naming a private, link-local or metadata address is refused, unless serve allows private sinks', async (t) => {
  const w = await world(t);
  for (const sink of ['https://10.1.2.3/x', 'https://192.168.0.1/x', 'https://169.254.169.254/latest', 'https://metadata.google.internal/x', 'https://[fd00::1]/x', 'https://[::ffff:10.0.0.1]/x']) {
    const r = await refusal(t, w.domain.subscriptions.create(w.owner, { parent: w.org, sink }));
    t.deepEqual(r.fields, ['sink'], sink);
  }
  const open = await world(t, { allowPrivateSinks: true });
  t.truthy(await open.domain.subscriptions.create(open.owner, { parent: open.org, sink: 'https://10.1.2.3/x' }));
  // The scheme rule holds even then.
  t.deepEqual((await refusal(t, open.domain.subscriptions.create(open.owner, { parent: open.org, sink: 'http://10.1.2.3/x' }))).fields, ['sink']);
});

test('making or deleting a subscription needs its capability on the group; a missing parent is NOT_FOUND on parent', async (t) => {
  const w = await world(t);
  const viewer = await w.person('viewer', [{ role: 'viewer', on: w.org }]);
  t.is((await refusal(t, w.domain.subscriptions.create(viewer, { parent: w.org, sink: 'https://hooks.example.com' }))).code, Code.PERMISSION_DENIED);
  const missing = await refusal(t, w.domain.subscriptions.create(w.owner, { parent: `${w.org}/0000000000000000`, sink: 'https://hooks.example.com' }));
  t.is(missing.code, Code.NOT_FOUND);
  t.deepEqual(missing.fields, ['parent']);
  const made = await w.domain.subscriptions.create(w.owner, { parent: w.org, sink: 'https://hooks.example.com' });
  t.is((await refusal(t, w.domain.subscriptions.delete(viewer, made.uid))).code, Code.PERMISSION_DENIED);
  await w.domain.subscriptions.delete(w.owner, made.uid);
  t.is((await refusal(t, w.domain.subscriptions.get(w.owner, made.uid))).code, Code.NOT_FOUND);
});

/** A resolver that answers every name with these addresses, and records what it was asked. */
function stubResolver(addresses: string[]) {
  const asked: string[] = [];
  const resolve = (hostname: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, a: dns.LookupAddress[]) => void) => {
    asked.push(hostname);
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { resolve, asked };
}

function connectTo(lookup: ReturnType<typeof guardedLookup>, host: string): Promise<{ error?: Error & { code?: string }; address?: string }> {
  return new Promise((done) => lookup(host, { all: false }, (error, address) => done(error ? { error } : { address: address as string })));
}

test('a delivery connects only where the name resolves to an allowed address: a name that resolves into a private network is refused', async (t) => {
  const rebinding = stubResolver(['203.0.113.7', '10.0.0.5']);
  const refused = await connectTo(guardedLookup(rebinding.resolve), 'hooks.example.com');
  t.is(refused.error?.code, 'EPRIVATESINK');
  t.regex(refused.error!.message, /10\.0\.0\.5/);
  t.deepEqual(rebinding.asked, ['hooks.example.com']);

  const mapped = await connectTo(guardedLookup(stubResolver(['::ffff:169.254.169.254']).resolve), 'hooks.example.com');
  t.is(mapped.error?.code, 'EPRIVATESINK');

  const publicOnly = await connectTo(guardedLookup(stubResolver(['203.0.113.7']).resolve), 'hooks.example.com');
  t.is(publicOnly.address, '203.0.113.7', 'the connection goes to the address that was checked');
  const loopback = await connectTo(guardedLookup(stubResolver(['127.0.0.1']).resolve), 'localhost');
  t.is(loopback.address, '127.0.0.1');
  const allowed = await connectTo(guardedLookup(stubResolver(['10.0.0.5']).resolve, false), 'hooks.example.com');
  t.is(allowed.address, '10.0.0.5', 'serve --allow-private-sinks');
});
