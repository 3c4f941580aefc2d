// serve's HTTP/2 layer alone, in two (or more) built checkouts: an H2Connection on a socket
// that is no socket, fed what a node:http2 client sends for a GET (captured once over
// loopback: its HPACK with the dynamic table in use and the token as a never-indexed literal,
// as nghttp2 sends it), each stream answered at once (a 300-byte JSON answer). CPU per request
// (user + sys) of N requests; the checkouts alternate, each in a process of its own, ROUNDS
// times; medians. No serve, no routing: what the frames, HPACK, the header checks and the
// stream bookkeeping cost.
//   node bench/h2-transport.js [--rounds N] [--requests N] CHECKOUT...
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, numericOption } from './lib.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => numericOption(argv, name, fallback);

if (argv[0] === '--child') {
  const [, module, hex, requests] = argv;
  console.log(JSON.stringify(await measure(module, Buffer.from(hex, 'hex'), Number(requests))));
} else {
  const rounds = option('--rounds', 7);
  const requests = option('--requests', 50_000);
  const checkouts = argv.map((d) => resolve(d));
  if (!checkouts.length) throw new Error('usage: node bench/h2-transport.js [--rounds N] [--requests N] CHECKOUT...');
  // The HTTP/2 layer's place, before and after the layout moved it (0b4949e's: dist/server/h2).
  const modules = checkouts.map((dir) => ['transport/h2', 'h2'].map((p) => join(dir, 'dist', 'server', p, 'connection.js')).find((f) => existsSync(f)));
  const missing = checkouts.filter((_, k) => !modules[k]);
  if (missing.length) throw new Error(`not built (npm run build): ${missing.join(', ')}`);
  const hex = (await capture()).toString('hex');
  const cpu = checkouts.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...checkouts.keys()].reverse() : [...checkouts.keys()];
    for (const k of order) {
      const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', pathToFileURL(modules[k]).href, hex, String(requests)], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      cpu[k].push(JSON.parse(r.stdout).cpuUs);
    }
  }
  console.log(`${rounds} rounds of ${requests} requests, CPU µs per request (median, then each round)`);
  for (const [k, dir] of checkouts.entries()) console.log(`  ${median(cpu[k]).toFixed(2).padStart(6)}  ${dir}   (${cpu[k].map((c) => c.toFixed(2)).join(' ')})`);
}

/** What a node:http2 client writes for three GETs with a bearer token: the preface, SETTINGS and three HEADERS. */
function capture() {
  const token = `Bearer ${'eyJhbGciOiJFUzI1NiJ9'.padEnd(290, 'x')}`;
  return new Promise((done) => {
    let bytes = Buffer.alloc(0);
    const server = net.createServer((socket) => {
      socket.on('data', (chunk) => {
        bytes = Buffer.concat([bytes, chunk]);
        if (headerFrames(bytes).length < 3) return;
        client.destroy();
        socket.destroy();
        server.close();
        done(bytes);
      });
    });
    let client;
    server.listen(0, '127.0.0.1', () => {
      client = http2.connect(`http://127.0.0.1:${server.address().port}`);
      client.on('error', () => {});
      for (let i = 0; i < 3; i++) client.request({ ':path': '/iam/v2/groups/e726cd4419a757cd54be271d83cd6acfacaa3a45', authorization: token }).on('error', () => {});
    });
  });
}

/** The HEADERS frames of `bytes` (after the 24-byte preface), each whole. */
function headerFrames(bytes) {
  const frames = [];
  for (let p = 24; p + 9 <= bytes.length;) {
    const length = bytes.readUIntBE(p, 3);
    if (p + 9 + length > bytes.length) break;
    if (bytes[p + 3] === 0x1) frames.push(bytes.subarray(p, p + 9 + length));
    p += 9 + length;
  }
  return frames;
}

async function measure(module, bytes, requests) {
  const { H2Connection } = await import(module);
  let feed;
  const socket = {
    on(event, listener) {
      if (event === 'data') feed = listener;
      return this;
    },
    write: () => true, writableLength: 0, pause() {}, resume() {}, destroy() {}, end() {}, remoteAddress: '127.0.0.1',
  };
  const body = Buffer.alloc(300, 'x');
  let answered = 0;
  new H2Connection(socket, {
    address: 'address 127.0.0.1',
    onStream: (stream) => {
      answered++;
      stream.respond(200, { 'content-type': 'application/json', 'content-length': body.length }, body);
    },
  });
  const [first, again] = headerFrames(bytes);
  // The preface and SETTINGS, then the first request (it fills the dynamic table).
  feed(bytes.subarray(0, 24 + 9 + bytes.readUIntBE(24, 3)));
  feed(Buffer.from(first));
  // Each later request: the second's HEADERS under a new stream id, and a WINDOW_UPDATE giving
  // the connection back what its answer took (as a client reading its answers does).
  const windowUpdate = Buffer.from([0, 0, 4, 0x8, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  windowUpdate.writeUInt32BE(body.length, 9);
  const read = Buffer.concat([again, windowUpdate]);
  let id = 3;
  const next = () => {
    id += 2;
    const chunk = Buffer.from(read);
    chunk.writeUInt32BE(id, 5);
    feed(chunk);
  };
  for (let i = 0; i < 5000; i++) next(); // warm-up (JIT)
  const before = answered;
  const t0 = process.cpuUsage();
  for (let i = 0; i < requests; i++) next();
  const used = process.cpuUsage(t0);
  if (answered - before !== requests) throw new Error(`${answered - before} of ${requests} requests answered`);
  return { cpuUs: (used.user + used.system) / requests };
}
