// Scoped lists under load: 20 viewer connections list what they may see (5 groups among
// 50,000, deep skips included) as fast as the server answers, while the
// owner reads one group at a time. A viewer's list must cost what the viewer can see, so
// the owner's reads stay fast: p99 under 50 ms over a bounded number of requests (400;
// the measurement stops as soon as 5 of them are over, when p99 can no longer be under).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { Client, G, PCTL, cleanup, startServe, tempDir } from './helpers.js';
import { populate } from './populate.js';

const GROUPS = 50_000;
const VIEWERS = 20;
const OWNER_REQUESTS = 400;
const OWNER_WARMUP = 100;
const P99_LIMIT_MS = 50;

test.after.always(cleanup);

/**
 * org → 10 teams → 1,000 subgroups → leaves, through the store (one transaction); a viewer
 * bound on 5 leaves in different teams (5 subtrees, merged: the finding's viewer saw 5 groups).
 */
function populateScoped(dataDir: string) {
  return populate(dataDir, ({ org, group, viewer, bindViewer }) => {
    const teams = Array.from({ length: 10 }, (_, i) => group(org, `team-${i}`));
    const subs = Array.from({ length: 1000 }, (_, i) => group(teams[i % 10]!, `sub-${String(i).padStart(4, '0')}`));
    const leaves: string[] = [];
    for (let i = 0; 1010 + i < GROUPS; i++) leaves.push(group(subs[i % subs.length]!, `leaf-${(i * 7919) % 100_003}`));
    const vic = viewer();
    for (const leaf of [3, 9_001, 17_017, 30_303, 48_000].map((i) => leaves[i]!)) bindViewer(vic, leaf);
    return { org, team: teams[3]!, viewer: vic };
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

test.serial(`${VIEWERS} viewer connections listing among ${GROUPS.toLocaleString('en-US')} groups leave the owner's GET p99 under ${P99_LIMIT_MS} ms`, async (t) => {
  const dataDir = tempDir('pctl-stress-scoped-');
  const { team, viewer } = await populateScoped(dataDir);
  const srv = await startServe(dataDir);
  const viewerToken = execFileSync(process.execPath, [PCTL, 'serve', 'token', '--identity', viewer, '--data', dataDir], {
    env: { ...process.env, PCTL_CONFIG_DIR: tempDir('pctl-stress-config-') }, encoding: 'utf8',
  }).trim();
  const owner = new Client(srv.url, srv.token, 1);
  const viewers = new Client(srv.url, viewerToken, VIEWERS);
  t.teardown(() => Promise.all([owner.close(), viewers.close()]).then(() => {}, () => {}));

  const visible = await viewers.req('GET', `${G}?page_size=1`);
  t.is(visible.status, 200, visible.text);
  const visibleCount = Number(visible.json.totalCount);
  t.is(visibleCount, 5, 'the viewer sees its 5 groups');
  const ownerPath = `${G}/${team}`;
  t.is((await owner.req('GET', ownerPath)).status, 200);

  // The viewers: plain lists, sorted ones, and deep skips (the costliest a viewer can ask for).
  const queries = ['', '?order_by=name', '?order_by=name%20desc&skip=9800', '?order_by=createTime%20desc&page_size=200', '?skip=40&order_by=updateTime'];
  let stop = false;
  let listed = 0;
  const viewerMs: number[] = [];
  const problems: string[] = [];
  let loaded: () => void;
  const underLoad = new Promise<void>((resolve) => { loaded = resolve; });
  const viewerHeaders = { authorization: `Bearer ${viewerToken}` };
  const viewerLoops = Array.from({ length: VIEWERS }, async (_, w) => {
    for (let i = w; !stop; i++) {
      const t0 = performance.now();
      // Straight from the pool, not parsed: the load generator shares the machine with the server.
      const res = await viewers.pool.request({ method: 'GET', path: `${G}${queries[i % queries.length]}`, headers: viewerHeaders });
      const text = await res.body.text();
      viewerMs.push(performance.now() - t0);
      if (res.statusCode !== 200 || !text.includes(`"totalCount":"${visibleCount}"`)) problems.push(`${res.statusCode} ${text.slice(0, 200)}`);
      if (++listed === VIEWERS * 5) loaded();
    }
  });

  // The owner measures only once every viewer connection is busy, after a warm-up under
  // that load (the first requests pay for compiling the server's code paths).
  await underLoad;
  for (let i = 0; i < OWNER_WARMUP; i++) await owner.req('GET', ownerPath);
  const ownerMs: number[] = [];
  const listedBefore = listed;
  // Once this many requests are over the limit, p99 of OWNER_REQUESTS is too: stop there.
  const slowAllowed = OWNER_REQUESTS - Math.ceil(0.99 * OWNER_REQUESTS);
  let slow = 0;
  const t0 = performance.now();
  for (let i = 0; i < OWNER_REQUESTS && slow <= slowAllowed; i++) {
    const start = performance.now();
    const res = await owner.req('GET', ownerPath);
    const ms = performance.now() - start;
    ownerMs.push(ms);
    if (ms >= P99_LIMIT_MS) slow++;
    if (res.status !== 200) problems.push(`owner: ${res.status} ${res.text.slice(0, 200)}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const viewerRate = (listed - listedBefore) / seconds;
  stop = true;
  await Promise.all(viewerLoops);

  ownerMs.sort((a, b) => a - b);
  viewerMs.sort((a, b) => a - b);
  const stoppedEarly = ownerMs.length < OWNER_REQUESTS;
  const p99 = stoppedEarly ? Infinity : percentile(ownerMs, 99);
  if (stoppedEarly) t.log(`owner: ${slow} of the first ${ownerMs.length} requests took ${P99_LIMIT_MS} ms or more; stopped (p99 of ${OWNER_REQUESTS} cannot be under the limit)`);
  t.log(`owner GET ${ownerPath.slice(0, 40)}…: ${ownerMs.length} requests, p50 ${percentile(ownerMs, 50).toFixed(1)} ms, p99 ${stoppedEarly ? '-' : `${p99.toFixed(1)} ms`}, max ${ownerMs.at(-1)!.toFixed(1)} ms`);
  t.log(`viewers (${VIEWERS} connections, ${visibleCount} groups visible): ${viewerRate.toFixed(0)} lists/s meanwhile, ${listed} lists in all, p50 ${percentile(viewerMs, 50).toFixed(1)} ms, p99 ${percentile(viewerMs, 99).toFixed(1)} ms`);
  t.deepEqual(problems.slice(0, 5), [], 'every list and every read answered 200 with the viewer\'s exact totalCount');
  t.true(p99 < P99_LIMIT_MS, `owner p99 ${stoppedEarly ? `>= ${P99_LIMIT_MS}` : p99.toFixed(1)} ms (limit ${P99_LIMIT_MS} ms)`);
});
