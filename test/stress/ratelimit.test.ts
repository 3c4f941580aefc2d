// Rate limits under load: 30 keep-alive connections as the owner and 10 without a token
// against a real `pctl serve --rate-limit 50/s,20` for a bounded while. Every answer is a
// 200, the 401 of a missing token, or a well-formed 429 (code 8, RATE_LIMITED, Retry-After),
// and each carries the RateLimit fields. Neither caller is let in more often than its bucket
// allows over the whole run (burst + rate × elapsed, elapsed measured around every request:
// a bound that holds however slow the machine), and the two buckets are independent.
import test from 'ava';
import { Client, G, cleanup, startServe, statusProblem, stopServe, tempDir } from './helpers.js';

const DURATION_MS = Number(process.env.STRESS_RATELIMIT_MS ?? 3000);
const RATE = 50;
const BURST = 20;

test.after.always(cleanup);

test.serial(`rate limit ${RATE}/s,${BURST} under 40 connections for ${DURATION_MS / 1000} s: never over-admits, every answer well-formed`, async (t) => {
  const srv = await startServe(tempDir('pctl-stress-rl-'), { rateLimit: `${RATE}/s,${BURST}` });
  const owner = new Client(srv.url, srv.token, 30);
  const anonymous = new Client(srv.url, undefined, 10);
  t.teardown(() => Promise.all([owner.close(), anonymous.close()]).then(() => {}, () => {}));

  const counts = new Map<string, number>();
  const problems: string[] = [];
  const t0 = performance.now();
  const stopAt = t0 + DURATION_MS;
  const worker = async (c: Client, who: 'owner' | 'anonymous', admitted: number) => {
    while (performance.now() < stopAt && problems.length < 20) {
      const res = await c.req('GET', `${G}?page_size=1`);
      counts.set(`${who} ${res.status}`, (counts.get(`${who} ${res.status}`) ?? 0) + 1);
      if (res.headers['ratelimit-policy'] !== `"default";q=${RATE};w=1;pctl-burst=${BURST}`) problems.push(`${who}: policy ${String(res.headers['ratelimit-policy'])}`);
      if (!/^"default";r=\d+;t=\d+$/.test(String(res.headers.ratelimit))) problems.push(`${who}: RateLimit ${String(res.headers.ratelimit)}`);
      if (res.status === admitted) continue;
      if (res.status !== 429) {
        problems.push(`${who}: ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      const shape = statusProblem(res.json);
      if (shape || res.json.code !== 8 || res.json.details[0]?.reason !== 'RATE_LIMITED') problems.push(`${who}: bad 429 body ${shape ?? res.text.slice(0, 200)}`);
      if (!/^[1-9]\d*$/.test(String(res.headers['retry-after']))) problems.push(`${who}: 429 without Retry-After`);
    }
  };
  await Promise.all([
    ...Array.from({ length: 30 }, () => worker(owner, 'owner', 200)),
    ...Array.from({ length: 10 }, () => worker(anonymous, 'anonymous', 401)),
  ]);
  const elapsedS = (performance.now() - t0) / 1000;
  t.log(Object.fromEntries(counts), `${elapsedS.toFixed(1)} s`);

  t.deepEqual(problems, []);
  const ceiling = Math.floor(BURST + RATE * elapsedS);
  for (const [who, admitted] of [['owner', 200], ['anonymous', 401]] as const) {
    const n = counts.get(`${who} ${admitted}`) ?? 0;
    t.true(n >= 1, `${who} was let in at least once`);
    t.true(n <= ceiling, `${who}: ${n} admitted in ${elapsedS.toFixed(2)} s, at most ${ceiling} allowed`);
  }
  t.is((await stopServe(srv)).code, 0);
});
