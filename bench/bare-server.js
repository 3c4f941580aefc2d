// The reference: a bare node:http server answering one fixed JSON body, by default a small
// one (a group), or the bytes of the file named as its argument (the same page serve sends).
import http from 'node:http';
import { readFileSync } from 'node:fs';

const body = process.argv[2]
  ? readFileSync(process.argv[2])
  : Buffer.from(JSON.stringify({ uid: 'x'.repeat(57), name: 'platform', description: '' }));
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`bare node:http on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
