// serve loads the gRPC stack and the v1 surface on their first call, not at start
// (src/server/pipeline/lazy.ts, rpc/gate.ts; test/cli-startup.test.ts checks what start loads). What a
// caller sees: a fresh serve's first calls, several at once, are answered as later ones are;
// a stack that cannot load answers UNAVAILABLE in the caller's protocol (gRPC's status, the
// AIP-193 503) while REST goes on, and the next call tries the load again.
import test from 'ava';
import grpc from '@grpc/grpc-js';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { GroupsService } from '../src/gen/chainguard/platform/iam/v2/groups_pb.js';
import { ApiError, Code } from '../src/api/errors.js';
import { createFront } from '../src/server/transport/front.js';
import { createHttp1Server } from '../src/server/transport/http1.js';
import { onFirstUse } from '../src/server/pipeline/lazy.js';
import { rpcGate, type Listeners } from '../src/server/surfaces/rpc/gate.js';
import { request, startTestServer } from './helpers/serve.js';

test("a fresh serve's first calls, at once over gRPC, Connect, v1 and REST, are answered as later ones", async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.dispose());
  const headers = { authorization: `Bearer ${srv.ownerToken}` };
  const grpcIam = createClient(GroupsService, createGrpcTransport({ baseUrl: srv.url }));
  const connectIam = createClient(GroupsService, createConnectTransport({ baseUrl: srv.url, httpVersion: '1.1' }));
  const names = (groups: { name: string }[]) => groups.map((g) => g.name).sort();
  const wave = () => Promise.all([
    grpcIam.listGroups({}, { headers }).then((r) => names(r.groups)),
    grpcIam.listGroups({}, { headers }).then((r) => names(r.groups)),
    connectIam.listGroups({}, { headers }).then((r) => names(r.groups)),
    srv.call('GET', '/iam/v1/groups').then((r) => names((r.json as { items: { name: string }[] }).items)),
    srv.call('GET', '/iam/v2/groups').then((r) => names((r.json as { groups: { name: string }[] }).groups)),
  ]);
  const first = await wave();
  const rest = first[4];
  t.true(rest.length > 0);
  t.deepEqual(first, [rest, rest, rest, rest, rest]);
  t.deepEqual(await wave(), first);
});

test('a load runs once for the calls that wait on it; one that fails is UNAVAILABLE (503) and the next call loads again', async (t) => {
  const logged: string[] = [];
  const attempts: ((outcome: 'ok' | Error) => void)[] = [];
  const load = onFirstUse('The thing', () => new Promise<string>((resolve, reject) => {
    attempts.push((outcome) => (outcome === 'ok' ? resolve('loaded') : reject(outcome)));
  }), (line) => logged.push(line));

  const [a, b] = [load(), load()];
  t.is(attempts.length, 1, 'the second call shares the first one’s load');
  attempts[0]!(new Error('ENOENT: chunk missing'));
  for (const failed of [a, b]) {
    const err = await t.throwsAsync(Promise.resolve(failed), { instanceOf: ApiError });
    t.is(err.code, Code.UNAVAILABLE);
    t.is(err.httpStatus, 503);
    t.is(err.reason, 'SURFACE_NOT_LOADED');
    t.regex(err.message, /^The thing is unavailable/);
  }
  t.is(logged.length, 1);
  t.regex(logged[0]!, /The thing failed to load: Error: ENOENT: chunk missing/);

  const again = load();
  t.is(attempts.length, 2, 'a call after the failure loads again');
  attempts[1]!('ok');
  t.is(await again, 'loaded');
  t.is(load(), 'loaded', 'once loaded, the value itself: no promise to wait on');
  t.is(attempts.length, 2);
});

test('RPC listeners that fail to load: a gRPC caller gets UNAVAILABLE, REST is answered, the next RPC loads them again', async (t) => {
  const logged: string[] = [];
  let loads = 0;
  const loaded: Listeners = {
    request: (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"served":"rpc"}'),
    stream: (x) => x.respond(200, { 'content-type': 'application/json' }, '{"served":"rpc"}'),
  };
  const rpc = onFirstUse('gRPC', () => (++loads === 1 ? Promise.reject(new Error('Cannot find module rpc/index.js')) : Promise.resolve(loaded)), (line) => logged.push(line));
  const rest = {
    node: (_req: unknown, res: { writeHead(s: number, h: Record<string, string>): { end(b: string): void } }) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"served":"rest"}'),
    http2: (x: { respond(status: number, headers: Record<string, string>, body: string): void }) => x.respond(200, { 'content-type': 'application/json' }, '{"served":"rest"}'),
  };
  const listeners = rpcGate(rpc, rest, (line) => logged.push(line));
  const front = createFront(createHttp1Server(listeners.request), listeners.stream);
  const port = await front.listen(0, '127.0.0.1');
  t.teardown(() => front.close(0));
  const url = `http://127.0.0.1:${port}`;

  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const identity = (b: Buffer) => b;
  const failed = await new Promise<grpc.ServiceError | null>((resolve) => {
    client.makeUnaryRequest('/chainguard.platform.iam.v2.GroupsService/ListGroups', identity, identity, Buffer.alloc(0), (err) => resolve(err));
  });
  t.is(failed?.code, grpc.status.UNAVAILABLE);
  t.regex(failed?.details ?? '', /^gRPC is unavailable/);
  t.is(logged.filter((l) => l.includes('Cannot find module')).length, 1, 'the cause is in the log');

  const restAnswer = await request(url, 'GET', '/iam/v2/groups');
  t.deepEqual(restAnswer.json, { served: 'rest' });

  const retried = await request(url, 'POST', '/chainguard.platform.iam.v2.GroupsService/ListGroups', {});
  t.is(retried.status, 200, 'the next RPC loads the listeners again');
  t.deepEqual(retried.json, { served: 'rpc' });
  t.is(loads, 2);
});

test('a Connect call while the RPC listeners cannot load is the AIP-193 503', async (t) => {
  const rpc = onFirstUse('gRPC', () => Promise.reject(new Error('Cannot find module rpc/index.js')), () => {});
  const rest = { node: () => t.fail('REST answered an RPC'), http2: () => t.fail('REST answered an RPC') };
  const listeners = rpcGate(rpc, rest, () => {});
  const front = createFront(createHttp1Server(listeners.request), listeners.stream);
  const port = await front.listen(0, '127.0.0.1');
  t.teardown(() => front.close(0));
  const answer = await request(`http://127.0.0.1:${port}`, 'POST', '/chainguard.platform.iam.v2.GroupsService/ListGroups', {});
  t.is(answer.status, 503);
  t.like(answer.json, { code: Code.UNAVAILABLE, status: 'UNAVAILABLE', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SURFACE_NOT_LOADED' }] });
});
