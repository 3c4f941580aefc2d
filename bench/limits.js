// node bench/limits.js [--quick]
// serve's limits (issue 27), each figure with the command behind it:
// 1. With serve's defaults (fair queuing), one token, one request after another as fast as
//    they go: 2,000 creates and 5,000 GETs, and how many were refused (the target: none).
// 2. What fair queuing costs: GET by uid over 10 connections (autocannon), defaults against
//    --rate-limit off, interleaved (A B B A …) after a warm-up, medians.
// 3. --rate-limit 100/s: the same sequential GETs get 429s with Retry-After, as the API's
//    limits would.
// Needs a build (npm run build).
import { readFileSync, rmSync } from 'node:fs';
import { Pool } from 'undici';
import { fmt, median, reqPerSec, startServe, tempDir } from './lib.js';

const quick = process.argv.includes('--quick');
const CREATES = quick ? 200 : 2000;
const GETS = quick ? 500 : 5000;
const dirs = [];

async function serve(rateLimit) {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const s = await startServe(dataDir, { rateLimit });
  const token = readFileSync(`${dataDir}/owner.token`, 'utf8').trim();
  const pool = new Pool(s.url, { connections: 1 });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await pool.request({ method, path, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.body.text();
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], json: res.statusCode === 200 ? JSON.parse(text) : undefined };
  };
  const org = (await call('GET', '/iam/v2/groups?page_size=1')).json.groups[0].uid;
  return { ...s, token, org, call, stop: async () => { await pool.close(); await s.stop(); } };
}

/** Sends `n` requests one after another; statuses counted, 429s without Retry-After counted apart. */
async function sequential(n, send) {
  const statuses = {};
  let without = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await send(i);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 429 && !/^\d+$/.test(res.retryAfter ?? '')) without++;
  }
  return { statuses, perSecond: n / ((performance.now() - t0) / 1000), without };
}

try {
  const fair = await serve(null);
  const creates = await sequential(CREATES, (i) => fair.call('POST', '/iam/v2/groups', { parent: fair.org, group: { name: `bench-${i}` } }));
  const gets = await sequential(GETS, () => fair.call('GET', `/iam/v2/groups/${fair.org}`));
  console.log(`defaults (fair queuing), ${fmt(CREATES)} sequential creates: ${JSON.stringify(creates.statuses)}, ${fmt(creates.perSecond)}/s`);
  console.log(`defaults (fair queuing), ${fmt(GETS)} sequential GETs:    ${JSON.stringify(gets.statuses)}, ${fmt(gets.perSecond)}/s`);
  const refused = (creates.statuses[429] ?? 0) + (gets.statuses[429] ?? 0);
  console.log(`  target 0 x 429: ${refused === 0 ? 'met' : `MISSED (${refused})`}`);
  console.log('    $ pctl serve --port 0 --data DIR; one undici connection, one request after another');

  const off = await serve('off');
  const url = (s) => `${s.url}/iam/v2/groups/${s.org}`;
  const rps = { fair: [], off: [] };
  const duration = quick ? 2 : 3;
  const cannon = (s, seconds) => reqPerSec(url(s), { headers: { authorization: `Bearer ${s.token}` }, duration: seconds });
  for (const s of [fair, off]) await cannon(s, 3); // the first seconds compile serve's hot paths
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    // Each first every other round: neither always runs on the machine the other left.
    for (const k of i % 2 ? ['off', 'fair'] : ['fair', 'off']) rps[k].push(await cannon(k === 'fair' ? fair : off, duration));
  }
  const [f, o] = [median(rps.fair), median(rps.off)];
  console.log(`GET by uid, 10 connections, one token: defaults ${fmt(f)} req/s, --rate-limit off ${fmt(o)} req/s (ratio ${fmt(f / o, 2)})`);
  console.log(`    $ autocannon -c 10 -d ${duration} -H 'authorization: Bearer …' URL   (interleaved, median of ${rps.fair.length}; each run: fair ${rps.fair.map((x) => fmt(x)).join(' ')}, off ${rps.off.map((x) => fmt(x)).join(' ')})`);
  await Promise.all([fair.stop(), off.stop()]);

  const rated = await serve('100/s');
  const limited = await sequential(quick ? 300 : 1000, () => rated.call('GET', `/iam/v2/groups/${rated.org}`));
  console.log(`--rate-limit 100/s, ${fmt(quick ? 300 : 1000)} sequential GETs: ${JSON.stringify(limited.statuses)}, 429s without Retry-After: ${limited.without}`);
  console.log('    $ pctl serve --port 0 --data DIR --rate-limit 100/s');
  await rated.stop();
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
