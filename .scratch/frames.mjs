// scratch: in-process serve; which b-tree pages one create writes (WAL frames, autocheckpoint off)
import { readFileSync, openSync, readSync, fstatSync } from 'node:fs';
import { request, Agent } from 'undici';
import { tempDir } from '../bench/lib.js';
const { startServer } = await import(process.env.DIST ?? '../dist/server/index.js');
const dataDir = tempDir();
const srv = await startServer({ dataDir, port: 0, rateLimit: 'off' });
const db = srv.store.db;
const headers = { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' };
const one = new Agent({ connections: 1 });
let made = 0;
const create = async () => {
  const r = await request(`${srv.url}/iam/v2/groups`, { method: 'POST', headers, dispatcher: one, body: JSON.stringify({ parent: srv.organizationUid, group: { name: `g-${made++}` } }) });
  await r.body.text();
  if (r.statusCode !== 200) throw new Error(`create ${r.statusCode}`);
};
const pre = Number(process.argv[2] ?? 2000);
for (let i = 0; i < pre; i++) await create();
db.pragma('wal_checkpoint(TRUNCATE)');
db.pragma('wal_autocheckpoint = 0');
const K = Number(process.argv[3] ?? 20);
for (let i = 0; i < K; i++) await create();
const fd = openSync(`${dataDir}/pctl.db-wal`, 'r');
const size = fstatSync(fd).size;
const pageSize = db.pragma('page_size', { simple: true });
const frames = (size - 32) / (pageSize + 24);
const pages = new Map();
const buf = Buffer.alloc(24);
for (let f = 0; f < frames; f++) {
  readSync(fd, buf, 0, 24, 32 + f * (pageSize + 24));
  const p = buf.readUInt32BE(0);
  pages.set(p, (pages.get(p) ?? 0) + 1);
}
const names = new Map(db.prepare('SELECT name, pageno, pagetype FROM dbstat').all().map((r) => [r.pageno, `${r.name} ${r.pagetype}`]));
const byName = new Map();
for (const [p, n] of pages) { const k = names.get(p) ?? `page ${p} (?)`; byName.set(k, (byName.get(k) ?? 0) + n); }
console.log(`${frames} frames for ${K} creates = ${(frames / K).toFixed(1)} per create`);
for (const [k, n] of [...byName].sort((a, b) => b[1] - a[1])) console.log(`${(n / K).toFixed(2).padStart(6)}  ${k}`);
await one.close();
await srv.close();
