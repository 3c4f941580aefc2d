// Fairness under a flood (issue 27): with serve's defaults, one viewer lists groups over 50
// connections as fast as serve answers (a page of 200, the order and skip varied so pages are
// rarely served twice), while the owner reads one group at a time. The owner's p99 must stay
// at most 20 ms. The flood runs in a worker thread (flood-worker.mjs) so that the owner's
// latencies are measured by an event loop that does nothing else.
//
// Robust on a shared machine, where other processes take the CPU from serve:
// - Under the flood serve needs a whole core. When it gets a share f of one (measured from
//   /proc just before), each millisecond of its work takes 1/f ms: the 20 ms become 20/f.
// - Each attempt first measures the owner with the flood paused (quiet): what that p99 has
//   over QUIET_P99_MS (an idle machine's) is the machine's own noise, allowed on top.
// - Up to ATTEMPTS attempts, and the best counts: noise can spoil an attempt, it cannot make
//   serve fair. On an idle machine the limit is the issue's 20 ms; without fair queuing the
//   owner's p50 alone is over 100 ms on a loaded one (STRESS_FAIR_RATE_LIMIT=off shows it).
// Bounded in time: a measurement stops as soon as more than 1% of its requests are over the
// limit (p99 can then no longer be under it).
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { Client, G, PCTL, cleanup, startServe, tempDir } from './helpers.js';
import { populate } from './populate.js';

/**
 * Pages of 200 at a random skip in one of 6 orders: some 30,000 different pages, so the list
 * engine's cache of the last 1,000 pages rarely has one. One such list costs about 1 ms of
 * CPU here; a request that arrives while one runs waits for it (serve runs one request at a
 * time), so much costlier single requests would be a bound no queue can keep.
 */
const GROUPS = Number(process.env.STRESS_FAIR_GROUPS ?? 5_000);
const CONNECTIONS = 50;
const OWNER_REQUESTS = Number(process.env.STRESS_FAIR_REQUESTS ?? 1000);
const OWNER_WARMUP = 100;
const ATTEMPTS = Number(process.env.STRESS_FAIR_ATTEMPTS ?? 3);
const P99_LIMIT_MS = 20;
/** The owner's p99 on an idle machine (about 1 ms here): noise is what a quiet p99 has over it. */
const QUIET_P99_MS = 2;
/** `off` to see what the flood does without fair queuing; unset, serve's default. */
const RATE_LIMIT = process.env.STRESS_FAIR_RATE_LIMIT;

test.after.always(cleanup);

/** org → 60 teams → the groups; a viewer bound on the org (it sees every group). */
function populateFlood(dataDir: string) {
  return populate(dataDir, ({ org, group, viewer, bindViewer }) => {
    const teams = Array.from({ length: 60 }, (_, i) => group(org, `team-${i}`));
    for (let i = 0; 60 + i < GROUPS; i++) group(teams[i % teams.length]!, `group-${(i * 7919) % 100_003}`);
    const vic = viewer();
    bindViewer(vic, org);
    return { team: teams[7]!, viewer: vic };
  });
}

/**
 * The share of one core a process had (from 0.05 to 1) while `during` ran, and at least
 * 500 ms; 1 where there is no /proc to tell (utime + stime, in ticks of 10 ms).
 */
async function cpuShare(pid: number, during: () => Promise<void>): Promise<number> {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return 1;
  const cpuMs = () => {
    const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const [cpu0, t0] = [cpuMs(), performance.now()];
  await during();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 500 - (performance.now() - t0))));
  return Math.min(1, Math.max(0.05, (cpuMs() - cpu0) / (performance.now() - t0)));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface FloodReport { listed: number; statuses: Record<string, number>; paused?: boolean; done?: boolean }

test.serial(`one viewer flooding lists over ${CONNECTIONS} connections leaves the owner's GET p99 at most ${P99_LIMIT_MS} ms`, async (t) => {
  const dataDir = tempDir('pctl-stress-fair-');
  const { team, viewer } = await populateFlood(dataDir);
  const srv = await startServe(dataDir, { rateLimit: RATE_LIMIT ?? null });
  const viewerToken = execFileSync(process.execPath, [PCTL, 'serve', 'token', '--identity', viewer, '--data', dataDir], {
    env: { ...process.env, PCTL_CONFIG_DIR: tempDir('pctl-stress-config-') }, encoding: 'utf8',
  }).trim();
  const owner = new Client(srv.url, srv.token, 1);
  t.teardown(() => owner.close().catch(() => {}));
  const ownerPath = `${G}/${team}`;
  const measure = async (n: number, boundMs: number) => {
    const ms: number[] = [];
    const statuses = new Set<number>();
    // Once more than this many are over the bound, p99 of n is over it too: stop there.
    const slowAllowed = n - Math.ceil(0.99 * n);
    let slow = 0;
    for (let i = 0; i < n && slow <= slowAllowed; i++) {
      const start = performance.now();
      const res = await owner.req('GET', ownerPath);
      const took = performance.now() - start;
      ms.push(took);
      statuses.add(res.status);
      if (took > boundMs) slow++;
    }
    ms.sort((a, b) => a - b);
    const complete = ms.length === n;
    return { ms, statuses: [...statuses], complete, boundMs, p50: percentile(ms, 50), p99: complete ? percentile(ms, 99) : Infinity, max: ms.at(-1)! };
  };
  type Measured = Awaited<ReturnType<typeof measure>>;
  const show = (m: Measured) =>
    `${m.ms.length} GETs, p50 ${m.p50.toFixed(1)} ms, p99 ${m.complete ? `${m.p99.toFixed(1)} ms` : `over ${m.boundMs.toFixed(1)} ms (stopped early)`}, max ${m.max.toFixed(1)} ms`;
  await measure(OWNER_WARMUP, Infinity);

  const flood = new Worker(new URL('./flood-worker.mjs', import.meta.url), {
    workerData: { url: srv.url, token: viewerToken, connections: CONNECTIONS, groups: GROUPS, seed: 27 },
  });
  let latest: FloodReport = { listed: 0, statuses: {} };
  const finished = new Promise<FloodReport>((resolve, reject) => {
    flood.on('message', (m: FloodReport) => {
      latest = m;
      if (m.done) resolve(m);
    });
    flood.on('error', reject);
    flood.on('exit', (code) => reject(new Error(`the flood worker exited with ${code} before reporting`)));
  });
  t.teardown(() => flood.terminate().then(() => {}));
  const until = async (done: (m: FloodReport) => boolean) => {
    while (!done(latest)) await Promise.race([new Promise((resolve) => flood.once('message', resolve)), finished]);
  };
  // Measured only once every connection has had a few answers, after a warm-up under the flood.
  await until((m) => m.listed >= CONNECTIONS * 3);
  await measure(OWNER_WARMUP, Infinity);

  const attempts: { quiet: Measured; flood: Measured; limitMs: number }[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    flood.postMessage('pause');
    await until((m) => m.paused === true);
    const quiet = await measure(OWNER_REQUESTS, Infinity);
    flood.postMessage('resume');
    const resumedAt = latest.listed;
    await until((m) => m.listed >= resumedAt + CONNECTIONS);
    const share = await cpuShare(srv.pid, () => until((m) => m.listed > resumedAt + CONNECTIONS * 5));
    const limitMs = P99_LIMIT_MS / share + Math.max(0, quiet.p99 - QUIET_P99_MS);
    const listedBefore = latest.listed;
    const t0 = performance.now();
    const flooded = await measure(OWNER_REQUESTS, limitMs);
    await until((m) => m.listed > listedBefore);
    const rate = (latest.listed - listedBefore) / ((performance.now() - t0) / 1000);
    attempts.push({ quiet, flood: flooded, limitMs });
    t.log(`attempt ${i + 1}: quiet ${show(quiet)}; under the flood ${show(flooded)} (limit ${limitMs.toFixed(1)} ms: serve had ${(share * 100).toFixed(0)}% of a core); the viewer meanwhile ${rate.toFixed(0)} lists/s`);
    if (flooded.p99 <= limitMs) break;
  }
  flood.postMessage('stop');
  const total = await finished;
  t.log(`the viewer: ${total.listed} lists, statuses ${JSON.stringify(total.statuses)}`);
  t.is(srv.stderr().match(/^internal error: .*/m)?.[0], undefined, 'serve logged no internal error');

  t.deepEqual(attempts.flatMap((a) => [...a.quiet.statuses, ...a.flood.statuses]), attempts.flatMap(() => [200, 200]), 'every owner GET answered 200');
  t.true(total.listed >= CONNECTIONS * 3, 'the flood ran');
  t.true(Object.keys(total.statuses).every((s) => s === '200' || s === '429'), `the viewer got only 200s (and 429s past its queue): ${JSON.stringify(total.statuses)}`);
  t.true(attempts.some((a) => a.flood.p99 <= a.limitMs), `owner p99 under the flood within ${P99_LIMIT_MS} ms (over serve's share of a core, + the machine's noise) in none of ${attempts.length} attempts`);
});
