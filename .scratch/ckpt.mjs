// scratch: how much of a create's commit is the checkpoint (timed apart), vs the commit itself
import { tempDir, median } from '../bench/lib.js';
import { openDatabase } from '../dist/server/store/db.js';
import { randomBytes } from 'node:crypto';
const db = openDatabase(tempDir());
db.pragma('wal_autocheckpoint = 0');
const ins = db.prepare('INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
const ev = db.prepare("INSERT INTO events (id, type, source, subject, grp, event_time, body_type, data) VALUES (?, 'x', 'y', ?, ?, ?, 'z', ?)");
const meta = db.prepare("INSERT INTO meta (key, value) VALUES ('change_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
const parent = randomBytes(20).toString('hex');
const row = JSON.stringify({ description: '', verified: false });
let i = 0;
const create = () => {
  const t = new Date().toISOString(); const uid = `${parent}/${randomBytes(8).toString('hex')}`;
  db.exec('BEGIN IMMEDIATE'); ins.run(uid, 'group', parent, `g-${i++}`, t, t, row); ev.run(randomBytes(16).toString('hex'), uid, uid, t, row.repeat(8)); meta.run(String(i)); db.exec('COMMIT');
};
for (let k = 0; k < 3000; k++) create();
db.pragma('wal_checkpoint(TRUNCATE)');
for (let r = 0; r < 3; r++) {
  let tc = 0, tk = 0, n = 0;
  for (let k = 0; k < 1200; k++) {
    let t = performance.now(); create(); tc += performance.now() - t; n++;
    if (k % 60 === 59) { t = performance.now(); db.pragma('wal_checkpoint(PASSIVE)'); tk += performance.now() - t; }
  }
  console.log(`commit ${(tc / n).toFixed(3)} ms, checkpoint share ${(tk / n).toFixed(3)} ms per create`);
}
