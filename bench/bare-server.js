// The reference: a bare node server answering one fixed body, by default a small JSON one (a
// group), or the bytes of the file named as its argument (the same answer serve sends).
//   node bench/bare-server.js [FILE]          node:http, writeHead + end
//   node bench/bare-server.js --h2 [FILE]     node:http2 (h2c), the 'stream' API: respond + end
//   node bench/bare-server.js --grpc [FILE]   node:http2 as a unary gRPC call is answered: the
//                                             request's DATA read, the body as one gRPC message,
//                                             then grpc-status in trailers
// Nothing else (no routing, no auth): node's own cost of an answer, serve's floor.
import http from 'node:http';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';

const mode = ['--h2', '--grpc'].includes(process.argv[2]) ? process.argv[2] : '--h1';
const file = process.argv[mode === '--h1' ? 2 : 3];
const body = file ? readFileSync(file) : Buffer.from(JSON.stringify({ uid: 'x'.repeat(57), name: 'platform', description: '' }));

let server;
if (mode === '--h1') {
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
} else {
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), body]);
  framed.writeUInt32BE(body.length, 1);
  server = http2.createServer();
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    if (mode === '--h2') {
      stream.respond({ ':status': 200, 'content-type': 'application/json', 'content-length': body.length });
      stream.end(body);
      return;
    }
    stream.on('data', () => {});
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(framed);
    });
  });
}
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare node:${mode === '--h1' ? 'http' : 'http2'} on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
