// node bench/replicas-flood.js [--quick]
// Issue 27, item 5: a flood at one PostgreSQL replica and another replica's writers. Replicas
// A and B share a database (a throwaway cluster of this machine's PostgreSQL, fsync on);
// writes of all replicas take one table lock in turn. One caller floods A over 50 connections
// (half creates, half uncached lists of 200), while a client of B creates groups one after
// another: B's create latency, quiet and under the flood, with A at serve's defaults (fair
// queuing) and with A at --rate-limit off. Fairness is per replica: B's own queue is empty
// throughout; what B waits for is A holding the lock.
// Needs a build (npm run build) and PostgreSQL (initdb, pg_ctl, postgres).
import { readFileSync, rmSync } from 'node:fs';
import { Pool } from 'undici';
import { freshDatabaseUrl, startPostgresCluster } from '../scripts/pg-cluster.mjs';
import { fmt, startServe, tempDir } from './lib.js';

const quick = process.argv.includes('--quick');
const CREATES = quick ? 150 : 400;
const FLOOD_CONNECTIONS = 50;
const dirs = [];

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

function client(url, token, connections) {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await pool.request({ method, path, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.body.text();
    return { status: res.statusCode, json: res.statusCode === 200 && text ? JSON.parse(text) : undefined };
  };
  return { call, close: () => pool.close() };
}

/** B's sequential creates: latencies sorted, and any status other than 200. */
async function creates(b, parent, n, tag) {
  const ms = [];
  const bad = {};
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await b.call('POST', '/iam/v2/groups', { parent, group: { name: `${tag}-${i}` } });
    ms.push(performance.now() - t0);
    if (res.status !== 200) bad[res.status] = (bad[res.status] ?? 0) + 1;
  }
  return { ms: ms.sort((x, y) => x - y), bad };
}

const show = (m) => `p50 ${fmt(percentile(m.ms, 50), 1)} ms, p99 ${fmt(percentile(m.ms, 99), 1)} ms, max ${fmt(m.ms.at(-1), 1)} ms${Object.keys(m.bad).length ? `, not 200: ${JSON.stringify(m.bad)}` : ''}`;

async function run(cluster, rateLimitAtA) {
  const database = await freshDatabaseUrl(cluster.url);
  const [dirA, dirB] = [tempDir(), tempDir()];
  dirs.push(dirA, dirB);
  const a = await startServe(dirA, { database, rateLimit: rateLimitAtA });
  const b = await startServe(dirB, { database, rateLimit: null });
  try {
    const token = readFileSync(`${dirA}/owner.token`, 'utf8').trim();
    const atA = client(a.url, token, FLOOD_CONNECTIONS);
    const atB = client(b.url, token, 1);
    const parent = (await atB.call('GET', '/iam/v2/groups?page_size=1')).json.groups[0].uid;
    for (let i = 0; i < 1000; i++) await atA.call('POST', '/iam/v2/groups', { parent, group: { name: `seed-${i}` } });
    const quiet = await creates(atB, parent, CREATES, 'quiet');

    let stop = false;
    let flooded = 0;
    const floodStatuses = {};
    const orders = ['', '&order_by=name', '&order_by=name%20desc', '&order_by=createTime%20desc', '&order_by=updateTime'];
    const flood = Array.from({ length: FLOOD_CONNECTIONS }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const res = (w + i) % 2
          ? await atA.call('POST', '/iam/v2/groups', { parent, group: { name: `flood-${w}-${i}` } })
          : await atA.call('GET', `/iam/v2/groups?page_size=200&skip=${(i * 7919 + w * 131) % 1000}${orders[i % orders.length]}`);
        floodStatuses[res.status] = (floodStatuses[res.status] ?? 0) + 1;
        flooded++;
      }
    });
    while (flooded < FLOOD_CONNECTIONS * 4) await new Promise((resolve) => setTimeout(resolve, 20));
    const t0 = performance.now();
    const before = flooded;
    const underFlood = await creates(atB, parent, CREATES, 'flooded');
    const floodRate = (flooded - before) / ((performance.now() - t0) / 1000);
    stop = true;
    await Promise.all(flood);
    await Promise.all([atA.close(), atB.close()]);
    return { quiet, underFlood, floodRate, floodStatuses };
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

const cluster = await startPostgresCluster();
if (!cluster.available) {
  console.log(`replicas: PostgreSQL SKIPPED (${cluster.reason})`);
  process.exit(0);
}
try {
  for (const [label, rateLimit] of [['A at the defaults (fair queuing)', null], ['A at --rate-limit off', 'off']]) {
    const r = await run(cluster, rateLimit);
    console.log(`${label}:`);
    console.log(`  B, ${CREATES} sequential creates, quiet:        ${show(r.quiet)}`);
    console.log(`  B, ${CREATES} sequential creates, A flooded:    ${show(r.underFlood)}`);
    console.log(`  A's flood meanwhile: ${fmt(r.floodRate)} requests/s (half creates, half lists of 200), statuses ${JSON.stringify(r.floodStatuses)}`);
  }
  console.log(`    $ node bench/replicas-flood.js${quick ? ' --quick' : ''}   (pctl serve --database URL, two replicas; the flood: ${FLOOD_CONNECTIONS} connections of one token at A)`);
} finally {
  await cluster.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
