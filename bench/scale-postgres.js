// npm run bench -- --scale [size] --postgres: PostgreSQL replicas (serve --database) at a size
// (groups; default 100,000), on a throwaway cluster of this machine's PostgreSQL (fsync on).
// Prints in one run: the seed's load on one replica; a replica's cold start (spawn →
// listening) and RSS, alone and three at once; 16 clients creating groups over 1 and over 3
// replicas against raw PostgreSQL inserts from 16 clients (node-postgres, one row per
// transaction, into a table of the resources table's shape); GETs on one replica, quiet and
// while another replica takes writes. Needs a build (npm run build) and PostgreSQL.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { freshDatabaseUrl, startPostgresCluster } from '../scripts/pg-cluster.mjs';
import { autocannonRun, fmt, serveMeasured, tempDir } from './lib.js';
import { scaleSeed } from './scale.js';

const CLIENTS = 16;
const CREATES = 3000;

function client(url, token, connections) {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await pool.request({ method, path, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  return { call, close: () => pool.close() };
}

/** `total` creates of groups below `parent`, by CLIENTS clients spread over `clients` in turn: creates/s. */
async function createRate(clients, parent, total, tag) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, w) => {
    const c = clients[w % clients.length];
    for (let i = next++; i < total; i = next++) await c.call('POST', '/iam/v2/groups', { parent, group: { name: `${tag}-${i}` } });
  }));
  return total / ((performance.now() - t0) / 1000);
}

/** Raw PostgreSQL: CLIENTS connections inserting one row a transaction into a table of the resources table's shape. */
async function rawInsertRate(database, total) {
  const admin = new pg.Client({ connectionString: database });
  await admin.connect();
  await admin.query('CREATE TABLE raw_inserts (uid TEXT PRIMARY KEY, kind TEXT NOT NULL, parent TEXT, name TEXT NOT NULL, alt_key TEXT, create_time TEXT NOT NULL, update_time TEXT NOT NULL, data TEXT NOT NULL)');
  await admin.query('CREATE INDEX raw_inserts_parent ON raw_inserts (parent, kind, name, uid)');
  const conns = await Promise.all(Array.from({ length: CLIENTS }, async () => {
    const c = new pg.Client({ connectionString: database });
    await c.connect();
    return c;
  }));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(conns.map(async (c) => {
    for (let i = next++; i < total; i = next++) {
      const now = new Date().toISOString();
      await c.query('INSERT INTO raw_inserts VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [`org/${i.toString(16).padStart(16, '0')}`, 'group', 'org', `raw-${i}`, null, now, now, '{"description":""}']);
    }
  }));
  const rate = total / ((performance.now() - t0) / 1000);
  await Promise.all(conns.map((c) => c.end()));
  await admin.query('DROP TABLE raw_inserts');
  await admin.end();
  return rate;
}

export async function scalePostgres(n, report, cleanup) {
  const cluster = await startPostgresCluster();
  if (!cluster.available) {
    console.log(`[scale postgres] SKIPPED: ${cluster.reason}`);
    return;
  }
  const stops = [];
  try {
    const database = await freshDatabaseUrl(cluster.url);
    const dir = tempDir('pctl-bench-scale-pg-');
    cleanup.push(dir);
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(scaleSeed(n)));
    const tag = `[scale postgres ${fmt(n)} groups]`;
    const dirOf = (name) => join(dir, name);

    const loader = await serveMeasured(['--data', dirOf('loader'), '--database', database, '--seed', seedFile], dirOf('loader-config'));
    report(`${tag} serve --database --seed: load (spawn → listening)`, loader.ms, 'ms', { command: `pctl serve --database URL --seed seed.json (${fmt(n)} groups)` });
    report(`${tag} the loading replica: RSS once listening`, loader.rssMiB(), 'MiB', { command: '/proc/PID/status VmRSS' });
    report(`${tag} the loading replica: peak RSS`, await loader.stop(), 'MiB', { command: '/usr/bin/time -f %M' });

    // Cold start: one replica alone, then three at once.
    const one = await serveMeasured(['--data', dirOf('r0'), '--database', database], dirOf('r0-config'));
    stops.push(one.stop);
    report(`${tag} one replica: cold start (spawn → listening)`, one.ms, 'ms', { target: n >= 1_000_000 ? '< 3,000' : undefined, command: 'pctl serve --database URL (a fresh data dir)' });
    report(`${tag} one replica: RSS once listening`, one.rssMiB(), 'MiB', { target: n >= 1_000_000 ? '< 150' : undefined, command: '/proc/PID/status VmRSS' });
    const three = await Promise.all([1, 2, 3].map((i) => serveMeasured(['--data', dirOf(`r${i}`), '--database', database], dirOf(`r${i}-config`))));
    for (const r of three) stops.push(r.stop);
    report(`${tag} three replicas started at once: last listening`, Math.max(...three.map((r) => r.ms)), 'ms', { command: `3 × pctl serve --database URL; each: ${three.map((r) => fmt(r.ms)).join(', ')} ms` });

    const token = readFileSync(join(dirOf('loader'), 'owner.token'), 'utf8').trim();
    const clientsOf = (servers) => servers.map((s) => client(s.url, token, Math.ceil(CLIENTS / servers.length)));
    const [c0] = clientsOf([one]);
    const org = (await c0.call('GET', '/iam/v2/groups?page_size=1')).groups[0].uid;
    const team = (await c0.call('GET', '/iam/v2/groups?name=team-3')).groups[0].uid;

    // 16 clients' creates: one replica, three replicas, raw PostgreSQL.
    const oneRate = await createRate([c0], team, CREATES, 'one');
    const threeClients = clientsOf(three);
    const threeRate = await createRate(threeClients, team, CREATES, 'three');
    const rawRate = await rawInsertRate(database, CREATES);
    report(`${tag} ${CLIENTS} clients creating over 1 replica`, oneRate, 'creates/s', { command: `${fmt(CREATES)} POST /iam/v2/groups from ${CLIENTS} clients` });
    report(`${tag} ${CLIENTS} clients creating over 3 replicas`, threeRate, 'creates/s', { ratio: threeRate / oneRate, target: '>= 1 (of 1 replica)', command: 'the same, the clients spread over 3 replicas' });
    report(`${tag} raw PostgreSQL: ${CLIENTS} clients inserting`, rawRate, 'inserts/s', { command: `${fmt(CREATES)} INSERTs (one a transaction) from ${CLIENTS} node-postgres connections` });
    report(`${tag} 1 replica against raw PostgreSQL inserts`, oneRate / rawRate, 'x', { command: 'creates/s over 1 replica / raw inserts/s' });
    report(`${tag} 3 replicas against raw PostgreSQL inserts`, threeRate / rawRate, 'x', { command: 'creates/s over 3 replicas / raw inserts/s (target >= 0.4)' });

    // GETs on one replica, quiet and while another takes writes.
    const uid = (await c0.call('GET', `/iam/v2/groups?uidp.children_of=${encodeURIComponent(team)}&page_size=1`)).groups[0].uid;
    const getUrl = `${one.url}/iam/v2/groups/${encodeURIComponent(uid)}`;
    const headers = { authorization: `Bearer ${token}` };
    const quiet = await autocannonRun(getUrl, { headers, duration: 5 });
    let writing = true;
    const writer = (async () => {
      let i = 0;
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (writing) await threeClients[0].call('POST', '/iam/v2/groups', { parent: org, group: { name: `w-${i++}` } });
      }));
    })();
    const busy = await autocannonRun(getUrl, { headers, duration: 5 });
    writing = false;
    await writer;
    report(`${tag} GET by uid on a replica, quiet`, quiet.rate, 'req/s', { command: 'autocannon -c 10 -d 5 GET /iam/v2/groups/{uid}' });
    report(`${tag} GET by uid on a replica while another takes writes`, busy.rate, 'req/s', { ratio: busy.rate / quiet.rate, target: '>= 0.8', command: `the same, ${CLIENTS} clients creating groups on another replica meanwhile` });
    await Promise.all([c0, ...threeClients].map((c) => c.close()));
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    await cluster.stop();
  }
}
