// `serve --http2 node`: node:http2 (nghttp2) answers h2c in place of serve's own HTTP/2, for a
// user an incompatibility of ours hits. The same requests answer the same over it: REST GET and
// POST (a body in several DATA frames), and a gRPC call with its trailers.
import test from 'ava';
import http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { GetGroupRequestSchema, GroupSchema } from '../src/gen/chainguard/platform/iam/v2/groups_pb.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';
let srv: TestServer;
test.before(async () => {
  srv = await startTestServer({ http2: 'node' });
});
test.after.always(async () => {
  await srv?.dispose();
});

interface Answer { headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }

function ask(headers: http2.OutgoingHttpHeaders, body?: Buffer[]): Promise<Answer> {
  const session = http2.connect(srv.url);
  session.on('error', () => {});
  return new Promise<Answer>((resolve, reject) => {
    const req = session.request({ authorization: `Bearer ${srv.ownerToken}`, ...headers }, { endStream: body === undefined });
    let got: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => (got = h));
    req.on('trailers', (h) => (trailers = h));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ headers: got, trailers, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    if (body) {
      for (const part of body) req.write(part);
      req.end();
    }
  }).finally(() => session.close());
}

test('REST GET over node:http2 answers what HTTP/1.1 does', async (t) => {
  const path = `${G}/${encodeURIComponent(srv.organizationUid)}`;
  const got = await ask({ ':path': path });
  t.is(Number(got.headers[':status']), 200);
  t.deepEqual(JSON.parse(got.body.toString()), await srv.ok('GET', path));
});

test('REST POST over node:http2: a body in parts creates the group once', async (t) => {
  const body = Buffer.from(JSON.stringify({ parent: srv.organizationUid, group: { name: 'over-node-http2' } }));
  const got = await ask({ ':method': 'POST', ':path': G, 'content-type': 'application/json' }, [body.subarray(0, 7), body.subarray(7)]);
  t.is(Number(got.headers[':status']), 200, got.body.toString());
  const { groups } = (await srv.ok('GET', `${G}?page_size=200`)) as { groups: { name: string }[] };
  t.is(groups.filter((g) => g.name === 'over-node-http2').length, 1);
});

test('gRPC GetGroup over node:http2: the group, then grpc-status 0 in the trailers', async (t) => {
  const message = toBinary(GetGroupRequestSchema, create(GetGroupRequestSchema, { uid: srv.organizationUid }));
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), Buffer.from(message)]);
  framed.writeUInt32BE(message.length, 1);
  const got = await ask({ ':method': 'POST', ':path': '/chainguard.platform.iam.v2.GroupsService/GetGroup', 'content-type': 'application/grpc', te: 'trailers' }, [framed]);
  t.is(Number(got.headers[':status']), 200);
  t.is(got.trailers['grpc-status'], '0', String(got.trailers['grpc-message']));
  const group = fromBinary(GroupSchema, got.body.subarray(5, 5 + got.body.readUInt32BE(1)));
  t.is(group.uid, srv.organizationUid);
});
