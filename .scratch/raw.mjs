// scratch: commit cost of a create's rows under variants, interleaved rounds, medians
import { tempDir, sequentialRate, median } from '../bench/lib.js';
import { openDatabase } from '../dist/server/store/db.js';
import { randomBytes } from 'node:crypto';
function variant(name, { autockpt = 1000, lean = false, oneRow = false }) {
  const db = openDatabase(tempDir());
  if (lean) db.exec(`DROP INDEX resources_alt; CREATE INDEX resources_alt ON resources (kind, alt_key) WHERE alt_key IS NOT NULL;
    DROP TABLE events; CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL, subject TEXT NOT NULL, grp TEXT NOT NULL, event_time TEXT NOT NULL, body_type TEXT NOT NULL, data TEXT NOT NULL)`);
  db.pragma(`wal_autocheckpoint = ${autockpt}`);
  db.exec('CREATE TABLE one (k INTEGER PRIMARY KEY, v TEXT)');
  const ins = db.prepare('INSERT INTO resources (uid, kind, parent, name, alt_key, create_time, update_time, data) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
  const ev = db.prepare("INSERT INTO events (id, type, source, subject, grp, event_time, body_type, data) VALUES (?, 'dev.chainguard.api.iam.group.created.v1', 'http://127.0.0.1/iam/v2/groups', ?, ?, ?, 'platform.iam.v2.Group', ?)");
  const meta = db.prepare("INSERT INTO meta (key, value) VALUES ('change_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  const one = db.prepare('INSERT INTO one (v) VALUES (?)');
  const parent = randomBytes(20).toString('hex');
  let i = 0;
  const row = JSON.stringify({ description: '', verified: false });
  const data = JSON.stringify({ actor: { subject: parent + '/0123456789abcdef' }, body: { uid: parent + '/0123456789abcdef', name: 'g-1234', description: '', createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z', verified: false } });
  return { name, db, run: async () => {
    db.exec('BEGIN IMMEDIATE');
    if (oneRow) one.run(row);
    else {
      const t = new Date().toISOString();
      const uid = `${parent}/${randomBytes(8).toString('hex')}`;
      ins.run(uid, 'group', parent, `g-${i++}`, t, t, row);
      ev.run(randomBytes(16).toString('hex'), uid, uid, t, data);
      if (!lean) meta.run(String(i));
    }
    db.exec('COMMIT');
  } };
}
const vs = [
  variant('one-row', { oneRow: true }),
  variant('create rows, as now', {}),
  variant('create rows, autocheckpoint off', { autockpt: 0 }),
  variant('create rows, lean', { lean: true }),
  variant('create rows, lean + autockpt off', { lean: true, autockpt: 0 }),
];
const n = Number(process.argv[2] ?? 1000);
for (const v of vs) await sequentialRate(v.run, 2000); // fill a little
const res = vs.map(() => []);
for (let r = 0; r < 5; r++) for (const [k, v] of vs.entries()) res[k].push(1000 / (await sequentialRate(v.run, n)));
for (const [k, v] of vs.entries()) console.log(`${median(res[k]).toFixed(3)} ms  ${v.name}   [${res[k].map((x) => x.toFixed(2)).join(' ')}]`);
