// serve's own HTTP/2 (src/server/transport/h2): its HPACK against RFC 7541's worked examples, clients
// nobody here wrote (node's nghttp2-based client, curl) against a real serve over h2c, and
// hostile or broken frames written by hand on a raw socket: each is answered as RFC 9113 says
// and none of them takes serve down.
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import http2 from 'node:http2';
import { promisify } from 'node:util';
import { encodeHeaders, HpackDecoder, HpackError } from '../src/server/transport/h2/hpack.js';
import {
  ACK, DATA, END_HEADERS, END_STREAM, expectGoaway, frame, FRAME_SIZE_ERROR, GOAWAY, HEADERS, headerBlock, PING, PROTOCOL_ERROR, RawH2, REFUSED_STREAM, RST_STREAM, SETTINGS, type Fields,
} from './helpers/raw-h2.js';
import { request, startTestServer, type TestServer } from './helpers/serve.js';

const G = '/iam/v2/groups';

// ---- HPACK ------------------------------------------------------------------------------------

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** RFC 7541 C.3 and C.4: the same three requests, plain and Huffman-coded, on one connection. */
const REQUESTS: Fields[] = [
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']],
  [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']],
  [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']],
];
const C3 = [
  '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
  '8286 84be 5808 6e6f 2d63 6163 6865',
  '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
];
const C4 = [
  '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
  '8286 84be 5886 a8eb 1064 9cbf',
  '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
];

/** RFC 7541 C.5 and C.6: three responses, plain and Huffman-coded, with a 256-byte table (entries are evicted). */
const RESPONSES: Fields[] = [
  [[':status', '302'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']],
  [[':status', '307'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']],
  [
    [':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], ['location', 'https://www.example.com'],
    ['content-encoding', 'gzip'], ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
  ],
];
const C5 = [
  `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d
   546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
  '4803 3330 37c1 c0bf',
  `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f
   6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b
   2076 6572 7369 6f6e 3d31`,
];
const C6 = [
  `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7
   8f0b 97c8 e9ae 82ae 43d3`,
  '4883 640e ffc1 c0bf',
  `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335
   dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
];

/** The dynamic table after the three requests, and after the three responses (the older entries evicted), newest first. */
const REQUEST_TABLE: Fields = [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']];
const RESPONSE_TABLE: Fields = [RESPONSES[2]![5]!, ['content-encoding', 'gzip'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT']];

for (const [name, blocks, expected, table, limit] of [
  ['C.3 (requests, no Huffman)', C3, REQUESTS, REQUEST_TABLE, undefined],
  ['C.4 (requests, Huffman)', C4, REQUESTS, REQUEST_TABLE, undefined],
  ['C.5 (responses, no Huffman, a 256-byte table)', C5, RESPONSES, RESPONSE_TABLE, 256],
  ['C.6 (responses, Huffman, a 256-byte table)', C6, RESPONSES, RESPONSE_TABLE, 256],
] as const) {
  test(`HPACK: RFC 7541 ${name}: three blocks on one decoder, the later ones indexing the dynamic table`, (t) => {
    const decoder = new HpackDecoder(limit);
    blocks.forEach((block, i) => t.deepEqual(decoder.decode(hex(block)), expected[i], `block ${i + 1}`));
    // The table as the RFC lists it after the third block: entries 62-64, and nothing at 65.
    t.deepEqual(decoder.decode(hex('be bf c0')), table);
    t.throws(() => decoder.decode(hex('c1')), { instanceOf: HpackError });
  });
}

test('HPACK: a Huffman string is refused unless it ends in at most 7 bits of ones', (t) => {
  // A literal field without indexing, its name the Huffman-coded "a" (00011) and its value "x".
  t.deepEqual(new HpackDecoder().decode(hex('00 81 1f 01 78')), [['a', 'x']], 'padded with 111: valid');
  t.throws(() => new HpackDecoder().decode(hex('00 81 18 01 78')), { instanceOf: HpackError }, 'padded with 000');
  t.throws(() => new HpackDecoder().decode(hex('00 82 1f ff 01 78')), { instanceOf: HpackError }, 'padded with 11 ones');
});

test('HPACK: an index past the static and dynamic tables is refused', (t) => {
  const decoder = new HpackDecoder();
  t.deepEqual(decoder.decode(hex('bd')), [['www-authenticate', '']], 'the last static entry');
  t.throws(() => decoder.decode(hex('be')), { instanceOf: HpackError }, 'the first dynamic one, with the table empty');
  t.throws(() => new HpackDecoder().decode(hex('80')), { instanceOf: HpackError }, 'index 0');
  // One entry added (literal with incremental indexing, name "a", value "b"): 62 is it, 63 is past it.
  const indexed = new HpackDecoder();
  t.deepEqual(indexed.decode(hex('40 01 61 01 62 be')), [['a', 'b'], ['a', 'b']]);
  t.throws(() => indexed.decode(hex('bf')), { instanceOf: HpackError });
});

test('HPACK: the field check is asked of every literal and table entry; a field named by its index keeps the verdict it had when it was added', (t) => {
  const asked: string[] = [];
  const decoder = new HpackDecoder(4096, (name, value) => (asked.push(value), !value.includes('!')));
  const literal = (first: number, name: string, value: string) => [first, name.length, ...Buffer.from(name), value.length, ...Buffer.from(value)];
  const verdict = (bytes: number[]) => (decoder.decode(Buffer.from(bytes)), decoder.failedCheck ? 'refused' : 'passed');
  asked.length = 0;
  t.is(verdict(literal(0x00, 'x', 'ok')), 'passed', 'a literal without indexing');
  t.is(verdict(literal(0x10, 'x', 'bad!')), 'refused', 'a never-indexed literal, the same name');
  t.is(verdict(literal(0x00, 'x', 'ok')), 'passed');
  t.is(verdict(literal(0x00, 'x', 'bad!')), 'refused', 'a value that passed before does not make another pass');
  t.deepEqual(asked, ['ok', 'bad!', 'bad!'], 'the same literal again is not asked again');
  t.is(verdict([...literal(0x40, 'y', 'bad!'), ...literal(0x40, 'z', 'fine')]), 'refused', 'two fields added to the table, one refused');
  asked.length = 0;
  t.is(verdict([0x80 | 62]), 'passed', 'the newest entry (z: fine) by its index');
  t.is(verdict([0x80 | 62, 0x80 | 63]), 'refused', 'and the older one (y: bad!)');
  t.is(verdict([0x82, 0x84]), 'passed', 'static entries');
  t.deepEqual(asked, [], 'no field named by its index is asked again');
});

test('HPACK: a dynamic table size update over the announced limit is refused', (t) => {
  t.deepEqual(new HpackDecoder().decode(hex('3f e1 1f')), [], '4096: the limit itself');
  t.throws(() => new HpackDecoder().decode(hex('3f e2 1f')), { instanceOf: HpackError }, '4097');
  t.deepEqual(new HpackDecoder(256).decode(hex('3f e1 01')), [], '256 under a limit of 256');
  t.throws(() => new HpackDecoder(256).decode(hex('3f e2 01')), { instanceOf: HpackError }, '257 under a limit of 256');
  t.throws(() => new HpackDecoder().decode(hex('82 20')), { instanceOf: HpackError }, 'an update after a field');
  // An update to 0 empties the table; back at 4,096 it stays empty.
  const decoder = new HpackDecoder();
  t.deepEqual(decoder.decode(hex('40 01 61 01 62 be')), [['a', 'b'], ['a', 'b']]);
  t.deepEqual(decoder.decode(hex('20 3f e1 1f 82')), [[':method', 'GET']]);
  t.throws(() => decoder.decode(hex('be')), { instanceOf: HpackError });
});

test('HPACK: what encodeHeaders writes decodes back to the same fields', (t) => {
  const long = 'v'.repeat(70_000);
  const fields: Fields = [
    ['Content-Type', 'application/json'], ['x-request-id', 'r-1'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2'],
    ['content-length', '12'], ['x-long', long], ['x-empty', ''], ['x-latin1', 'caf\u00e9'],
  ];
  const lower = fields.map(([n, v]): [string, string] => [n.toLowerCase(), v]);
  const decoder = new HpackDecoder();
  for (const status of [201, 200, 404, 429, 503]) {
    t.deepEqual(decoder.decode(encodeHeaders(status, fields)), [[':status', String(status)], ...lower], String(status));
  }
  t.deepEqual(decoder.decode(encodeHeaders(undefined, [['grpc-status', '0'], ['grpc-message', 'ok']])), [['grpc-status', '0'], ['grpc-message', 'ok']], 'trailers');
  // Nothing of the above went into the peer's table: a fresh decoder reads any block alone.
  t.deepEqual(new HpackDecoder().decode(encodeHeaders(201, [['x-a', 'b']])), [[':status', '201'], ['x-a', 'b']]);
  // A status of its own literal and no other field (the fuzz found such a block cut short).
  for (const status of [405, 999]) t.deepEqual(new HpackDecoder().decode(encodeHeaders(status, [])), [[':status', String(status)]]);
  t.throws(() => encodeHeaders(200, [['x-bad', 'a\r\nset-cookie: b']]), { instanceOf: TypeError });
});

// ---- A real serve --------------------------------------------------------------------------------

// One serve for the rest of the file; serial, so the last test sees it after all the others.
let srv: TestServer;
test.before(async () => {
  srv = await startTestServer();
});
test.after.always(async () => {
  await srv?.dispose();
});

const auth = () => ({ authorization: `Bearer ${srv.ownerToken}` });
const orgPath = () => `${G}/${encodeURIComponent(srv.organizationUid)}`;

interface H2Answer { status: number; text: string }

/** One request on a node:http2 session; `body` parts are written one by one, each after the last was taken. */
function h2request(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: string[]): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ...auth(), ...headers }, { endStream: body === undefined });
    let status = 0;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.setEncoding('utf8').on('data', (c: string) => (text += c));
    stream.on('end', () => resolve({ status, text }));
    stream.on('error', reject);
    if (body) {
      const write = (i: number): void => {
        if (i === body.length) return void stream.end();
        stream.write(body[i], (err) => (err ? reject(err) : write(i + 1)));
      };
      write(0);
    }
  });
}

function connect(t: ExecutionContext, options?: http2.ClientSessionOptions): http2.ClientHttp2Session {
  const session = http2.connect(srv.url, options);
  // A session's error errors its streams too, which fails the request that saw it.
  session.on('error', () => {});
  t.teardown(() => void session.destroy());
  return session;
}

test.serial('node\'s HTTP/2 client: 300 sequential and 50 concurrent GETs on one session answer what HTTP/1.1 does', async (t) => {
  const expected = await srv.ok('GET', orgPath());
  const session = connect(t);
  let goaway = false;
  session.on('goaway', () => (goaway = true));
  const sequential: H2Answer[] = [];
  for (let i = 0; i < 300; i++) sequential.push(await h2request(session, { ':path': orgPath() }));
  const concurrent = await Promise.all(Array.from({ length: 50 }, () => h2request(session, { ':path': orgPath() })));
  for (const [i, res] of [...sequential, ...concurrent].entries()) {
    if (res.status !== 200 || res.text !== sequential[0]!.text) t.fail(`request ${i}: ${res.status} ${res.text}`);
  }
  t.is(sequential[0]!.status, 200);
  t.deepEqual(JSON.parse(sequential[0]!.text), expected);
  t.false(goaway, 'the session was never told to go away');
  t.false(session.closed || session.destroyed);
});

test.serial('node\'s HTTP/2 client: a request body in many DATA frames and several stream windows arrives whole', async (t) => {
  const session = connect(t);
  // A description of the most a group takes (4,096), in JSON padded with whitespace to 900 KB:
  // many frames of the 16,384 bytes serve takes, and over three of the 256 KiB windows serve
  // gives a stream (given back as the body is read), written in four parts.
  const description = Array.from({ length: 512 }, (_, i) => `${String(i % 1000).padStart(3, '0')}-abcd`).join('');
  const pad = ' '.repeat(450_000);
  const body = `{${pad}"parent":${JSON.stringify(srv.organizationUid)},${pad}"group":{"name":"made-over-h2","description":${JSON.stringify(description)}}}`;
  t.true(body.length > 3 * 256 * 1024 && body.length < 1024 * 1024);
  const parts = [0, 1, 2, 3].map((i) => body.slice((i * body.length) / 4, ((i + 1) * body.length) / 4));
  t.is(parts.join(''), body);
  const headers = { ':method': 'POST', ':path': G, 'content-type': 'application/json', 'content-length': String(body.length) };
  const made = await h2request(session, headers, parts);
  t.is(made.status, 200, made.text);
  const uid = (JSON.parse(made.text) as { uid: string }).uid;
  const read = await srv.ok('GET', `${G}/${encodeURIComponent(uid)}`);
  t.is(read.name, 'made-over-h2');
  t.is(read.description, description);
});

test.serial('node\'s HTTP/2 client: an answer many times its 1 KiB stream window (and over the 64 KiB connection window) arrives whole', async (t) => {
  const description = 'd'.repeat(4_096);
  await Promise.all(Array.from({ length: 40 }, (_, i) => srv.ok('POST', G, { parent: srv.organizationUid, group: { name: `big-${i}`, description } })));
  const path = `${G}?page_size=200`;
  const expected = await srv.ok('GET', path);
  // node's client cannot make a connection window smaller than the protocol's 65,535: the answer is twice that and more.
  const session = connect(t, { settings: { initialWindowSize: 1024 } });
  const got = await h2request(session, { ':path': path });
  t.is(got.status, 200);
  t.true(Buffer.byteLength(got.text) > 2 * 65_535, `${Buffer.byteLength(got.text)} bytes`);
  t.deepEqual(JSON.parse(got.text), expected);
  // And again on the same session, with the windows already spent once.
  t.deepEqual(JSON.parse((await h2request(session, { ':path': path })).text), expected);
});

test.serial('curl --http2-prior-knowledge: a GET by uid over h2c answers what HTTP/1.1 does', async (t) => {
  const expected = await srv.ok('GET', orgPath());
  const { stdout } = await promisify(execFile)('curl', [
    '--http2-prior-knowledge', '--silent', '--show-error', '--max-time', '10',
    '--header', `authorization: Bearer ${srv.ownerToken}`, '--write-out', '\n%{http_version} %{http_code}', srv.url + orgPath(),
  ]);
  const cut = stdout.lastIndexOf('\n');
  t.is(stdout.slice(cut + 1), '2 200');
  t.deepEqual(JSON.parse(stdout.slice(0, cut)), expected);
});

// ---- Frames by hand ------------------------------------------------------------------------------

const requestFields = (method: string, path: string, extra: Fields = []): Fields => [
  [':method', method], [':scheme', 'http'], [':authority', `127.0.0.1:${srv.port}`], [':path', path], ['authorization', `Bearer ${srv.ownerToken}`], ...extra,
];

test.serial('raw: a connection whose first bytes are not the HTTP/2 preface gets no HTTP/2 and is ended', async (t) => {
  const raw = await RawH2.open(t, srv.port, false);
  raw.send(Buffer.from('PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n', 'latin1'), frame(SETTINGS, 0, 0));
  await raw.closed;
  const text = raw.received.toString('latin1');
  t.regex(text, /^HTTP\/1\.1 400 /, 'answered as the HTTP/1.1 it then is: a malformed request');
  t.regex(text, /connection: close/i);
});

test.serial('raw: DATA on stream 0 ends the connection with GOAWAY PROTOCOL_ERROR', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  raw.send(frame(DATA, 0, 0, Buffer.from('x')));
  const goaway = await expectGoaway(t, raw, PROTOCOL_ERROR, 0);
  t.is(goaway.id, 0);
});

test.serial('raw: an uppercase header name resets its stream with PROTOCOL_ERROR; the connection answers the next request', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, headerBlock(requestFields('GET', orgPath(), [['X-Upper', '1']]))));
  const reset = await raw.next('RST_STREAM on stream 1', (f) => f.type === RST_STREAM && f.id === 1);
  t.is(reset.payload.readUInt32BE(0), PROTOCOL_ERROR);
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, headerBlock(requestFields('GET', orgPath(), [['x-lower', '1']]))));
  const answer = await raw.answer(3);
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.text), await srv.ok('GET', orgPath()));
  t.is(raw.pending(HEADERS, 1).length, 0, 'stream 1 was never answered');
  t.is(raw.pending(GOAWAY).length, 0);
  t.false(raw.isClosed);
});

test.serial('raw: headers over 64 KiB (in CONTINUATION frames) are answered 431 with the AIP-193 body; the connection answers the next request', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  const block = headerBlock(requestFields('GET', orgPath(), [['x-big', 'b'.repeat(70_000)]]));
  const CONTINUATION = 0x9;
  for (let at = 0; at < block.length; at += 16_384) {
    const last = at + 16_384 >= block.length;
    raw.send(frame(at === 0 ? HEADERS : CONTINUATION, (last ? END_HEADERS : 0) | (at === 0 ? END_STREAM : 0), 1, block.subarray(at, at + 16_384)));
  }
  const refused = await raw.answer(1);
  t.is(refused.status, 431);
  t.like(JSON.parse(refused.text), { code: 3, status: 'INVALID_ARGUMENT', details: [{ reason: 'MALFORMED_REQUEST' }] });
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, headerBlock(requestFields('GET', orgPath()))));
  t.is((await raw.answer(3)).status, 200);
});

test.serial('raw: a PING is answered by a PING ACK with the same 8 bytes', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  const payload = Buffer.from([0, 1, 2, 3, 0xfc, 0xfd, 0xfe, 0xff]);
  raw.send(frame(PING, 0, 0, payload));
  const ack = await raw.next('a PING', (f) => f.type === PING);
  t.is(ack.flags, ACK);
  t.is(ack.id, 0);
  t.deepEqual(ack.payload, payload);
});

test.serial('raw: a frame over 16,384 bytes ends the connection with GOAWAY FRAME_SIZE_ERROR', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  // A POST whose body is still to come, then a DATA frame one byte over the default SETTINGS_MAX_FRAME_SIZE.
  raw.send(frame(HEADERS, END_HEADERS, 1, headerBlock(requestFields('POST', G, [['content-type', 'application/json']]))));
  raw.send(frame(DATA, END_STREAM, 1, Buffer.alloc(16_385, 0x20)));
  await expectGoaway(t, raw, FRAME_SIZE_ERROR, 1);
});

test.serial('raw: past 256 concurrent streams, the 257th is refused (REFUSED_STREAM); one freed makes room again', async (t) => {
  const raw = await RawH2.open(t, srv.port);
  // 257 POSTs whose bodies never come: each stream stays open, waiting.
  const open = Array.from({ length: 257 }, (_, i) => 2 * i + 1);
  raw.send(...open.map((id) => frame(HEADERS, END_HEADERS, id, headerBlock(requestFields('POST', G, [['content-type', 'application/json']])))));
  const refused = await raw.next('RST_STREAM', (f) => f.type === RST_STREAM);
  t.is(refused.id, 513, 'the 257th stream');
  t.is(refused.payload.readUInt32BE(0), REFUSED_STREAM);
  await raw.roundTrip();
  t.deepEqual(raw.pending(RST_STREAM), [], 'no other stream was reset');
  t.deepEqual(raw.pending(HEADERS), [], 'none answered: they wait for their bodies');
  t.is(raw.pending(GOAWAY).length, 0);
  // Stream 1's body (a create without a parent: 400), and with it answered a new stream is taken.
  raw.send(frame(DATA, END_STREAM, 1, Buffer.from(JSON.stringify({ group: { name: 'no-parent' } }))));
  t.is((await raw.answer(1)).status, 400);
  raw.send(frame(HEADERS, END_HEADERS | END_STREAM, 515, headerBlock(requestFields('GET', orgPath()))));
  const answer = await raw.answer(515);
  t.is(answer.status, 200, answer.text);
  await raw.roundTrip();
  t.deepEqual(raw.pending(RST_STREAM), []);
});

test.serial('after all of the above, serve still answers over HTTP/1.1 and HTTP/2', async (t) => {
  const res = await request(srv.url, 'GET', orgPath(), undefined, auth());
  t.is(res.status, 200);
  t.is(res.json.uid, srv.organizationUid);
  const session = connect(t);
  const got = await h2request(session, { ':path': orgPath() });
  t.is(got.status, 200);
  t.deepEqual(JSON.parse(got.text), res.json);
});
