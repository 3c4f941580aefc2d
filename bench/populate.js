// Fills a data dir with N groups straight through the store (one transaction, a bulk load), after a
// normal bootstrap: org → 10 teams → subgroups → leaves, so depth-3 scopes exist.
import { startServer } from '../dist/server/index.js';
import { Store } from '../dist/server/store/store.js';
import { newChildUid, timestamp } from '../dist/server/domain/records.js';
import { systemRandom } from '../dist/server/base/random.js';

export async function populate(dataDir, n) {
  const srv = await startServer({ dataDir, port: 0 });
  const { organizationUid: org } = srv;
  await srv.close();
  const store = new Store(dataDir);
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  let made = 0;
  const add = (parent, name) => {
    const t = timestamp(t0 + made * 7);
    const uid = newChildUid(systemRandom, parent);
    store.insert({ uid, kind: 'group', parent, name, altKey: null, createTime: t, updateTime: t, data: { description: '', verified: false } });
    made++;
    return uid;
  };
  store.bulkLoad(() => {
    const teams = [];
    for (let i = 0; i < 10 && made < n; i++) teams.push(add(org, `team-${i}`));
    const subs = [];
    for (let i = 0; made < n && i < 100 * teams.length; i++) subs.push(add(teams[i % teams.length], `sub-${String(i).padStart(4, '0')}`));
    for (let i = 0; made < n; i++) add(subs[i % subs.length], `leaf-${(i * 7919) % 100003}`);
  });
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.close();
  return { org };
}
