// scratch: in-process serve; where a create's wall time goes (flush, COMMIT) vs GET round trip
import { request, Agent } from 'undici';
import { tempDir, sequentialRate } from '../bench/lib.js';
import { startServer } from '../dist/server/index.js';
const dataDir = process.env.SHM ? (await import('node:fs')).mkdtempSync('/dev/shm/wr-') : tempDir();
const srv = await startServer({ dataDir, port: 0, rateLimit: 'off' });
const store = srv.store;
const db = store.db;
let tCommit = 0, tFlush = 0, nCommit = 0;
const exec = db.exec.bind(db);
db.exec = (sql) => { if (sql !== 'COMMIT') return exec(sql); const t = performance.now(); const r = exec(sql); tCommit += performance.now() - t; nCommit++; return r; };
const flush = store.flush.bind(store);
store.flush = () => { const t = performance.now(); flush(); tFlush += performance.now() - t; };
const headers = { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' };
const one = new Agent({ connections: 1 });
let made = 0;
const create = async () => {
  const r = await request(`${srv.url}/iam/v2/groups`, { method: 'POST', headers, dispatcher: one, body: JSON.stringify({ parent: srv.organizationUid, group: { name: `g-${made++}` } }) });
  await r.body.text();
  if (r.statusCode !== 200) throw new Error(`create ${r.statusCode}`);
};
const bad = async () => {
  const r = await request(`${srv.url}/iam/v2/groups`, { method: 'POST', headers, dispatcher: one, body: '{"parent": 5}' });
  await r.body.text();
};
const get = async () => { const r = await request(`${srv.url}/iam/v2/groups/${srv.organizationUid}`, { headers, dispatcher: one }); await r.body.text(); };
const n = Number(process.argv[2] ?? 2000);
await sequentialRate(create, 300); await sequentialRate(get, 300); await sequentialRate(bad, 300);
for (let round = 0; round < 3; round++) {
  tCommit = tFlush = nCommit = 0;
  const c = await sequentialRate(create, n);
  const cc = tCommit / n, ff = tFlush / n;
  const g = await sequentialRate(get, n);
  const b = await sequentialRate(bad, n);
  console.log(`create ${(1000 / c).toFixed(3)} ms: flush ${ff.toFixed(3)} (COMMIT ${cc.toFixed(3)}, commits ${nCommit}); GET ${(1000 / g).toFixed(3)} ms; 400 POST ${(1000 / b).toFixed(3)} ms`);
}
await one.close();
await srv.close();
