// The reference: a bare node:http server answering a small JSON body.
import http from 'node:http';

const body = JSON.stringify({ uid: 'x'.repeat(57), name: 'platform', description: '' });
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare node:http on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
