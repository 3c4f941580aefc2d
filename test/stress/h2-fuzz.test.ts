// Hostile HTTP/2: a bounded, seeded fuzz of serve's own HTTP/2 server (src/server/transport/h2) over raw
// sockets. Each connection sends the preface and SETTINGS, then frames that are mostly valid
// requests with random damage: wrong lengths, types, flags and stream ids, padding past the
// frame, truncated or random HPACK, windows overflowed, frames out of order, connections cut
// mid-frame. Asserts: serve never crashes, every connection ends in an answer, a GOAWAY, a
// reset or a close (none hangs), no answer is a 5xx, and serve answers normally afterwards
// over both HTTP versions.
//
// Replay a run: H2_FUZZ_SEED=<seed> npm run test:stress -- -m '*HTTP/2*'
import test from 'ava';
import { connect, type Socket } from 'node:net';
import http2 from 'node:http2';
import { G, Client, cleanup, prng, startServe, stopServe, tempDir, type Rng } from './helpers.js';
import { encodeHeaders } from '../../src/server/transport/h2/hpack.js';

const SEED = Number(process.env.H2_FUZZ_SEED ?? 0x2f2026);
const CONNECTIONS = Number(process.env.H2_FUZZ_CONNECTIONS ?? 400);
const IN_FLIGHT = 8;
/** A connection that neither answers nor ends in this long has hung: a failure. */
const HANG_MS = 10_000;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

test.after.always(cleanup);

function frame(type: number, flags: number, id: number, payload: Buffer, lengthLie?: number): Buffer {
  const out = Buffer.alloc(9 + payload.length);
  out.writeUIntBE(lengthLie ?? payload.length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(id >>> 0, 5);
  payload.copy(out, 9);
  return out;
}

const bytes = (rng: Rng, n: number) => Buffer.from(Array.from({ length: n }, () => rng.int(256)));

/** A request's header block: literals, as serve's own encoder writes them. */
function requestBlock(rng: Rng, token: string, uid: string): Buffer {
  const path = rng.pick([`${G}/${uid}`, G, `${G}?page_size=2`, '/chainguard.platform.iam.v2.GroupsService/GetGroup', '/', '/nope', `${G}/${'x'.repeat(rng.int(3000))}`]);
  const fields: [string, string][] = [[':method', rng.pick(['GET', 'GET', 'POST', 'DELETE', 'PATCH', 'BREW'])], [':scheme', 'http'], [':path', path], [':authority', '127.0.0.1']];
  if (rng.chance(0.8)) fields.push(['authorization', `Bearer ${rng.chance(0.9) ? token : 'x'}`]);
  if (rng.chance(0.4)) fields.push(['content-type', rng.pick(['application/json', 'application/grpc', 'application/grpc-web+proto', 'text/plain'])]);
  if (rng.chance(0.1)) fields.push(['te', rng.pick(['trailers', 'gzip'])]);
  if (rng.chance(0.05)) fields.push(['connection', 'close']);
  if (rng.chance(0.1)) fields.reverse(); // pseudo-headers after regular ones
  return encodeHeaders(undefined, fields);
}

/** One connection's frames: a few requests, each damaged now and then. */
function script(rng: Rng, token: string, uid: string): Buffer[] {
  const out: Buffer[] = [PREFACE];
  if (!rng.chance(0.03)) out.push(frame(4, 0, 0, rng.chance(0.9) ? Buffer.alloc(0) : bytes(rng, rng.pick([5, 6, 12, 7])))); // SETTINGS
  let id = 1;
  const requests = 1 + rng.int(4);
  for (let r = 0; r < requests; r++) {
    let block = requestBlock(rng, token, uid);
    const damage = rng.int(20);
    if (damage === 0) block = bytes(rng, block.length); // random HPACK
    if (damage === 1) block = block.subarray(0, rng.int(block.length)); // truncated HPACK
    const body = rng.chance(0.3) ? (rng.chance(0.5) ? Buffer.from('{"group":{"name":"h2"}}') : bytes(rng, rng.int(300))) : undefined;
    const streamId = damage === 2 ? id + 1 : damage === 3 ? 0 : damage === 4 ? rng.int(2 ** 31) : id;
    if (damage === 5 && block.length > 4) {
      // HEADERS without END_HEADERS, then a CONTINUATION (or, damaged, some other frame).
      const cut = 1 + rng.int(block.length - 1);
      out.push(frame(1, 0, streamId, block.subarray(0, cut)));
      out.push(rng.chance(0.7) ? frame(9, 0x4 | (body ? 0 : 0x1), streamId, block.subarray(cut)) : frame(0, 1, streamId, Buffer.from('x')));
    } else if (damage === 6) {
      // Padded, the pad length past the frame.
      out.push(frame(1, 0x4 | 0x8 | (body ? 0 : 0x1), streamId, Buffer.concat([Buffer.from([block.length + 5]), block])));
    } else if (damage === 7) {
      out.push(frame(1, 0x4 | 0x20 | (body ? 0 : 0x1), streamId, block.subarray(0, 3))); // PRIORITY flag, too short
    } else {
      out.push(frame(1, 0x4 | (body ? 0 : 0x1), streamId, block));
    }
    if (body) {
      const d = rng.int(10);
      if (d === 0) out.push(frame(0, 0x1 | 0x8, streamId, Buffer.concat([Buffer.from([body.length + 1]), body]))); // pad too long
      else if (d === 1) out.push(frame(0, 0x1, streamId + 2, body)); // DATA on an idle stream
      else if (d === 2) out.push(frame(0, 0, streamId, body)); // never ends
      else out.push(frame(0, 0x1, streamId, body));
    }
    const extra = rng.int(14);
    if (extra === 0) out.push(frame(8, 0, rng.pick([0, streamId]), Buffer.from([0x7f, 0xff, 0xff, 0xff]))); // window overflow
    if (extra === 1) out.push(frame(8, 0, streamId, Buffer.alloc(4))); // WINDOW_UPDATE of 0
    if (extra === 2) out.push(frame(3, 0, streamId, Buffer.from([0, 0, 0, 8]))); // RST_STREAM CANCEL
    if (extra === 3) out.push(frame(6, 0, 0, bytes(rng, rng.pick([8, 8, 7])))); // PING
    if (extra === 4) out.push(frame(rng.int(256), rng.int(256), rng.int(5), bytes(rng, rng.int(40)))); // anything
    if (extra === 5) out.push(frame(0, 0, 1, Buffer.alloc(0), 16_385 + rng.int(1000))); // a length over the limit
    if (extra === 6) out.push(frame(5, 0x4, streamId, bytes(rng, 8))); // PUSH_PROMISE from a client
    if (extra === 7) out.push(frame(4, 0, 0, Buffer.from([0, 4, 0x80, 0, 0, 0]))); // INITIAL_WINDOW_SIZE 2^31
    if (extra === 8) out.push(frame(2, 0, streamId, bytes(rng, rng.pick([5, 4])))); // PRIORITY
    id += 2;
  }
  if (rng.chance(0.2)) out.push(frame(7, 0, 0, Buffer.alloc(8))); // GOAWAY
  if (rng.chance(0.1)) {
    // Cut mid-frame: the last frame's first bytes only.
    const last = out.pop()!;
    out.push(last.subarray(0, rng.int(last.length)));
  }
  return out;
}

interface Outcome { statuses: number[]; goaway: boolean; resets: number; closed: boolean; hung: boolean }

/** Sends a script and reads what comes back until serve ends the connection, or every stream is answered or reset. */
function run(port: number, frames: Buffer[], rng: Rng): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { statuses: [], goaway: false, resets: 0, closed: false, hung: false };
    const sock: Socket = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => ((outcome.hung = true), finish()), HANG_MS);
    sock.on('error', finish);
    sock.on('close', () => ((outcome.closed = true), finish()));
    sock.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      while (got.length >= 9) {
        const length = got.readUIntBE(0, 3);
        if (got.length < 9 + length) break;
        const type = got[3]!;
        const payload = got.subarray(9, 9 + length);
        if (type === 7) outcome.goaway = true;
        if (type === 3) outcome.resets++;
        // A :status the server's encoder writes first: indexed (0x88…0x8e) or a literal with name index 8.
        if (type === 1 && payload.length) outcome.statuses.push(statusOf(payload));
        got = got.subarray(9 + length);
      }
      if (outcome.goaway) finish();
    });
    sock.on('connect', () => {
      // Sent in random pieces: a frame split over reads is parsed as one.
      const all = Buffer.concat(frames);
      let at = 0;
      while (at < all.length) {
        const n = 1 + rng.int(200);
        sock.write(all.subarray(at, at + n));
        at += n;
      }
      // Whatever the script left open is given a moment's worth of answers, then the connection is ended.
      setTimeout(finish, 300).unref();
    });
  });
}

const STATUS_INDEX: Record<number, number> = { 0x88: 200, 0x89: 204, 0x8a: 206, 0x8b: 304, 0x8c: 400, 0x8d: 404, 0x8e: 500 };

function statusOf(block: Buffer): number {
  if (STATUS_INDEX[block[0]!]) return STATUS_INDEX[block[0]!]!;
  if (block[0] === 0x08) return Number(block.subarray(2, 2 + block[1]!).toString('latin1'));
  return 0; // trailers
}

test('HTTP/2 fuzz: random and damaged frames never crash serve, hang a connection or get a 5xx', async (t) => {
  const dataDir = tempDir('pctl-stress-h2-');
  const srv = await startServe(dataDir);
  t.teardown(() => stopServe(srv));
  const port = Number(new URL(srv.url).port);
  const client = new Client(srv.url, srv.token, 2);
  t.teardown(() => client.close());
  const org = (await client.req('GET', `${G}?page_size=1`)).json.groups[0].uid as string;
  const rng = prng(SEED);
  const outcomes: Outcome[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < CONNECTIONS) {
      next++;
      outcomes.push(await run(port, script(rng, srv.token, org), rng));
    }
  }));
  const hung = outcomes.filter((o) => o.hung).length;
  const fiveXx = outcomes.flatMap((o) => o.statuses).filter((s) => s >= 500);
  const statuses: Record<number, number> = {};
  for (const s of outcomes.flatMap((o) => o.statuses)) statuses[s] = (statuses[s] ?? 0) + 1;
  t.log(`${CONNECTIONS} connections in ${((performance.now() - started) / 1000).toFixed(1)} s (seed ${SEED}): statuses ${JSON.stringify(statuses)}; ` +
    `${outcomes.filter((o) => o.goaway).length} GOAWAY, ${outcomes.reduce((n, o) => n + o.resets, 0)} RST_STREAM`);
  t.is(hung, 0, `connections that hung (seed ${SEED})`);
  t.deepEqual(fiveXx, [], `5xx answers (seed ${SEED})`);
  t.true(outcomes.some((o) => o.statuses.includes(200)), 'some requests were whole and got their answer');
  t.true(outcomes.some((o) => o.goaway), 'some damage ended its connection');
  t.is(srv.child.exitCode, null, 'serve is still running');
  t.notRegex(srv.stderr(), /internal error|TypeError|RangeError/, 'serve logged no bug of its own');

  // Afterwards serve answers as before, over both HTTP versions.
  t.is((await client.req('GET', `${G}/${org}`)).status, 200);
  const session = http2.connect(srv.url);
  t.teardown(() => void session.destroy());
  const status = await new Promise<number>((resolve, reject) => {
    const req = session.request({ ':path': `${G}/${org}`, authorization: `Bearer ${srv.token}` });
    req.on('response', (h) => resolve(Number(h[':status'])));
    req.on('error', reject);
    req.resume();
  });
  t.is(status, 200);
});
