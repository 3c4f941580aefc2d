// serve's HTTP/2 against a hostile peer (issue 41): every queue a peer can grow is bounded by
// count and bytes, every phase of a connection has a deadline, and what RFC 9113 and RFC 7541
// call malformed is refused before a handler sees it. Each test failed before its fix.
import test, { type ExecutionContext } from 'ava';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { H2Connection, type RequestStream } from '../src/server/transport/h2/connection.js';
import { HpackDecoder, HpackError } from '../src/server/transport/h2/hpack.js';
import {
  ACK, CANCEL, COMPRESSION_ERROR, CONTINUATION, DATA, END_HEADERS, END_STREAM, ENHANCE_YOUR_CALM, expectGoaway, frame, GOAWAY, HEADERS, headerBlock,
  NO_ERROR, PING, PREFACE, PROTOCOL_ERROR, RawH2, RST_STREAM, SETTINGS, type Fields, type Frame,
} from './helpers/raw-h2.js';
import { startTestServer, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

let srv: TestServer;
/** A serve whose HTTP/2 deadlines are short, for the tests that wait them out. */
let hasty: TestServer;
test.before(async () => {
  [srv, hasty] = await Promise.all([
    startTestServer(),
    startTestServer({ http2Timeouts: { prefaceMs: 1000, headersMs: 300, bodyMs: 300, idleMs: 300 } }),
  ]);
});
test.after.always(async () => {
  await Promise.all([srv?.dispose(), hasty?.dispose()]);
});

const requestFields = (server: TestServer, method: string, path: string, extra: Fields = []): Fields => [
  [':method', method], [':scheme', 'http'], [':authority', `127.0.0.1:${server.port}`], [':path', path], ['authorization', `Bearer ${server.ownerToken}`], ...extra,
];
const get = (id: number, path = `${G}/${encodeURIComponent(srv.organizationUid)}`) => frame(HEADERS, END_HEADERS | END_STREAM, id, headerBlock(requestFields(srv, 'GET', path)));
const resetCode = (f: Frame) => f.payload.readUInt32BE(0);
const groupNames = async () => ((await srv.ok('GET', `${G}?page_size=200`)).groups as { name: string }[]).map((g) => g.name);

/** After a connection error of the test's making, serve still answers another connection. */
async function stillAnswers(t: ExecutionContext): Promise<void> {
  const raw = await RawH2.open(t, srv.port);
  raw.send(get(1));
  t.is((await raw.answer(1)).status, 200);
}

// ---- bounded by cost ---------------------------------------------------------------------------

test.serial('a flood of empty CONTINUATION frames ends the connection with ENHANCE_YOUR_CALM (each frame counts, not only its bytes)', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  const block = headerBlock(requestFields(srv, 'GET', G));
  // 10,000 empty CONTINUATIONs are 90 KB on the wire, far under the 256 KiB a header block may take.
  const empty = frame(CONTINUATION, 0, 1);
  raw.send(frame(HEADERS, END_STREAM, 1, block), Buffer.concat(Array.from({ length: 10_000 }, () => empty)));
  await expectGoaway(t, raw, ENHANCE_YOUR_CALM, 0);
  await stillAnswers(t);
});

/**
 * A socket for an H2Connection whose peer reads only when the test lets it: what serve writes
 * stays unread (in the stream's buffer, as in a socket's) until `release()`.
 */
class SlowPeer extends Duplex {
  private held: (() => void) | undefined;
  readonly written: Buffer[] = [];
  reading = true;

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.written.push(chunk);
    if (this.reading) done();
    else this.held = done;
  }

  override _read(): void {}

  /** Reads what serve wrote, from now on as it comes. */
  release(): void {
    this.reading = true;
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  /** Frames serve wrote, in order. */
  frames(): Frame[] {
    const all = Buffer.concat(this.written);
    const out: Frame[] = [];
    for (let p = 0; p + 9 <= all.length;) {
      const length = all.readUIntBE(p, 3);
      out.push({ type: all[p + 3]!, flags: all[p + 4]!, id: all.readUInt32BE(p + 5) & 0x7fffffff, payload: all.subarray(p + 9, p + 9 + length) });
      p += 9 + length;
    }
    return out;
  }
}

test('a PING flood from a peer that does not read: the acks of each read are one write, and past 1,000 unread the connection ends with ENHANCE_YOUR_CALM', (t) => {
  const peer = new SlowPeer();
  const streams: RequestStream[] = [];
  // A test double of the socket: H2Connection uses the stream side of net.Socket only.
  new H2Connection(peer as unknown as net.Socket, { onStream: (s) => streams.push(s), address: 'test' });
  peer.emit('data', Buffer.concat([Buffer.from(PREFACE, 'latin1'), frame(SETTINGS, 0, 0)]));
  const settled = peer.written.length;
  peer.reading = false;
  const ping = (i: number) => frame(PING, 0, 0, Buffer.from(String(i).padStart(8, '0')));
  // Three reads of 400 PINGs each; nothing serve writes is read.
  for (let read = 0; read < 3; read++) peer.emit('data', Buffer.concat(Array.from({ length: 400 }, (_, i) => ping(read * 400 + i))));
  t.is(peer.written.length - settled, 1, 'one write reached the peer (the rest wait behind it)');
  peer.release();
  const frames = peer.frames();
  const acks = frames.filter((f) => f.type === PING && f.flags & ACK);
  t.is(acks.length, 800, 'the first two reads were answered; the third went past 1,000 unread');
  t.is(peer.written.length - settled, 3, 'one write per read, then the GOAWAY');
  const goaway = frames.at(-1)!;
  t.is(goaway.type, GOAWAY);
  t.is(goaway.payload.readUInt32BE(4), ENHANCE_YOUR_CALM);
  t.is(streams.length, 0);
});

test('a peer whose unread answers pass the high-water mark (1 MiB) is not read until it takes them', (t) => {
  const peer = new SlowPeer();
  const answer = Buffer.alloc(2 * 2 ** 20, 0x61);
  new H2Connection(peer as unknown as net.Socket, { onStream: (s) => s.respond(200, {}, answer), address: 'test' });
  // Windows large enough for the whole answer, so flow control holds nothing back.
  const settings = Buffer.alloc(6);
  settings.writeUInt16BE(0x4, 0);
  settings.writeUInt32BE(2 ** 24, 2);
  const increment = Buffer.alloc(4);
  increment.writeUInt32BE(2 ** 24);
  peer.emit('data', Buffer.concat([Buffer.from(PREFACE, 'latin1'), frame(SETTINGS, 0, 0, settings), frame(0x8, 0, 0, increment)]));
  peer.reading = false;
  peer.emit('data', get(1));
  t.true(peer.isPaused(), 'over 1 MiB unread: serve reads no more of this peer');
  peer.release();
  t.false(peer.isPaused(), 'once it drained, reading goes on');
  const data = peer.frames().filter((f) => f.type === DATA && f.id === 1);
  t.is(data.reduce((n, f) => n + f.payload.length, 0), answer.length);
});

// ---- deadlines -----------------------------------------------------------------------------------

test.serial('a connection that never sends a byte is closed after the preface deadline', async (t) => {
  const socket = net.connect(hasty.port, '127.0.0.1');
  t.teardown(() => void socket.destroy());
  let received = 0;
  socket.on('data', (c: Buffer) => (received += c.length));
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  t.is(received, 0, 'closed without a word: no protocol was spoken');
});

test.serial('a preface without SETTINGS is ended after the preface deadline (GOAWAY PROTOCOL_ERROR)', async (t) => {
  const raw = await RawH2.open(t, hasty.port, false);
  raw.send(Buffer.from(PREFACE, 'latin1'));
  await expectGoaway(t, raw, PROTOCOL_ERROR, 0);
});

test.serial('a header block never finished is ended after the header deadline (GOAWAY PROTOCOL_ERROR)', async (t) => {
  const raw = await RawH2.open(t, hasty.port);
  raw.send(frame(HEADERS, END_STREAM, 1, headerBlock(requestFields(hasty, 'GET', G))));
  await expectGoaway(t, raw, PROTOCOL_ERROR, 0);
});

test.serial('a request body never finished is reset (CANCEL) after the body deadline; then the idle connection gets GOAWAY NO_ERROR', async (t) => {
  const raw = await RawH2.open(t, hasty.port);
  raw.send(frame(HEADERS, END_HEADERS, 1, headerBlock(requestFields(hasty, 'POST', G, [['content-type', 'application/json']]))));
  const reset = await raw.next('RST_STREAM on stream 1', (f) => f.type === RST_STREAM && f.id === 1);
  t.is(resetCode(reset), CANCEL);
  await expectGoaway(t, raw, NO_ERROR, 1);
});

test.serial('an idle HTTP/2 connection (no open stream) gets GOAWAY NO_ERROR and is closed after the idle deadline', async (t) => {
  const raw = await RawH2.open(t, hasty.port);
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headerBlock(requestFields(hasty, 'GET', `${G}/${encodeURIComponent(hasty.organizationUid)}`))));
  t.is((await raw.answer(1)).status, 200);
  await expectGoaway(t, raw, NO_ERROR, 1);
});

// ---- malformed is malformed ----------------------------------------------------------------------

for (const [what, lengthDelta] of [['shorter', 5], ['longer', -5]] as const) {
  test.serial(`a body ${what} than its content-length, in a later read: reset PROTOCOL_ERROR and nothing is created`, async (t) => {
    const name = `cl-mismatch-${what}`;
    const body = JSON.stringify({ parent: srv.organizationUid, group: { name } });
    const raw = await RawH2.open(t, srv.port);
    raw.send(frame(HEADERS, END_HEADERS, 1, headerBlock(requestFields(srv, 'POST', G, [['content-type', 'application/json'], ['content-length', String(body.length + lengthDelta)]]))));
    await raw.roundTrip();
    raw.send(frame(DATA, END_STREAM, 1, Buffer.from(body)));
    const reset = await raw.next('RST_STREAM on stream 1', (f) => f.type === RST_STREAM && f.id === 1);
    t.is(resetCode(reset), PROTOCOL_ERROR);
    await raw.roundTrip();
    t.deepEqual(raw.pending(HEADERS, 1), [], 'no answer: the request never ran');
    t.false((await groupNames()).includes(name), 'nothing was committed (a retry duplicates nothing)');
    // The connection goes on.
    raw.send(get(3));
    t.is((await raw.answer(3)).status, 200);
  });
}

test.serial('a body matching its content-length, in several reads, is created once', async (t) => {
  const name = 'cl-match';
  const body = Buffer.from(JSON.stringify({ parent: srv.organizationUid, group: { name } }));
  const raw = await RawH2.open(t, srv.port);
  raw.send(frame(HEADERS, END_HEADERS, 1, headerBlock(requestFields(srv, 'POST', G, [['content-type', 'application/json'], ['content-length', String(body.length)]]))));
  await raw.roundTrip();
  raw.send(frame(DATA, 0, 1, body.subarray(0, 10)));
  await raw.roundTrip();
  raw.send(frame(DATA, END_STREAM, 1, body.subarray(10)));
  t.is((await raw.answer(1)).status, 200);
  t.is((await groupNames()).filter((n) => n === name).length, 1);
});

for (const [what, extra, path] of [
  ['a CR LF in a header value', [['x-note', 'a\r\nforged: line']], undefined],
  ['a NUL in a header value', [['x-note', 'a\0b']], undefined],
  ['a lone LF in a header value', [['x-note', 'a\nb']], undefined],
  ['a NUL deep in a long header value', [['x-note', `${'a'.repeat(100)}\0b`]], undefined],
  ['a lone CR deep in a long header value', [['x-note', `${'a'.repeat(100)}\rb`]], undefined],
  ['a header value with leading whitespace', [['x-note', ' padded']], undefined],
  ['a CR LF in :path', [], `${G}\r\nforged: line`],
  ['a :path not starting with /', [], 'iam/v2/groups'],
  ['a space in a header name', [['x note', '1']], undefined],
] as const) {
  test.serial(`${what} resets its stream with PROTOCOL_ERROR; the connection answers the next request`, async (t) => {
    const raw = await RawH2.open(t, srv.port);
    raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headerBlock(requestFields(srv, 'GET', path ?? G, extra.map(([n, v]) => [n, v] as [string, string])))));
    const reset = await raw.next('RST_STREAM on stream 1', (f) => f.type === RST_STREAM && f.id === 1);
    t.is(resetCode(reset), PROTOCOL_ERROR);
    raw.send(get(3));
    t.is((await raw.answer(3)).status, 200);
    t.deepEqual(raw.pending(HEADERS, 1), []);
  });
}

test.serial('a malformed field stays malformed when a later block names it by its HPACK index (dynamic or static table)', async (t) => {
  // A literal added to the dynamic table (0x40, a new name): it becomes index 62.
  const indexing = (name: string, value: string) => Buffer.from([0x40, name.length, ...Buffer.from(name, 'latin1'), value.length, ...Buffer.from(value, 'latin1')]);
  const request = (id: number, more: Buffer) => frame(HEADERS, END_HEADERS | END_STREAM, id, Buffer.concat([headerBlock(requestFields(srv, 'GET', G)), more]));
  const raw = await RawH2.open(t, srv.port);
  const resetOf = async (id: number) => resetCode(await raw.next(`RST_STREAM on stream ${id}`, (f) => f.type === RST_STREAM && f.id === id));
  raw.send(request(1, indexing('x-note', 'a\r\nforged: line')));
  t.is(await resetOf(1), PROTOCOL_ERROR, 'as a literal');
  raw.send(request(3, Buffer.from([0x80 | 62])));
  t.is(await resetOf(3), PROTOCOL_ERROR, 'by its index');
  // The static table's content-length has no value: not digits.
  raw.send(request(5, Buffer.from([0x80 | 28])));
  t.is(await resetOf(5), PROTOCOL_ERROR, 'a static entry');
  // A well-formed field, added and then named by its index (the newest entry: 62), is taken both times.
  raw.send(request(7, indexing('x-note', 'fine')));
  t.is((await raw.answer(7)).status, 200);
  raw.send(request(9, Buffer.from([0x80 | 62])));
  t.is((await raw.answer(9)).status, 200);
  raw.send(request(11, Buffer.from([0x80 | 63])));
  t.is(await resetOf(11), PROTOCOL_ERROR, 'the malformed entry, now the older one');
  t.deepEqual([...raw.pending(HEADERS, 1), ...raw.pending(HEADERS, 3), ...raw.pending(HEADERS, 5), ...raw.pending(HEADERS, 11)], []);
});

test('HPACK: an integer with more continuation bytes than 2^28 needs is refused (it read as NaN and dropped the rest of the block)', (t) => {
  // A literal without indexing, new name, whose name length is 127 + 0 * 2^7 + ... (200 zero continuation bytes), then 1.
  const block = Buffer.from([0x00, 0x7f, ...Array<number>(200).fill(0x80), 0x01, 0x61]);
  t.throws(() => new HpackDecoder().decode(block), { instanceOf: HpackError });
  // Four continuation bytes still read (2^28 - 1 is the most serve takes).
  t.throws(() => new HpackDecoder().decode(Buffer.from([0x00, 0x7f, 0xff, 0xff, 0xff, 0x7f])), { instanceOf: HpackError, message: /integer too large|truncated/ });
});

test.serial('a header block with an overflowing HPACK integer ends the connection with COMPRESSION_ERROR', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  const fields = headerBlock(requestFields(srv, 'GET', G));
  const overflow = Buffer.from([0x00, 0x7f, ...Array<number>(200).fill(0x80), 0x01]);
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, Buffer.concat([fields, overflow])));
  await expectGoaway(t, raw, COMPRESSION_ERROR, 0);
  await stillAnswers(t);
});

test.serial('HEADERS with END_STREAM on a lower, never opened stream id ends the connection with PROTOCOL_ERROR', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  raw.send(get(5));
  t.is((await raw.answer(5)).status, 200);
  raw.send(get(3));
  await expectGoaway(t, raw, PROTOCOL_ERROR, 5);
});

test.serial('HEADERS with END_STREAM on a stream already answered and closed ends the connection with PROTOCOL_ERROR', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  raw.send(get(1));
  t.is((await raw.answer(1)).status, 200);
  raw.send(get(1));
  await expectGoaway(t, raw, PROTOCOL_ERROR, 1);
});

test.serial('extended CONNECT: serve announces SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 and answers one with 400 and the reason (it speaks no protocol over it); the connection goes on', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  const settings = await raw.next('SETTINGS', (f) => f.type === SETTINGS && !(f.flags & ACK));
  const announced = new Map<number, number>();
  for (let p = 0; p < settings.payload.length; p += 6) announced.set(settings.payload.readUInt16BE(p), settings.payload.readUInt32BE(p + 2));
  t.is(announced.get(0x8), 1);
  // As haproxy 2.6 sends `GET /… Upgrade: h2c` on.
  raw.send(frame(HEADERS, END_HEADERS, 1, headerBlock([
    [':method', 'CONNECT'], [':protocol', 'h2c'], [':scheme', 'http'], [':authority', `127.0.0.1:${srv.port}`], [':path', G],
  ])));
  const refused = await raw.answer(1);
  t.is(refused.status, 400);
  t.like(JSON.parse(refused.text), { code: 3, details: [{ reason: 'UPGRADE_NOT_SUPPORTED' }] });
  t.regex(JSON.parse(refused.text).message, /extended CONNECT.*Upgrade/);
  // Not run as the request it came from: the tunnel it asked for is closed (NO_ERROR), nothing else.
  const reset = await raw.next('RST_STREAM on stream 1', (f) => f.type === RST_STREAM && f.id === 1);
  t.is(resetCode(reset), NO_ERROR);
  // :protocol on anything but a CONNECT is malformed (RFC 8441 §4).
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, headerBlock([
    [':method', 'GET'], [':protocol', 'h2c'], [':scheme', 'http'], [':authority', `127.0.0.1:${srv.port}`], [':path', G],
  ])));
  t.is(resetCode(await raw.next('RST_STREAM on stream 3', (f) => f.type === RST_STREAM && f.id === 3)), PROTOCOL_ERROR);
  raw.send(get(5));
  t.is((await raw.answer(5)).status, 200);
});
