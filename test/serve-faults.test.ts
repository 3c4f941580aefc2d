// serve's control API: injected faults (errors, latency, resets, stalls) and the request
// journal, through /_pctl/ as the owner. A fault never changes data.
import test from 'ava';
import net from 'node:net';
import { parseFaultSpec, parseLatencyFlag, formatFaultRule, FaultSpecError } from '../src/api/faults.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

test('the one-line form: method, path glob, effect, probability, times, seed; mistakes are named', (t) => {
  t.deepEqual(parseFaultSpec('GET /iam/v2/groups* error=14 p=0.5 times=3 seed=7'), {
    method: 'GET', path: '/iam/v2/groups*', effect: 'error', code: 14, probability: 0.5, times: 3, seed: 7,
  });
  t.deepEqual(parseFaultSpec('/iam/* latency=100ms-2s'), { path: '/iam/*', effect: 'latency', latencyMs: [100, 2000] });
  t.deepEqual(parseFaultSpec('rpc=GroupsService/List* reset'), { rpc: 'GroupsService/List*', effect: 'reset' });
  t.deepEqual(parseLatencyFlag('250ms'), { effect: 'latency', latencyMs: [250, 250] });
  t.is(formatFaultRule(parseFaultSpec('POST /iam/v2/groups error=8 retry-after=2')), 'POST /iam/v2/groups error=8 (RESOURCE_EXHAUSTED) retry-after=2');
  for (const [spec, message] of [
    ['GET /x', /needs an effect/],
    ['/x error=99', /error: must be an AIP-193 code from 1 to 16/],
    ['/x reset stall', /one effect/],
    ['/x latency=2s-1s', /ends before it starts/],
    ['/x reset p=0', /p: must be a probability/],
    ['/x reset colour=red', /"colour=red" is not part of a fault/],
  ] as const) {
    t.throws(() => parseFaultSpec(spec), { instanceOf: FaultSpecError, message }, spec);
  }
});

let srv: TestServer;
test.before(async () => {
  srv = await startTestServer();
});
test.after.always(() => srv?.dispose());
test.afterEach.always(async () => {
  await srv.call('DELETE', '/_pctl/faults');
});

test.serial('an error fault answers with its AIP-193 code instead of the handler; 8 and 14 carry Retry-After; nothing is written', async (t) => {
  const rule = await srv.ok('POST', '/_pctl/faults', { method: 'POST', path: '/iam/v2/groups', effect: 'error', code: 14, retryAfterSeconds: 3 });
  t.regex(rule.id, /^f\d+$/);
  const before = (await srv.ok('GET', '/iam/v2/groups?page_size=1')).totalCount;
  const res = await srv.call('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'never-made' } });
  t.is(res.status, 503);
  t.is(res.headers.get('retry-after'), '3');
  t.is(res.json.code, 14);
  t.is(res.json.details[0].reason, 'INJECTED_FAULT');
  t.is(res.json.details[0].metadata.fault, rule.id);
  t.is((await srv.ok('GET', '/iam/v2/groups?page_size=1')).totalCount, before, 'the fault changed no data');
  t.is((await srv.call('GET', '/iam/v2/groups')).status, 200, 'another method is not hit');

  await srv.ok('POST', '/_pctl/faults', { path: '/iam/v2/roles', effect: 'error', code: 8 });
  const limited = await srv.call('GET', '/iam/v2/roles');
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '1');
  const listed = await srv.ok('GET', '/_pctl/faults');
  t.deepEqual(listed.faults.map((f: { hits: number }) => f.hits), [1, 1]);
});

test.serial('probability with a seed draws the same requests each time; times bounds the hits', async (t) => {
  const pattern = async () => {
    await srv.call('DELETE', '/_pctl/faults');
    await srv.ok('POST', '/_pctl/faults', { path: '/iam/v2/roles', effect: 'error', code: 13, probability: 0.5, seed: 42 });
    const out: number[] = [];
    for (let i = 0; i < 20; i++) out.push((await srv.call('GET', '/iam/v2/roles')).status);
    return out;
  };
  const first = await pattern();
  t.deepEqual(await pattern(), first, 'the same seed, the same requests hit');
  t.true(first.includes(500) && first.includes(200), first.join(' '));

  await srv.call('DELETE', '/_pctl/faults');
  await srv.ok('POST', '/_pctl/faults', { path: '/iam/v2/roles', effect: 'error', code: 10, times: 2 });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await srv.call('GET', '/iam/v2/roles')).status);
  t.deepEqual(statuses, [409, 409, 200, 200]);
});

test.serial('latency delays the call, which then runs as usual (the wait goes through serve\'s sleep)', async (t) => {
  const waits: number[] = [];
  const slow = await startTestServer({ sleep: async (ms) => void waits.push(ms) });
  t.teardown(() => slow.dispose());
  await slow.ok('POST', '/_pctl/faults', { method: 'GET', path: '/iam/v2/groups*', effect: 'latency', latencyMs: [100, 300], seed: 1 });
  for (let i = 0; i < 5; i++) t.is((await slow.call('GET', '/iam/v2/groups')).status, 200);
  t.is(waits.length, 5);
  t.true(waits.every((ms) => ms >= 100 && ms <= 300), waits.join(' '));
  t.true(new Set(waits).size > 1, 'drawn from the range');
});

/** A raw HTTP/1.1 exchange: what came back before the server closed the socket or `until` was seen. */
function rawRequest(url: string, lines: string[], until?: RegExp): Promise<{ data: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    let data = '';
    socket.on('data', (c) => {
      data += c.toString();
      if (until?.test(data)) {
        socket.destroy();
        resolve({ data, closed: false });
      }
    });
    socket.on('close', () => resolve({ data, closed: true }));
    socket.on('error', reject);
  });
}

test.serial('reset cuts the connection with nothing sent; stall never answers (the journal shows both)', async (t) => {
  await srv.ok('POST', '/_pctl/faults', { method: 'GET', path: '/iam/v2/roles', effect: 'reset' });
  const reset = await rawRequest(srv.url, ['GET /iam/v2/roles HTTP/1.1', 'host: x', `authorization: Bearer ${srv.ownerToken}`]);
  t.true(reset.closed);
  t.is(reset.data, '');

  await srv.call('DELETE', '/_pctl/faults');
  await srv.ok('POST', '/_pctl/faults', { method: 'GET', path: '/iam/v2/identities', effect: 'stall' });
  const mark = (await srv.ok('GET', '/_pctl/requests?limit=1')).last;
  // The stalled request, then a second one on another connection: it is answered, the first is not.
  const stalled = rawRequest(srv.url, ['GET /iam/v2/identities HTTP/1.1', 'host: x', `authorization: Bearer ${srv.ownerToken}`], /HTTP\/1\.1/);
  const seen = await srv.ok('GET', `/_pctl/requests?after=${mark}&wait=30`);
  t.is(seen.requests[0].fault.effect, 'stall');
  t.is((await srv.call('GET', '/iam/v2/groups')).status, 200);
  const journal = await srv.ok('GET', '/_pctl/requests?limit=5');
  const faults = journal.requests.filter((r: { fault?: unknown }) => r.fault).map((r: { fault: { effect: string }; status: number }) => `${r.fault.effect} ${r.status}`);
  t.deepEqual(faults.slice(-2), ['reset 0', 'stall 0']);
  await srv.call('DELETE', '/_pctl/faults');
  void stalled; // cut when the server closes
});

test.serial('the journal: method, path, status, caller, bodies with secrets masked, unmatched routes marked', async (t) => {
  const mark = (await srv.ok('GET', '/_pctl/requests?limit=1')).last;
  await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'journaled', description: 'x' } });
  await srv.call('GET', '/iam/v2/nothing-here');
  await srv.call('GET', '/iam/v2/groups?access_token=leaky-secret');
  const { requests } = await srv.ok('GET', `/_pctl/requests?after=${mark}`);
  t.is(requests.length, 3);
  const [create, missing, leaky] = requests;
  t.like(create, { method: 'POST', path: '/iam/v2/groups', status: 200, identity: srv.ownerIdentityUid, matched: true });
  t.regex(create.requestBody, /"name":"journaled"/);
  t.regex(create.responseBody, /"uid":/);
  t.regex(create.time, /^\d{4}-\d\d-\d\dT/);
  t.true(typeof create.durationMs === 'number');
  t.like(missing, { status: 404, matched: false });
  t.is(leaky.path, '/iam/v2/groups?access_token=***');
  t.false(JSON.stringify(requests).includes('leaky-secret'));
  t.false(JSON.stringify(requests).includes(srv.ownerToken));
});

test.serial('the control endpoints are the owner\'s: another identity is refused; bad rules are code 3 naming the field', async (t) => {
  const viewer = await srv.person('journal-viewer', 'viewer', srv.organizationUid);
  const refused = await viewer.as('GET', '/_pctl/requests');
  t.is(refused.status, 403);
  t.is(refused.json.code, 7);
  const bad = await srv.call('POST', '/_pctl/faults', { effect: 'error', code: 99 });
  t.is(bad.status, 400);
  t.is(bad.json.details.find((d: { fieldViolations?: unknown }) => d.fieldViolations).fieldViolations[0].field, 'error');
  t.is((await srv.call('DELETE', '/_pctl/faults/f999')).status, 404);
  t.is((await srv.call('GET', '/_pctl/nothing')).status, 404);
});
