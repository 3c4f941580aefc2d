// node bench/wal-frames.js [creates before] [creates counted]: the pages one sequential create
// commits, by b-tree. A serve in this process (dist/), the owner creating groups below the
// organization over HTTP; after a warm-up, checkpoints are turned off so that the WAL keeps
// every frame the counted creates wrote, and each frame's page is named through dbstat.
// Frames are what a commit writes and fsyncs: fewer frames, a cheaper commit.
import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { Agent, request } from 'undici';
import { tempDir } from './lib.js';

const [before = 2000, counted = 200] = process.argv.slice(2).map(Number);
const { startServer } = await import('../dist/server/index.js');
const dataDir = tempDir();
const srv = await startServer({ dataDir, port: 0, rateLimit: 'off' });
const one = new Agent({ connections: 1 });
try {
  const headers = { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' };
  let made = 0;
  const create = async () => {
    const r = await request(`${srv.url}/iam/v2/groups`, {
      method: 'POST', headers, dispatcher: one, body: JSON.stringify({ parent: srv.organizationUid, group: { name: `g-${made++}` } }),
    });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`create: ${r.statusCode}`);
  };
  for (let i = 0; i < before; i++) await create();
  const db = srv.store.db;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  for (let i = 0; i < counted; i++) await create();
  const pageSize = db.pragma('page_size', { simple: true });
  const fd = openSync(`${dataDir}/pctl.db-wal`, 'r');
  const frames = (fstatSync(fd).size - 32) / (pageSize + 24);
  const header = Buffer.alloc(4);
  const byPage = new Map();
  for (let f = 0; f < frames; f++) {
    readSync(fd, header, 0, 4, 32 + f * (pageSize + 24));
    const page = header.readUInt32BE(0);
    byPage.set(page, (byPage.get(page) ?? 0) + 1);
  }
  closeSync(fd);
  const pageOf = new Map(db.prepare('SELECT name, pageno, pagetype FROM dbstat').all().map((r) => [r.pageno, `${r.name} (${r.pagetype})`]));
  const byTree = new Map();
  for (const [page, n] of byPage) {
    const tree = pageOf.get(page) ?? `page ${page}`;
    byTree.set(tree, (byTree.get(tree) ?? 0) + n);
  }
  console.log(`WAL frames per create: ${(frames / counted).toFixed(1)} (${frames} for ${counted} creates after ${before})`);
  for (const [tree, n] of [...byTree].sort((a, b) => b[1] - a[1])) console.log(`${(n / counted).toFixed(2).padStart(7)}  ${tree}`);
} finally {
  await one.close();
  await srv.close();
  rmSync(dataDir, { recursive: true, force: true });
}
